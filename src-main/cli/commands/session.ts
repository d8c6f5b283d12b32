import { SessionId } from '../../../src-preload/contract';
import { UsageError, type CliCommand } from '../command';

/**
 * `session fork ID TURN`: a new session in a new worktree with that turn's files and the
 * conversation up to it (the original is not touched); continue it with `chat --session NEW`.
 * Rewinding a session in place is the `/rewind` command: `chat --session ID "/rewind 2"`.
 */
export const sessionCommand: CliCommand = {
  name: 'session',
  summary: 'Fork a session at a turn into a new session in a new worktree (rewind in place with chat --session ID "/rewind N").',
  usage: 'session fork SESSION-ID TURN [--json]',
  async run(ctx) {
    const [sub, id, turnArg, ...rest] = ctx.args;
    if (sub !== 'fork') throw new UsageError(sub ? `unknown session subcommand "${sub}"` : 'session needs a subcommand: fork');
    if (!id || !SessionId.safeParse(id).success) throw new UsageError(`"${id ?? ''}" is not a session id`);
    if (!turnArg || !/^\d{1,6}$/.test(turnArg)) throw new UsageError(`"${turnArg ?? ''}" is not a turn number (0 = before the first turn)`);
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const app = await ctx.openApp();
    const r = await app.sessionWorktrees.fork(id, Number(turnArg));
    if (ctx.json) {
      ctx.out(JSON.stringify({ sessionId: r.session.id, root: r.session.root, branch: r.session.worktree?.branch ?? null, turn: r.turn, messages: r.messages, files: r.files }));
      return 0;
    }
    ctx.out(`Forked ${id} at turn ${r.turn} into ${r.session.id} (${r.messages} message${r.messages === 1 ? '' : 's'} of conversation).`);
    ctx.out(`Worktree: ${r.session.root}${r.session.worktree?.branch ? ` on branch ${r.session.worktree.branch}` : ''}`);
    if (r.files.length > 0) ctx.out(`Put back to turn ${r.turn} there: ${r.files.join(', ')}`);
    ctx.out(`Continue it: flightdeck chat --session ${r.session.id} "…"`);
    return 0;
  },
};
