import { ChildProcessRunner, type CommandRunner } from '../agents/tools/command-runner';
import { childEnv } from '../platform/child-process';

/**
 * Step D (S4_VERIFY): the acceptance command runs for real in the worktree and its exit code
 * decides. It is the user's own command, run like in their terminal (their environment minus
 * Flightdeck's private variables and model credentials), in its own process group so a cancel
 * or the timeout ends everything it started.
 */

/** Test suites of real projects take minutes; ten minutes catches a hung one without cutting a slow one short. */
export const DEFAULT_ACCEPTANCE_TIMEOUT_MS = 10 * 60_000;
/** The end of a failing run is where test runners put the summary and the first failure's trace. */
export const VERIFICATION_SUMMARY_CHARS = 6_000;

export interface AcceptanceResult {
  passed: boolean;
  exitCode: number | null;
  timedOut: boolean;
  /** The tail of the output (stdout and stderr interleaved). */
  summary: string;
  durationMs: number;
}

export async function runAcceptance(o: { cwd: string; command: string; timeoutMs?: number; signal: AbortSignal; runner?: CommandRunner }): Promise<AcceptanceResult> {
  const started = Date.now();
  const runner = o.runner ?? new ChildProcessRunner();
  const env = childEnv('command', process.env, { CI: '1', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
  const r = await runner.run({ cwd: o.cwd, command: o.command, env, timeoutMs: o.timeoutMs ?? DEFAULT_ACCEPTANCE_TIMEOUT_MS, signal: o.signal });
  const output = r.output.trimEnd();
  const tail = output.length > VERIFICATION_SUMMARY_CHARS ? `… ${output.slice(output.length - VERIFICATION_SUMMARY_CHARS)}` : output;
  const why = r.timedOut ? `\n[the acceptance command ran past its ${Math.round((o.timeoutMs ?? DEFAULT_ACCEPTANCE_TIMEOUT_MS) / 1000)} s timeout and was stopped]` : r.signal ? `\n[ended by ${r.signal}]` : '';
  return { passed: r.exitCode === 0 && !r.timedOut, exitCode: r.exitCode, timedOut: r.timedOut === true, summary: tail + why, durationMs: Date.now() - started };
}
