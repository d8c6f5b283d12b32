import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { AgentMode, SandboxMode, SessionId, type AgentEvent } from '../../../src-preload/contract';
import type { AutoAnswer } from '../../approvals/gate';
import { UsageError, type CliCommand } from '../command';
import { warnUntrusted } from './trust-text';
import { followSetup } from './setup-follow';
import { promptApproval, TranscriptPrinter } from './chat-support';
import { parseGpus } from '../../containers/core/container-spec';
import { AGENT_IMAGE } from '../../containers/images';

const APPROVE = ['ask', 'allow', 'deny'] as const;
type ApproveMode = (typeof APPROVE)[number];

/**
 * Exit codes: 0 the turn completed, 1 it failed, hit the step limit, or ended with the tests
 * still failing (the last auto-verify run of the turn did not pass), 130 cancelled (Ctrl-C).
 */
const EXIT_CANCELLED = 130;

function answerer(mode: ApproveMode, tty: boolean): AutoAnswer {
  if (mode === 'allow') return async () => ({ decision: 'approve_once' });
  if (mode === 'deny') return async () => ({ decision: 'deny', reason: 'Denied by --approve deny (headless run).' });
  if (!tty) return async () => ({ decision: 'deny', reason: 'No terminal to ask on (--approve ask without a TTY); rerun with --approve allow, or answer in the app.' });
  return (a) => promptApproval(a, (s) => process.stderr.write(s));
}

