/**
 * The `coder` tool for the built-in agent in plan mode: a planning session delegates one
 * implementation step to Claude Code and reads seed 000's structured result (the use the
 * seed was written for). Input: seed 000's parameters minus `cd`, which is the session root.
 *
 * Inside the delegated run every tool call still goes through the session's gate, judged in
 * `innerMode` (default "default": edits and commands that are not read-only ask), so plan
 * mode's promise — nothing changes without the user seeing it — holds.
 *
 * Wiring (the engine's Tool type is closed over its own tool names and its ToolContext has no
 * session id, so the integrator adds it where the turn's tools are listed and run):
 *   spec for the model:   coderToolSpec()
 *   run a call:           runCoderTool(input, { sessionId, turnId, root, signal, ... })
 *   policy:               plan mode must answer "ask" for `coder` (decideTool denies unknown
 *                         tools in plan mode today): the user approves each delegation.
 */
import type { ClaudeDetection } from '../../src-preload/contract';
import { coderToolJsonSchema, CoderToolInputSchema, describeIssues } from './core/params';
import type { CoderBackend } from './core/launch';
import { failure, type CoderResult } from './core/result';
import type { ApprovalHook } from './approval-hook';
import { runCoder } from './coder';
import type { HiddenPath, NetworkPolicy } from '../sandbox/policy';

export const CODER_TOOL_NAME = 'coder';

export const CODER_TOOL_DESCRIPTION = [
  'Delegate one implementation step to Claude Code (a coding agent with real write access to the session root).',
  'Give PROMPT the full context: goal, target files, concrete requirements, constraints and acceptance criteria; it does not see this conversation.',
  'Returns JSON: {success, SESSION_ID, result} or {success: false, SESSION_ID (when a conversation exists), error, error_kind, error_detail}.',
  'Pass SESSION_ID back to continue the same Claude Code conversation (also after a failure, e.g. to fix a contract_violation); omit it, or pass "" or null, for a new one. Check success before relying on the result; error_kind says whether a retry can help.',
].join(' ');

export function coderToolSpec(): { name: string; description: string; input_schema: Record<string, unknown> } {
  return { name: CODER_TOOL_NAME, description: CODER_TOOL_DESCRIPTION, input_schema: coderToolJsonSchema() };
}

export interface CoderToolCall {
  /** The session root: the run's cd. */
  root: string;
  signal: AbortSignal;
  backend: CoderBackend;
  gate: ApprovalHook;
  detect(): Promise<ClaudeDetection>;
  envOverrides?: Readonly<Record<string, string | undefined>>;
  /** Network for the delegated run's sandboxed commands (the app's setting). */
  network?: NetworkPolicy;
  /** Paths its sandboxed commands must not read. */
  hidden?: readonly HiddenPath[];
}

export interface CoderToolOutcome {
  /** The seed's result object as JSON: what the planning model reads. */
  content: string;
  isError: boolean;
  result: CoderResult;
}

export async function runCoderTool(input: unknown, call: CoderToolCall): Promise<CoderToolOutcome> {
  const done = (result: CoderResult): CoderToolOutcome => ({ content: JSON.stringify(result), isError: !result.success, result });
  const parsed = CoderToolInputSchema.safeParse(input);
  if (!parsed.success) {
    const issues = describeIssues(parsed.error);
    return done(failure('config_error', `Invalid coder parameters: ${issues.join('; ')}`, { idle_timeout_s: 300, max_duration_s: 1800, last_lines: issues }));
  }
  if (parsed.data.sandbox === 'danger-full-access') {
    return done(failure('config_error', 'danger-full-access is not available to a delegated run; use workspace-write (the default) or read-only.', { idle_timeout_s: parsed.data.timeout, max_duration_s: parsed.data.max_duration }));
  }
  const detection = await call.detect();
  if (!detection.found || !detection.path) {
    return done(failure('command_not_found', detection.message, { idle_timeout_s: parsed.data.timeout, max_duration_s: parsed.data.max_duration }));
  }
  const result = await runCoder(
    { ...parsed.data, cd: call.root },
    { claudePath: detection.path, backend: call.backend, gate: call.gate, signal: call.signal, checkContract: true, envOverrides: call.envOverrides, ...(call.network ? { network: call.network } : {}), ...(call.hidden ? { hidden: call.hidden } : {}), metricsSink: () => undefined },
  );
  return done(result);
}
