/**
 * `/rewind [turn] [keep|pre|merge] [path…]` and `/rewind undo`: put the files and the conversation
 * back to how they stood after a chat turn (issue 25 §2).
 *
 * The checkpoint of turn N is the state just before turn N+1 started: its conversation is every
 * message before turn N+1's, and its files are the write/patch changes of the turns after it
 * taken out, as /undo does (one combined snapshot: each file's pre-image from the first later turn
 * that touched it, its post-image from the last). Files changed since those turns left them are
 * conflicts the user decides (keep / pre / merge), exactly like /undo. What the rewind replaces
 * is saved as git blobs and the hidden messages are kept, so `/rewind undo` takes it back as long
 * as no turn ran since. Changes made by shell commands are not tracked (as /undo), except in a
 * Claude Code session, whose turns are checkpointed from the whole working tree (tree-snapshot.ts).
 *
 * Claude Code keeps its own conversation: the rewind also sets where its next turn resumes (at
 * the rewound-to turn's last message, forked there; or the transcript replayed as context, see
 * conversation-points.ts), and `/rewind undo` puts that back too.
 */
import { UNDO_CHOICES, MAX_UNDO_SNAPSHOTS, applyRedo, applyUndo, gitWorkTree, planUndo, type UndoChoice } from './undo';
import type { TurnContext } from './turn-context';
import { resumePointFor } from './conversation-points';
import type { MessageRepo } from '../store/message-repo';
import type { RewindRecord, UndoSnapshot } from '../store/session-repo';

export const REWIND_USAGE = '/rewind [turn] [keep | pre | merge] [path…] | /rewind undo';
/** Rewinds `/rewind undo` can step back through. */
const MAX_REWINDS = 10;

export interface RewindCommandResult {
  ok: boolean;
  text: string;
  actions?: Array<{ label: string; input: string }>;
}

const clip = (t: string) => (t.length > 60 ? t.slice(0, 59) + '…' : t).replace(/\s+/g, ' ');

/** The combined snapshot of `later` (oldest first): first pre-image, last post-image per file. */
export function combineSnapshots(later: readonly UndoSnapshot[], label: string): UndoSnapshot | null {
  if (later.length === 0) return null;
  const files = new Map<string, UndoSnapshot['files'][number]>();
  for (const snap of later) {
    for (const f of snap.files) {
      // The pre-image of the first later turn that touched the file; the result of the last one
      // (unknown when that turn's result was never recorded: then it is a conflict, as for /undo).
      const blob = files.has(f.path) ? files.get(f.path)!.blob : f.blob;
      files.set(f.path, f.post !== undefined ? { path: f.path, blob, post: f.post } : { path: f.path, blob });
    }
  }
  return { turnId: label, at: Date.now(), files: [...files.values()], dirs: [...new Set(later.flatMap((s) => s.dirs ?? []))] };
}

/**
 * Turn `n`'s checkpoint in a session: the ord where the conversation after it starts (null when
 * `n` is the latest turn), and its files as the later turns' combined snapshot (null when they
 * changed none with write/patch).
 */
export function checkpointOf(
  messages: Pick<MessageRepo, 'chatTurns'>,
  sessionId: string,
  undo: readonly UndoSnapshot[],
  n: number,
): { turns: number; before: number | null; later: UndoSnapshot[]; combined: UndoSnapshot | null; index: Map<string, number> } {
  const turns = messages.chatTurns(sessionId);
  const index = new Map(turns.map((t, i) => [t.turnId, i + 1]));
  const later = undo.filter((u) => (index.get(u.turnId) ?? 0) > n).sort((a, b) => index.get(a.turnId)! - index.get(b.turnId)!);
  return { turns: turns.length, before: n < turns.length ? turns[n]!.ord : null, later, combined: combineSnapshots(later, `rewind-to-${n}`), index };
}

/** Why turn `n`'s files cannot be rebuilt (older checkpoints were dropped), or null. */
export function checkpointTooOld(undo: readonly UndoSnapshot[], index: ReadonlyMap<string, number>, n: number): string | null {
  const oldest = undo[0];
  const at = oldest ? (index.get(oldest.turnId) ?? 0) : 0;
  if (undo.length < MAX_UNDO_SNAPSHOTS || at <= n + 1) return null;
  return `file checkpoints are kept for the last ${MAX_UNDO_SNAPSHOTS} turns that changed files, and the oldest kept is turn ${at}: turn ${at - 1} is the earliest whose files can be rebuilt`;
}

