/**
 * Fork a session at a turn (issue 25 §2): a new session in a new worktree, holding the files of
 * that turn and the conversation up to it; the original session and its folder are not touched.
 *
 * Files: the new worktree's branch starts at the original's HEAD commit; its working tree gets the
 * original's whole working tree (uncommitted and untracked files included, ignored ones not),
 * captured as a git tree with a temporary index so the original's own index stays as it is. Then
 * the write/patch changes of the turns after the fork point are taken out (their pre-images, as
 * /rewind does). The copied changes stay uncommitted in the fork, as they were in the original.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AppError, type Session } from '../../src-preload/contract';
import type { AgentService } from '../agents/agent-service';
import { checkpointOf, checkpointTooOld } from '../agents/orchestrator/rewind';
import { resumePointFor } from '../agents/orchestrator/conversation-points';
import { applyUndo, gitWorkTree, planUndo } from '../agents/orchestrator/undo';
import { git, gitThen } from '../git/git';

/** The original's working tree as a tree object (untracked files included), without touching its index. */
async function workingTree(root: string): Promise<{ head: string; tree: string }> {
  const head = (await git(['rev-parse', '--verify', 'HEAD^{commit}'], { cwd: root })).trim();
  const dir = mkdtempSync(join(tmpdir(), 'fd-fork-index-'));
  try {
    const env = { GIT_INDEX_FILE: join(dir, 'index') };
    await git(['read-tree', head], { cwd: root, env });
    // The add and the tree it made, one process start (gitThen).
    const tree = (await gitThen(['add', '-A', '--', '.'], ['write-tree'], { cwd: root, env, timeoutMs: 120_000 })).trim();
    return { head, tree };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Events copied per read while replaying the original's transcript into the fork. */
const EVENT_BATCH = 2_000;

/**
 * The fork's transcript: the original's events up to the start of the first chat turn after the
 * fork point (`stopAt`; null: all), so the fork shows the same conversation it continues from.
 * A session switch (/new, /resume) is left out: replaying it would move the view away.
 */
async function copyTranscript(agents: AgentService, from: string, to: string, stopAt: string | null): Promise<void> {
  await agents.sink.flushed();
  for (let seq = 1; ; ) {
    const batch = agents.sink.readPage(from, seq, EVENT_BATCH);
    for (const e of batch.events) {
      if (stopAt !== null && e.turnId === stopAt && e.data.type === 'turn.started') return;
      if (e.data.type === 'session.switched') continue;
      agents.sink.emit(to, e.turnId, e.data);
    }
    if (!batch.more) return;
    seq = batch.nextSeq;
  }
}

export interface ForkDeps {
  agents: AgentService;
  /** Starts a session in a new worktree of `root`'s repository (SessionWorktreeService.startSession). */
  startInWorktree(input: { root: string; projectId: string | null; title: string; mode: Session['mode']; profile: string; sandbox?: Session['sandbox'] }): Promise<{ session: Session; path: string }>;
}

export async function forkSession(d: ForkDeps, sessionId: string, turn: number): Promise<{ session: Session; turn: number; messages: number; files: string[] }> {
  const s = d.agents.sessions.get(sessionId);
  if (!s) throw new AppError('not_found', `There is no session ${sessionId}.`);
  if (s.status === 'running' || s.status === 'awaiting_approval') throw new AppError('conflict', 'A turn is running in this session: wait for it to end (or cancel it) before forking.');
  if (!Number.isInteger(turn) || turn < 0) throw new AppError('invalid_input', `"${turn}" is not a turn number.`);
  const cp = checkpointOf(d.agents.messages, sessionId, s.state.undo, turn);
  if (turn > cp.turns) throw new AppError('invalid_input', `There is no turn ${turn}: this session has ${cp.turns} turn${cp.turns === 1 ? '' : 's'}.`);
  const tooOld = checkpointTooOld(s.state.undo, cp.index, turn);
  if (tooOld) throw new AppError('invalid_input', `Cannot fork at turn ${turn}: ${tooOld}.`);
  if (!(await gitWorkTree(s.root))) throw new AppError('not_a_git_repo', `${s.root} is not a git repository: a fork gets a worktree of its own, which needs git.`, { path: s.root });
  const src = await workingTree(s.root);
  const title = `${s.title} (fork at turn ${turn})`;
  const started = await d.startInWorktree({ root: s.root, projectId: s.projectId, title, mode: s.mode, profile: s.profile, ...(s.state.sandbox ? { sandbox: s.state.sandbox } : {}) });
  const root = started.path;
  // The fresh worktree holds nothing yet: its branch moves to the original's commit, its files become the original's.
  await git(['reset', '--quiet', '--hard', src.head], { cwd: root });
  await git(['read-tree', '-u', '--reset', src.tree], { cwd: root });
  await git(['read-tree', src.head], { cwd: root });
  const files: string[] = [];
  if (cp.combined) {
    const plan = await planUndo(root, cp.combined);
    const applied = await applyUndo(root, cp.combined, plan, 'pre', null);
    files.push(...applied.redo.replaced.map((r) => r.path));
  }
  const messages = cp.before === null ? d.agents.messages.live(sessionId).length : d.agents.messages.live(sessionId).filter((m) => m.ord < cp.before!).length;
  d.agents.messages.copyTo(sessionId, cp.before ?? Number.POSITIVE_INFINITY, started.session.id);
  await copyTranscript(d.agents, sessionId, started.session.id, cp.before === null ? null : (d.agents.messages.chatTurns(sessionId)[turn]?.turnId ?? null));
  d.agents.sink.emit(started.session.id, null, { type: 'notice', level: 'info', text: `Forked from "${s.title}" (${sessionId}) at turn ${turn}: the files and the conversation as they were after that turn.` });
  const kept = s.state.undo.filter((u) => !cp.later.includes(u));
  // Claude Code's conversation: the fork's first turn resumes it at this turn's last message,
  // forked there (or replays the transcript when that turn left no point); the original's stays as it is.
  const keptTurns = d.agents.messages.chatTurns(sessionId).slice(0, turn);
  const keptIds = new Set(keptTurns.map((t) => t.turnId));
  const points = (s.state.points ?? []).filter((p) => keptIds.has(p.turnId));
  d.agents.copyExecutor?.(sessionId, started.session.id);
  const next = d.agents.sessions.get(started.session.id)!;
  d.agents.sessions.update(started.session.id, {
    model: s.model,
    policyPreset: s.policyPreset,
    disabledTools: s.disabledTools,
    turnCount: turn,
    // The kept checkpoints' blobs live in the shared object store: /undo and /rewind work in the fork too.
    state: {
      ...next.state,
      undo: kept,
      ...(points.length > 0 ? { points } : {}),
      resumeAt: resumePointFor(points, keptTurns, turn),
      ...(s.state.role ? { role: s.state.role } : {}),
      ...(s.state.instructions ? { instructions: s.state.instructions } : {}),
    },
  });
  d.agents.republish(started.session.id);
  return { session: d.agents.getSession(started.session.id), turn, messages, files };
}
