import type { TodoItem, ToolName } from '../../../src-preload/contract';
import type { CommandRunner } from './command-runner';
import type { SandboxPolicy } from '../../sandbox/policy';

export interface ToolContext {
  /** The session root (file tools are confined to it; commands run in it). */
  root: string;
  signal: AbortSignal;
  runner: CommandRunner;
  env: NodeJS.ProcessEnv;
  bashTimeoutMs: number;
  /** How the session's commands are confined (the runner enforces it). */
  sandbox: SandboxPolicy;
  /** Live command output, for `tool.output` events. */
  onOutput(chunk: string): void;
  /** The session (and project) a command runs for. */
  owner: { sessionId: string; projectId?: string };
  /** The terminal a command runs in, when the runner uses one. */
  onTerminal(terminalId: string): void;
  todos(): TodoItem[];
  setTodos(todos: TodoItem[]): void;
  /** Called with the root-relative path before write/patch changes a file (undo snapshots). */
  beforeWrite(rel: string): Promise<void>;
}

/**
 * A tool another capability offers the built-in loop for some sessions (the Claude Code
 * executor's `coder` in plan mode). It goes through the same switch → policy → approval
 * order as the engine's own tools; only how it runs differs.
 */
export interface ExtraTool {
  spec: { name: string; description: string; input_schema: Record<string, unknown> };
  run(input: Record<string, unknown>, call: { sessionId: string; turnId: string; signal: AbortSignal }): Promise<{ content: string; isError: boolean }>;
}

export interface ToolOutcome {
  /** What the model reads. */
  content: string;
  isError: boolean;
  exitCode?: number | null;
  /** A command's stdout and stderr apart, when its runner captured them so. */
  streams?: { stdout: string; stderr: string };
  /** Root-relative path a write/patch changed. */
  edited?: string;
}

export interface Tool {
  name: ToolName;
  description: string;
  /** JSON schema sent to the model (derived from the zod schema that validates the input). */
  inputSchema: Record<string, unknown>;
  run(input: Record<string, unknown>, ctx: ToolContext): Promise<ToolOutcome>;
}
