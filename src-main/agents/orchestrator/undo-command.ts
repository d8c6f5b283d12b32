/**
 * The `/undo [keep|pre|merge] [path…]` and `/redo` commands (see undo.ts for how files are
 * compared and saved). The conflict choice is a sub-command, so the same words work in the
 * app's input box and in `flightdeck chat --session … "/undo merge"`.
 *
 * `/undo` alone reverts the last turn's files when none changed since; when some did, nothing
 * is changed yet and the answer lists them with the three choices. `/undo keep` then reverts
 * the rest and leaves those as they are, `/undo pre` takes the pre-turn version for them too
 * (their current content saved first), `/undo merge` writes the merged view. Paths after the
 * choice limit it to those files (the other changed files are kept).
 */
import { MAX_REDO_RECORDS, UNDO_CHOICES, applyRedo, applyUndo, gitWorkTree, planUndo, type UndoChoice } from './undo';
import type { TurnContext } from './turn-context';

export interface UndoCommandResult {
  ok: boolean;
  text: string;
  /** The conflict choices as buttons in the app (the text names the same commands for the CLI). */
  actions?: Array<{ label: string; input: string }>;
}

const CHOICE_ACTIONS = [
  { label: 'Keep my version', input: '/undo keep' },
  { label: 'Take the version from before the turn', input: '/undo pre' },
  { label: 'Merge: take the turn out, keep my edits', input: '/undo merge' },
];

export const UNDO_USAGE = '/undo [keep | pre | merge] [path…]';

const CHOICE_HELP = [
  '  /undo keep    revert the rest, keep your version of these files',
  '  /undo pre     revert these files too: take the version from before the turn (yours is saved first; /redo brings it back)',
  "  /undo merge   take the turn's change out of these files but keep your edits (3-way merge; overlaps get conflict markers)",
  'Add paths after the choice to apply it to some files only, e.g. /undo pre src/app.js.',
];

/**
 * A file that cannot be read or written (a symlink now leading outside the root, a FIFO, no
 * permission) stops the command with the reason. Files already handled stay handled: running it
 * again finds them "already as before", so a retry after fixing the cause is safe.
 */
async function guarded(name: string, body: () => Promise<UndoCommandResult>): Promise<UndoCommandResult> {
  try {
    return await body();
  } catch (e) {
    const why = e instanceof Error ? e.message : String(e);
    return { ok: false, text: `/${name} stopped: ${why}\nFiles handled before this one keep their new content; fix the cause and run /${name} again.` };
  }
}

export function undoCommand(ctx: TurnContext, args: string[]): Promise<UndoCommandResult> {
  return guarded('undo', () => undo(ctx, args));
}

export function redoCommand(ctx: TurnContext, args: string[]): Promise<UndoCommandResult> {
  return guarded('redo', () => redo(ctx, args));
}

async function undo(ctx: TurnContext, args: string[]): Promise<UndoCommandResult> {
  const s = ctx.session();
  const choice = args[0] as UndoChoice | undefined;
  if (choice !== undefined && !UNDO_CHOICES.includes(choice)) return { ok: false, text: `Usage: ${UNDO_USAGE} — "${args[0]}" is not one of keep, pre, merge.` };
  if (!(await gitWorkTree(s.root))) return { ok: false, text: `/undo is unavailable: it needs git, and ${s.root} is not a git repository (or git is not installed).` };
  const snap = s.state.undo[s.state.undo.length - 1];
  if (!snap) return { ok: false, text: 'Nothing to undo: no file changes made with write/patch are recorded for this session.' };
  const plan = await planUndo(s.root, snap);
  const paths = args.length > 1 ? new Set(args.slice(1)) : null;
  const unknown = paths ? [...paths].filter((p) => !plan.some((f) => f.path === p)) : [];
  if (unknown.length > 0) return { ok: false, text: `Turn ${snap.turnId} did not change ${unknown.join(', ')}. Its files: ${plan.map((f) => f.path).join(', ')}.` };
  const conflicts = plan.filter((f) => f.state === 'conflict');
  if (conflicts.length > 0 && choice === undefined) {
    const text = [
      `Nothing undone yet: ${conflicts.length === 1 ? 'this file has' : 'these files have'} changed since turn ${snap.turnId} left ${conflicts.length === 1 ? 'it' : 'them'} (your edits, or another tool's):`,
      ...conflicts.map((f) => `  ${f.path}${f.current === null ? ' (deleted since)' : ''}${f.post === undefined ? " (what the turn left was not recorded)" : ''}`),
      'They are untouched. Choose:',
      ...CHOICE_HELP,
    ].join('\n');
    ctx.addMessage('user', 'command', [{ type: 'text', text: `The user ran /undo; it stopped without changes because files changed after the turn:\n${text}` }]);
    return { ok: false, text, actions: CHOICE_ACTIONS };
  }
  const applied = await applyUndo(s.root, snap, plan, choice ?? 'keep', paths);
  const state = ctx.session().state;
  ctx.update({
    state: {
      ...state,
      undo: state.undo.filter((u) => u.turnId !== snap.turnId),
      redo: [...(state.redo ?? []), applied.redo].slice(-MAX_REDO_RECORDS),
    },
  });
  const body = applied.lines.map((l) => `  ${l}`).join('\n') || '  (the files were already as before)';
  const text = `Undid the file changes of turn ${snap.turnId}:\n${body}\nChanges made by shell commands are not undone. /redo takes this back.`;
  ctx.addMessage('user', 'command', [{ type: 'text', text: `The user ran /undo${args.length ? ' ' + args.join(' ') : ''}. ${text}` }]);
  return { ok: true, text };
}

async function redo(ctx: TurnContext, args: string[]): Promise<UndoCommandResult> {
  if (args.length > 0) return { ok: false, text: '/redo takes no arguments.' };
  const s = ctx.session();
  if (!(await gitWorkTree(s.root))) return { ok: false, text: `/redo is unavailable: it needs git, and ${s.root} is not a git repository (or git is not installed).` };
  const rec = s.state.redo?.at(-1);
  if (!rec) return { ok: false, text: 'Nothing to redo: /redo takes back the last /undo, and there is none since the files last changed.' };
  const r = await applyRedo(s.root, rec);
  const state = ctx.session().state;
  ctx.update({ state: { ...state, redo: (state.redo ?? []).slice(0, -1), undo: [...state.undo.filter((u) => u.turnId !== rec.turnId), rec.snapshot] } });
  const body = r.lines.map((l) => `  ${l}`).join('\n') || '  (nothing had been replaced)';
  const text = `Took back /undo of turn ${rec.turnId}:\n${body}${r.skipped ? '\nFiles changed after /undo were left alone.' : ''}`;
  ctx.addMessage('user', 'command', [{ type: 'text', text: `The user ran /redo. ${text}` }]);
  return { ok: r.skipped === 0, text };
}
