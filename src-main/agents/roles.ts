/**
 * The features' agent roles as tool switches. The Planner explores (read, glob, grep); the
 * Coder also writes and runs commands, under the role guard (policy/role-guard.ts). Neither
 * starts a nested Claude Code run (`coder`): the caller already chose the executor.
 */
import type { ToolName } from '../../src-preload/contract';
import type { AgentRole } from './store/session-repo';

export const ROLE_DISABLED_TOOLS: Readonly<Record<AgentRole, readonly ToolName[]>> = {
  planner: ['write', 'patch', 'bash', 'todo', 'coder'],
  coder: ['coder'],
};
