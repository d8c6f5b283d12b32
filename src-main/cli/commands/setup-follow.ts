import { realpathSync } from 'node:fs';
import type { PayloadOf, WorktreeSetup } from '../../../src-preload/contract';
import type { AppServices } from '../../app/services';
import { setupProblem } from '../../worktrees/setup-service';
import type { CliContext } from '../command';

/**
 * Control characters shown as `?`: the state file sits in a folder an agent can write, and a
 * command it names must not bring escape sequences to the user's terminal.
 */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
const printable = (text: string) => text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');

/** How a setup's state reads in one line of the CLI ("running `npm ci` (1/2)"). */
export function setupLine(s: WorktreeSetup): string {
  return printable(setupWords(s));
}

function setupWords(s: WorktreeSetup): string {
  const of = `(${Math.min(s.step + 1, s.commands.length)}/${s.commands.length})`;
  switch (s.state) {
    case 'pending':
      return `setup pending ${of}`;
    case 'running':
      return `setup running \`${s.commands[s.step] ?? ''}\` ${of}`;
    case 'done':
      return 'setup done';
    default:
      return setupProblem(s)!.replace(/^the worktree's /, '');
  }
}

/**
 * Waits for the setup the worktree's creation started, saying on stderr which command runs (the
 * process would end it by exiting: a CLI command waits for it). Ctrl-C or a closed output cancels
 * the setup. A setup that did not finish well is a warning; its state is returned.
 */
export async function followSetup(ctx: CliContext, app: AppServices, worktree: string): Promise<WorktreeSetup | null> {
  const first = app.worktreeSetups.status(worktree);
  if (!first || (first.state !== 'pending' && first.state !== 'running')) return first;
  let real = worktree;
  try {
    real = realpathSync(worktree);
  } catch {
    // Removed meanwhile: its events name the path as given.
  }
  const say = (s: WorktreeSetup) => s.state === 'running' && ctx.err(setupLine(s));
  say(first);
  const off = app.hub.subscribe((e) => {
    if (e.topic !== 'worktrees.setup.changed') return;
    const p = e.payload as PayloadOf<'worktrees.setup.changed'>;
    if (p.path === real) say(p.setup);
  });
  const cancel = () => app.worktreeSetups.cancel(worktree);
  process.on('SIGINT', cancel);
  ctx.signal.addEventListener('abort', cancel, { once: true });
  try {
    const end = await app.worktreeSetups.wait(worktree);
    if (end && end.state !== 'done') ctx.err(`warning: ${printable(setupProblem(end) ?? '')}; run it again with: flightdeck worktree setup ${real.split('/').pop()}`);
    return end;
  } finally {
    process.off('SIGINT', cancel);
    ctx.signal.removeEventListener('abort', cancel);
    off();
  }
}
