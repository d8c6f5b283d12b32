import type { ToolName } from '../../../src-preload/contract';
import { bashTool } from './bash-tool';
import { patchTool, readTool, writeTool } from './file-tools';
import { globTool, grepTool } from './search-tools';
import { todoTool } from './todo-tool';
import type { Tool } from './types';

export const TOOLS: readonly Tool[] = [readTool, writeTool, patchTool, bashTool, globTool, grepTool, todoTool];

export function toolByName(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}

export function isToolName(name: string): name is ToolName {
  return TOOLS.some((t) => t.name === name);
}