export const chatCommand: CliCommand = {
  name: 'chat',
  summary: 'Run one agent input (a message, !command or /command) in a session and print the transcript.',
  usage: 'chat [--cwd DIR] [--worktree] [--session ID] [--mode plan|default|auto-edit|yolo] [--approve ask|allow|deny] [--profile NAME] [--sandbox read-only|workspace-write|danger-full-access] [--placement host|container [--engine NAME] [--gpus none|all|N|IDS] [--image REF]] [--json] "INPUT"',
  flags: { cwd: true, worktree: false, session: true, mode: true, approve: true, profile: true, sandbox: true, placement: true, engine: true, gpus: true, image: true },
  async run(ctx) {
    const input = ctx.args.join(' ').trim();
    if (input === '') throw new UsageError('chat needs an INPUT (a message, "!command" or "/command")');
    const approve = (ctx.flags.approve ?? 'ask') as ApproveMode;
    if (!APPROVE.includes(approve)) throw new UsageError(`--approve takes ${APPROVE.join('|')}`);
    const mode = ctx.flags.mode === undefined ? undefined : AgentMode.safeParse(ctx.flags.mode);
    if (mode && !mode.success) throw new UsageError(`--mode takes ${AgentMode.options.join('|')}`);
    const sandbox = ctx.flags.sandbox === undefined ? undefined : SandboxMode.safeParse(ctx.flags.sandbox);
    if (sandbox && !sandbox.success) throw new UsageError(`--sandbox takes ${SandboxMode.options.join('|')}`);
    const sandboxPatch = sandbox?.success ? { sandbox: sandbox.data } : {};
    const sessionFlag = typeof ctx.flags.session === 'string' ? ctx.flags.session : undefined;
    if (sessionFlag !== undefined && !SessionId.safeParse(sessionFlag).success) throw new UsageError(`"${sessionFlag}" is not a session id`);
    const profile = typeof ctx.flags.profile === 'string' ? ctx.flags.profile : undefined;
    const cwd = resolve(typeof ctx.flags.cwd === 'string' ? ctx.flags.cwd : process.cwd());
    if (!sessionFlag && !existsSync(cwd)) throw new UsageError(`--cwd ${cwd} does not exist`);
    // --worktree: a new worktree of the repository at --cwd; without it the session runs exactly in --cwd.
    const inWorktree = ctx.flags.worktree === true;
    // --placement container: the session's commands run in a Docker container (docs/containers.md).
    const placement = ctx.flags.placement;
    if (placement !== undefined && placement !== 'host' && placement !== 'container') throw new UsageError('--placement takes host|container');
    const containerFlags = (['engine', 'gpus', 'image'] as const).filter((f) => ctx.flags[f] !== undefined);
    if (containerFlags.length > 0 && placement !== 'container') throw new UsageError(`--${containerFlags[0]} goes with --placement container`);
    const gpus = typeof ctx.flags.gpus === 'string' ? parseGpus(ctx.flags.gpus) : undefined;
    if (inWorktree && sessionFlag) throw new UsageError('--worktree starts a new session; it cannot be combined with --session');

    const app = await ctx.openApp();
    const agents = app.agents;
    let sessionId: string;
    if (sessionFlag) {
      sessionId = agents.getSession(sessionFlag).id;
      if (mode?.success || profile || sandbox?.success) agents.updateSession({ sessionId, ...(mode?.success ? { mode: mode.data } : {}), ...(profile ? { profile } : {}), ...sandboxPatch });
    } else if (inWorktree) {
      // Said before the worktree is made: an untrusted repository's worktree.setup does not run.
      const top = await app.projects.resolveRepository(cwd).catch(() => null); // Not a repository: startSession says so.
      if (top) await warnUntrusted(ctx, app, top, ['worktree.setup', 'worktree.copy']);
      const started = await app.sessionWorktrees.startSession({ root: cwd, placement: 'worktree', ...(mode?.success ? { mode: mode.data } : {}), ...(profile ? { profile } : {}), ...sandboxPatch });
      sessionId = started.session.id;
      const w = started.worktree!;
      if (ctx.json) ctx.out(JSON.stringify({ worktree: w }));
      else {
        ctx.out(`worktree: ${w.path}`);
        ctx.out(`branch: ${w.branch} (from ${w.base})`);
      }
      // The turn runs in what the setup installs, and the command's exit would end the setup.
      await followSetup(ctx, app, w.path);
    } else {
      sessionId = agents.createSession({ root: cwd, ...(mode?.success ? { mode: mode.data } : {}), ...(profile ? { profile } : {}), ...sandboxPatch }).id;
    }
    if (placement === 'container') {
      await app.containers.setPlacement(sessionId, {
        image: typeof ctx.flags.image === 'string' ? ctx.flags.image : AGENT_IMAGE,
        ...(typeof ctx.flags.engine === 'string' ? { engine: ctx.flags.engine } : {}),
        ...(gpus ? { gpus } : {}),
      });
    } else if (placement === 'host') await app.containers.setPlacement(sessionId, null);
    agents.gate.setAutoAnswer(sessionId, answerer(approve, process.stdin.isTTY === true && process.stderr.isTTY === true));

    const printer = new TranscriptPrinter(ctx.out);
    // The last auto-verify run of this input: a turn that ends with failing tests did not succeed.
    const verify: { last: Extract<AgentEvent['data'], { type: 'verify.result' }> | null } = { last: null };
    const off = app.hub.subscribe((e) => {
      if (e.topic !== 'agents.event' || e.key !== sessionId) return;
      const data = (e.payload as AgentEvent).data;
      if (data.type === 'verify.result') verify.last = data;
      if (ctx.json) ctx.out(JSON.stringify(e.payload));
      else printer.print(e.payload as AgentEvent);
    });
    const onInt = () => agents.cancel(sessionId);
    process.on('SIGINT', onInt);
    // No reader for the transcript any more (`chat … | head`, a closed terminal): stop the turn as Ctrl-C would.
    ctx.signal.addEventListener('abort', onInt, { once: true });
    try {
      const r = await agents.run(sessionId, input);
      printer.end();
      if (ctx.json) ctx.out(JSON.stringify({ result: r }));
      else {
        ctx.out(`session: ${r.sessionId}${r.sessionId !== r.turnSessionId ? ` (switched from ${r.turnSessionId})` : ''}`);
        ctx.out(`resume with: flightdeck chat --session ${r.sessionId} "…"`);
      }
      const failing = verify.last;
      if (r.outcome === 'completed' && failing && !failing.passed) {
        const how = failing.exitCode === null ? 'was stopped' : `exited ${failing.exitCode}`;
        ctx.err(`flightdeck: the tests still fail: ${failing.command} ${how} on auto-verify attempt ${failing.attempt}, the last one of this turn.`);
        return 1;
      }
      return r.outcome === 'completed' ? 0 : r.outcome === 'cancelled' ? EXIT_CANCELLED : 1;
    } finally {
      process.off('SIGINT', onInt);
      ctx.signal.removeEventListener('abort', onInt);
      off();
      agents.gate.setAutoAnswer(sessionId, null);
      // The session's container ends with this command (the placement stays: the next input starts a new one).
      if (placement === 'container' || app.containers.forSession(sessionId)) await app.containers.shutdown();
    }
  },
};