export async function rewindCommand(ctx: TurnContext, args: string[]): Promise<RewindCommandResult> {
  try {
    if (args[0] === 'undo') return await unrewind(ctx, args.slice(1));
    return await rewind(ctx, args);
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, text: `/rewind stopped: ${why}\nFiles handled before this one keep their new content; fix the cause and run the command again.` };
  }
}

function listTurns(ctx: TurnContext): RewindCommandResult {
  const turns = ctx.deps.messages.chatTurns(ctx.sessionId);
  if (turns.length === 0) return { ok: true, text: 'Nothing to rewind: this session has no turns yet.' };
  const lines = ['Turns (rewind with /rewind <turn>; 0 = before the first turn):', ...turns.map((t, i) => `  ${String(i + 1).padStart(3)}  ${clip(t.text)}`)];
  return { ok: true, text: lines.join('\n') };
}

async function rewind(ctx: TurnContext, args: string[]): Promise<RewindCommandResult> {
  if (args.length === 0) return listTurns(ctx);
  if (!/^\d{1,6}$/.test(args[0]!)) return { ok: false, text: `Usage: ${REWIND_USAGE} — "${args[0]}" is not a turn number.` };
  const n = Number(args[0]);
  const choice = args[1] as UndoChoice | undefined;
  if (choice !== undefined && !UNDO_CHOICES.includes(choice)) return { ok: false, text: `Usage: ${REWIND_USAGE} — "${args[1]}" is not one of keep, pre, merge.` };
  const paths = args.length > 2 ? new Set(args.slice(2)) : null;
  const s = ctx.session();
  // A feature's or a mailbox task's session is the app's record of that work: fork it instead.
  if (s.state.role) return { ok: false, text: `This session belongs to a ${s.state.role === 'planner' ? 'plan' : 'feature or task run'}: it cannot be rewound in place. Fork it from the turn instead (its menu, or flightdeck session fork ${ctx.sessionId} ${n}).` };
  const turns = ctx.deps.messages.chatTurns(ctx.sessionId);
  if (n > turns.length) return { ok: false, text: `There is no turn ${n}: this session has ${turns.length} turn${turns.length === 1 ? '' : 's'}.` };
  if (n === turns.length) return { ok: true, text: `Already at turn ${n}: it is the latest turn, nothing to rewind.` };
  const { later, combined, index } = checkpointOf(ctx.deps.messages, ctx.sessionId, s.state.undo, n);
  const kept = s.state.undo.filter((u) => !later.includes(u));
  const tooOld = checkpointTooOld(s.state.undo, index, n);
  if (tooOld) return { ok: false, text: `Cannot rewind to turn ${n}: ${tooOld}.` };
  let filesLines: string[] = [];
  let files: RewindRecord['files'] = null;
  if (combined) {
    if (!(await gitWorkTree(s.root))) return { ok: false, text: `/rewind is unavailable: it needs git to put files back, and ${s.root} is not a git repository (or git is not installed).` };
    const plan = await planUndo(s.root, combined);
    const unknown = paths ? [...paths].filter((p) => !plan.some((f) => f.path === p)) : [];
    if (unknown.length > 0) return { ok: false, text: `The turns after turn ${n} did not change ${unknown.join(', ')}. Their files: ${plan.map((f) => f.path).join(', ')}.` };
    const conflicts = plan.filter((f) => f.state === 'conflict');
    if (conflicts.length > 0 && choice === undefined) {
      return {
        ok: false,
        text: [
          `Nothing rewound yet: ${conflicts.length === 1 ? 'this file has' : 'these files have'} changed since the agent last wrote ${conflicts.length === 1 ? 'it' : 'them'} (your edits, or another tool's):`,
          ...conflicts.map((f) => `  ${f.path}${f.current === null ? ' (deleted since)' : ''}`),
          'They are untouched. Choose:',
          `  /rewind ${n} keep    rewind the rest, keep your version of these files`,
          `  /rewind ${n} pre     rewind these files too (your version is saved first; /rewind undo brings it back)`,
          `  /rewind ${n} merge   take the agent's later changes out of these files but keep your edits (3-way merge)`,
        ].join('\n'),
        actions: [
          { label: 'Keep my version', input: `/rewind ${n} keep` },
          { label: `Take the version of turn ${n}`, input: `/rewind ${n} pre` },
          { label: 'Merge: take the later turns out, keep my edits', input: `/rewind ${n} merge` },
        ],
      };
    }
    const applied = await applyUndo(s.root, combined, plan, choice ?? 'keep', paths);
    filesLines = applied.lines;
    files = applied.redo;
  }
  const before = turns[n]!.ord;
  const msgs = ctx.deps.messages.rewind(ctx.sessionId, before);
  const state = ctx.session().state;
  const record: RewindRecord = {
    toTurn: n,
    at: Date.now(),
    maxOrd: ctx.deps.messages.maxOrd(ctx.sessionId),
    hidden: msgs.hidden,
    revived: msgs.revived,
    files,
    undo: state.undo,
    redo: state.redo ?? [],
    resumeAt: state.resumeAt ?? null,
  };
  ctx.update({
    turnCount: n,
    state: {
      ...state,
      // Claude Code's next turn continues its conversation from this turn, not from the latest.
      resumeAt: resumePointFor(state.points, turns, n),
      undo: kept,
      redo: (state.redo ?? []).filter((r) => (index.get(r.turnId) ?? 0) <= n),
      rewinds: [...(state.rewinds ?? []), record].slice(-MAX_REWINDS),
    },
  });
  ctx.emit({ type: 'rewound', toTurn: n });
  const dropped = turns.length - n;
  const claudeCode = ctx.deps.executorOf?.(ctx.sessionId) === 'claude-code';
  const body = filesLines.map((l) => `  ${l.replace('(created by that turn)', '(created after that turn)')}`).join('\n');
  const text = [
    `Rewound to turn ${n}${n > 0 ? ` (${clip(turns[n - 1]!.text)})` : ' (before the first turn)'}: the conversation of ${dropped === 1 ? `turn ${n + 1} is` : `turns ${n + 1}–${turns.length} are`} set aside${combined ? ', and their file changes:' : '; no file changes to put back.'}`,
    ...(combined ? [body || '  (the files were already as then)'] : []),
    `${claudeCode ? 'Files git ignores are not rewound.' : 'Changes made by shell commands are not rewound.'} /rewind undo takes this back until the next turn.`,
  ].join('\n');
  return { ok: true, text, actions: [{ label: 'Undo rewind', input: '/rewind undo' }] };
}

