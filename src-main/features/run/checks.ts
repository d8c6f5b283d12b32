/**
 * The configured checks (`checks:` in config.yml), run for real in the feature's worktree during
 * verify. Each runs in a terminal the user can open and watch (and read after it ended), inside
 * the same sandbox as the agent's own commands: the worktree's files, package scripts included,
 * were written by the agent, so running them unconfined would hand it the machine.
 */
import type { CheckOutcome } from '../../../src-preload/contract';
import { timeoutText } from '../../../src-preload/contract/units';
import { commandEnv, type CommandRunner } from '../../agents/tools/command-runner';
import { TEST_ENV } from '../../test-runners/detect';
import { DEFAULT_NETWORK } from '../../sandbox/policy';
import { SandboxedRunner } from '../../sandbox/sandboxed-runner';
import { PtyCommandRunner } from '../../terminals/agent-command-runner';
import { spanTime } from '../../platform/spans';
import type { TerminalService } from '../../terminals/terminal-service';
import type { CheckRequest } from './feature-runner';

/** What is kept of a check's output for the event and the fix prompt: the end, where failures are. */
const OUTPUT_KEEP_CHARS = 16_000;

export function makeCheckRunner(terminals: TerminalService, dataDir: string, env: NodeJS.ProcessEnv = process.env): (req: CheckRequest) => Promise<CheckOutcome> {
  const inner: CommandRunner = new PtyCommandRunner(terminals);
  // Flightdeck's data folder (stored keys, the database) is hidden from checks as from agents.
  const runner = new SandboxedRunner(() => inner, {}, [
    { path: dataDir, kind: 'dir' },
    { path: `${dataDir}/secrets.json`, kind: 'file' },
  ]);
  return async (req) => {
    const started = Date.now();
    const t0 = performance.now();
    let t1 = t0;
    let terminalId: string | null = null;
    const r = await runner.run({
      cwd: req.cwd,
      command: req.command,
      // CI=true: vitest and jest never watch, and no runner prompts.
      env: { ...commandEnv(env), ...TEST_ENV },
      timeoutMs: req.timeoutMs,
      signal: req.signal,
      owner: { sessionId: req.sessionId, ...(req.projectId ? { projectId: req.projectId } : {}) },
      onTerminal: (id) => {
        terminalId = id;
        t1 = performance.now();
      },
      sandbox: { mode: 'workspace-write', root: req.cwd, network: DEFAULT_NETWORK },
      title: `check: ${req.command} (timeout ${timeoutText(req.timeoutMs)})`,
    });
    // The benches' breakdown: the sandbox's preparation and the terminal's start, then the command until its terminal exited.
    spanTime('check: sandbox and start', t1 - t0);
    spanTime('check: command and exit', performance.now() - t1);
    const output = r.output.length > OUTPUT_KEEP_CHARS ? `…${r.output.slice(-OUTPUT_KEEP_CHARS)}` : r.output;
    const why = r.timedOut ? `\n[stopped: ran past its ${timeoutText(req.timeoutMs)} timeout (check_timeout_minutes in .flightdeck/config.yml)]` : '';
    return { command: req.command, exitCode: r.exitCode, passed: r.exitCode === 0 && !r.timedOut, output: output + why, terminalId, durationMs: Date.now() - started };
  };
}
