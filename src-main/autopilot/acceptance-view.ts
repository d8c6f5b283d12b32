/**
 * The acceptance command's output, live, where the user can watch it: each chunk is appended to
 * a log in Flightdeck's data folder (never in the worktree, where the agent could plant a link)
 * and a terminal follows that log (`tail -F`), titled with the command and its timeout. The
 * command itself still runs through the run's own runner (its sandbox, its container, the
 * process records that end it after a crash); the terminal only shows it. When the command ends
 * the terminal gets an end line and stops, keeping the whole output in its scrollback.
 */
import { mkdirSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { timeoutText } from '../../src-preload/contract/units';
import type { TerminalOwner } from '../../src-preload/contract';
import type { CommandRunner } from '../agents/tools/command-runner';
import type { TerminalService } from '../terminals/terminal-service';
import type { AcceptanceTarget } from './acceptance';

/** How long the viewer may take to show the end line before it is stopped anyway. */
const VIEWER_DRAIN_MS = 5_000;
const END_MARK = '[acceptance command ended';

export interface AcceptanceViewOptions {
  terminals: Pick<TerminalService, 'spawn' | 'kill' | 'onOutput'>;
  /** The log file (in the data folder). */
  logFile: string;
  owner: TerminalOwner;
}

/** `target` with its runner wrapped so the output streams into a terminal the user can open. */
export function watchedTarget(target: AcceptanceTarget, o: AcceptanceViewOptions): AcceptanceTarget {
  const inner = target.runner;
  const runner: CommandRunner = {
    async run(opts) {
      mkdirSync(dirname(o.logFile), { recursive: true });
      writeFileSync(o.logFile, `$ ${opts.command}\n`, { mode: 0o600 });
      let viewer: { id: string } | null = null;
      try {
        viewer = await o.terminals.spawn({
          file: 'tail',
          args: ['-n', '+1', '-F', o.logFile],
          cwd: opts.cwd,
          kind: 'command',
          title: `acceptance: ${opts.command} (timeout ${timeoutText(opts.timeoutMs)})`,
          command: opts.command,
          owner: { ...o.owner, phase: 'acceptance' },
        });
      } catch {
        // No terminal (the app is closing, tail is missing): the command runs all the same and the log keeps its output.
        viewer = null;
      }
      const append = (chunk: string) => {
        try {
          appendFileSync(o.logFile, chunk);
        } catch {
          // The log vanished (the data folder was cleaned): only the live view loses the chunk.
        }
      };
      try {
        const r = await inner.run({ ...opts, onOutput: (c) => (append(c), opts.onOutput?.(c)) });
        append(`\n${END_MARK}: ${r.timedOut ? `stopped after its ${timeoutText(opts.timeoutMs)} timeout` : r.exitCode !== null ? `exit ${r.exitCode}` : `ended by ${r.signal ?? 'a signal'}`}]\n`);
        return r;
      } catch (e) {
        append(`\n${END_MARK}: ${e instanceof Error ? e.message : String(e)}]\n`);
        throw e;
      } finally {
        if (viewer) void stopWhenShown(o.terminals, viewer.id);
      }
    },
  };
  return { ...target, runner };
}

/** Ends the viewer once it has shown the end line (or after a while). */
function stopWhenShown(terminals: AcceptanceViewOptions['terminals'], id: string): Promise<void> {
  return new Promise((resolve) => {
    let seen = '';
    const stop = () => {
      off();
      clearTimeout(timer);
      try {
        terminals.kill(id);
      } catch {
        // Already gone (closed by the user): nothing to stop.
      }
      resolve();
    };
    const off = terminals.onOutput(id, (data) => {
      seen = (seen + data).slice(-4_096);
      if (seen.includes(END_MARK)) stop();
    });
    const timer = setTimeout(stop, VIEWER_DRAIN_MS);
  });
}