async function unrewind(ctx: TurnContext, args: string[]): Promise<RewindCommandResult> {
  if (args.length > 0) return { ok: false, text: '/rewind undo takes no arguments.' };
  const s = ctx.session();
  const rec = s.state.rewinds?.at(-1);
  if (!rec) return { ok: false, text: 'Nothing to take back: there is no rewind in this session.' };
  if (ctx.deps.messages.maxOrd(ctx.sessionId) > rec.maxOrd) {
    return { ok: false, text: `A turn ran since the rewind to turn ${rec.toTurn}, so it can no longer be taken back here. Fork from a turn instead to keep both lines of work.` };
  }
  let lines: string[] = [];
  let skipped = 0;
  if (rec.files) {
    if (!(await gitWorkTree(s.root))) return { ok: false, text: `/rewind undo needs git, and ${s.root} is not a git repository (or git is not installed).` };
    const r = await applyRedo(s.root, rec.files);
    lines = r.lines.map((l) => l.replaceAll('/undo', 'the rewind'));
    skipped = r.skipped;
  }
  ctx.deps.messages.unrewind(ctx.sessionId, rec);
  const state = ctx.session().state;
  const turns = ctx.deps.messages.chatTurns(ctx.sessionId).length;
  const { resumeAt: _rewound, ...rest } = state;
  ctx.update({ turnCount: turns, state: { ...rest, ...(rec.resumeAt ? { resumeAt: rec.resumeAt } : {}), undo: rec.undo, redo: rec.redo, rewinds: (state.rewinds ?? []).slice(0, -1) } });
  ctx.emit({ type: 'rewound', toTurn: null });
  const text = [
    `Took back the rewind to turn ${rec.toTurn}: the conversation is back to turn ${turns}.`,
    ...lines.map((l) => `  ${l}`),
    ...(skipped ? ['Files changed after the rewind were left alone.'] : []),
  ].join('\n');
  return { ok: skipped === 0, text };
}
