import { ChildProcessRunner, type CommandRunner } from '../agents/tools/command-runner';
import { childEnv } from '../platform/child-process';
import { DEFAULT_NETWORK, type SandboxPolicy } from '../sandbox/policy';
import { SandboxedRunner } from '../sandbox/sandboxed-runner';

/**
 * Step D (S4_VERIFY): the acceptance command runs for real in the worktree and its exit code
 * decides. The command is the user's, but what it runs (`sh test.sh`, a package script, the
 * test files) is in the worktree the agent has been writing: so it runs where the agent's own
 * commands run — the workspace-write sandbox (network per the setting), or the session's
 * container when the run's session is placed in one — unless the user chose, for this run, to
 * run it unsandboxed. Its environment is the user's minus Flightdeck's private variables and
 * model credentials; it runs in its own process group so a cancel or the timeout ends everything
 * it started, recorded so a later start ends it if this process dies first (autopilot-service).
 */

/** Where a run's acceptance command runs, as the run log and the UI say it. */
export type AcceptancePlace = 'sandbox' | 'container' | 'host-unsandboxed';

/** The runner and policy of one acceptance run (chosen by the service from the run and its session). */
export interface AcceptanceTarget {
  place: AcceptancePlace;
  runner: CommandRunner;
  sandbox: SandboxPolicy;
  /** The run's agent session, so a container runner finds its container and a terminal list its owner. */
  owner?: { sessionId: string; projectId?: string };
  /**
   * In a container: the file (in its /tmp) naming the run's acceptance command while it runs.
   * A kept container outlives a Flightdeck process that died while its acceptance command ran
   * there (on the host the records of autopilot-service end it): the next one ends it first.
   */
  marker?: string;
}

/** Shell: writes this shell's pid (its process group) and start time to `file`. */
export function recordSelfScript(file: string): string {
  return `printf '%s %s\\n' "$$" "$(cut -d' ' -f22 /proc/$$/stat)" > '${file}' 2>/dev/null || true`;
}

/**
 * Shell: kills the process group `file` names if its leader is still the process recorded (same
 * start time), then forgets it. The file is in the agent's reach: only a plain pid above 1 is
 * taken (`kill -KILL -1` would end everything the user may signal).
 */
function endRecordedScript(file: string): string {
  return `if read -r p t < '${file}' 2>/dev/null && case "$p" in ''|*[!0-9]*) false;; *) [ "$p" -gt 1 ];; esac && [ -n "$t" ] && [ "$(cut -d' ' -f22 /proc/$p/stat 2>/dev/null)" = "$t" ]; then kill -KILL -"$p" 2>/dev/null; fi; rm -f '${file}'; true`;
}

/** Marker names are ours (`.flightdeck-acceptance-<run id>`): nothing in them needs quoting. */
const MARKER_NAME = /^[A-Za-z0-9._-]+$/;
/** Ending an earlier command is one short exec. */
const END_EARLIER_TIMEOUT_MS = 30_000;

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

/** Without a target: the default sandbox in the worktree (forgetting the target never means running unconfined). */
function defaultTarget(cwd: string): AcceptanceTarget {
  return { place: 'sandbox', runner: new SandboxedRunner(() => new ChildProcessRunner()), sandbox: { mode: 'workspace-write', root: cwd, network: DEFAULT_NETWORK } };
}

export async function runAcceptance(o: { cwd: string; command: string; timeoutMs?: number; signal: AbortSignal; target?: AcceptanceTarget }): Promise<AcceptanceResult> {
  const started = Date.now();
  const target = o.target ?? defaultTarget(o.cwd);
  const env = childEnv('command', process.env, { CI: '1', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0' });
  let command = o.command;
  if (target.marker !== undefined) {
    if (!MARKER_NAME.test(target.marker)) throw new Error(`not a marker name: ${target.marker}`);
    const file = `/tmp/${target.marker}`;
    // Exactly one acceptance command of a run at a time: one left by a process that died goes first.
    const common = { cwd: o.cwd, env, signal: o.signal, sandbox: target.sandbox, ...(target.owner ? { owner: target.owner } : {}) };
    await target.runner.run({ ...common, command: endRecordedScript(file), timeoutMs: END_EARLIER_TIMEOUT_MS, title: 'acceptance: end an earlier one' });
    command = `${recordSelfScript(file)}\n${o.command}`;
  }
  const r = await target.runner.run({
    cwd: o.cwd,
    command,
    env,
    timeoutMs: o.timeoutMs ?? DEFAULT_ACCEPTANCE_TIMEOUT_MS,
    signal: o.signal,
    sandbox: target.sandbox,
    ...(target.owner ? { owner: target.owner } : {}),
    title: `acceptance: ${o.command}`,
  });
  const output = r.output.trimEnd();
  const tail = output.length > VERIFICATION_SUMMARY_CHARS ? `… ${output.slice(output.length - VERIFICATION_SUMMARY_CHARS)}` : output;
  const why = r.timedOut ? `\n[the acceptance command ran past its ${Math.round((o.timeoutMs ?? DEFAULT_ACCEPTANCE_TIMEOUT_MS) / 1000)} s timeout and was stopped]` : r.signal ? `\n[ended by ${r.signal}]` : '';
  return { passed: r.exitCode === 0 && !r.timedOut, exitCode: r.exitCode, timedOut: r.timedOut === true, summary: tail + why, durationMs: Date.now() - started };
}
