import type { AgentMode, SandboxMode } from './agents';

/**
 * The names the user reads for a session's mode and sandbox, one set for every place that
 * shows them: the session header, Settings, `/permissions`, the transcript's notices, the CLI.
 * The values (`auto-edit`, `workspace-write`) are what is stored and typed; these are what is shown.
 */
export const MODE_LABEL: Record<AgentMode, string> = {
  plan: 'Plan',
  default: 'Default',
  'auto-edit': 'Auto-edit',
  yolo: 'YOLO',
};

export const SANDBOX_LABEL: Record<SandboxMode, string> = {
  'read-only': 'Read-only',
  'workspace-write': 'Workspace',
  'danger-full-access': 'Full access',
};

export const SANDBOX_HELP: Record<SandboxMode, string> = {
  'read-only': 'commands cannot change any file (a private /tmp only)',
  'workspace-write': 'commands write only inside the session folder (not .git) and a private /tmp',
  'danger-full-access': 'commands run unconfined, with your own permissions',
};

/** What the session's commands actually get: plan mode runs them read-only whatever the session chose. */
export function effectiveSandbox(mode: AgentMode, sandbox: SandboxMode): SandboxMode {
  return mode === 'plan' ? 'read-only' : sandbox;
}
