import { useMemo, useRef, useState, type ReactNode } from 'react';
import { Decoration, Diff, Hunk, parseDiff, type FileData, type ViewType } from 'react-diff-view';
import 'react-diff-view/style/index.css';
import type { ChangeHunk, FileChange } from '../../../src-preload/contract/changes';
import { commentWidgets, CommentForm, keysInRange, newLineOf, rangeOfHunks, type DiffCommenting, type LineRange } from './diff-comments';
import { highlightHunks } from './highlight';
import './changes.css';
import { unsentText } from '../lib/unsent-text';

/**
 * What the user can do with the changes. Each is optional: a view of a feature branch against
 * its base may offer only some. A rejected promise leaves the view as it was (the caller shows
 * the error); a resolved one is followed by a new `files` list from the caller.
 */
export interface ChangesActions {
  revertFile?: (path: string) => Promise<void>;
  revertHunk?: (path: string, hunk: ChangeHunk) => Promise<void>;
  commit?: (paths: string[], message: string) => Promise<void>;
  /** Comments on the new side's lines (a feature branch's review). */
  commenting?: DiffCommenting;
}

const STATUS_LABEL: Record<FileChange['status'], string> = { added: 'added', modified: 'modified', deleted: 'deleted' };

/** "Line 12" / "Lines 12–18" of the current file, for a hunk's label. */
function hunkLabel(h: ChangeHunk): string {
  if (h.newLines === 0) return `Removed after line ${Math.max(0, h.newStart - 1)}`;
  return h.newLines === 1 ? `Line ${h.newStart}` : `Lines ${h.newStart}–${h.newStart + h.newLines - 1}`;
}

function FileBlock({ file, viewType, actions, busy, run }: { file: FileChange; viewType: ViewType; actions: ChangesActions; busy: boolean; run: (what: () => Promise<void>) => void }) {
  const [open, setOpen] = useState(true);
  const parsed: FileData | null = useMemo(() => (file.diff ? (parseDiff(file.diff)[0] ?? null) : null), [file.diff]);
  const tokens = useMemo(() => (parsed ? highlightHunks(parsed.hunks, file.path) : null), [parsed, file.path]);
  const [chosen, setChosen] = useState<LineRange | null>(null);
  const commenting = actions.commenting;
  const commentable = commenting !== undefined && parsed !== null && file.status !== 'deleted';
  const selection = commentable && chosen && parsed ? keysInRange(parsed.hunks, chosen).keys : [];
  const widgets =
    commentable && parsed
      ? commentWidgets({
          path: file.path,
          hunks: parsed.hunks,
          commenting,
          chosen,
          form: chosen ? <CommentForm path={file.path} range={chosen} onCancel={() => setChosen(null)} onAdd={async (body) => (await commenting.add(file.path, chosen.start, chosen.end, body), setChosen(null))} /> : null,
        })
      : undefined;
  const choose = (range: LineRange | null) => setChosen(range);
  const fileRange = commentable && parsed ? rangeOfHunks(parsed.hunks) : null;
  return (
    <section className="changes-file" data-testid="changes-file" data-path={file.path}>
      <header className="changes-file-head">
        <button className="changes-file-toggle" aria-expanded={open} onClick={() => setOpen((o) => !o)} title={open ? 'Collapse' : 'Expand'}>
          <span className={`changes-chevron ${open ? 'open' : ''}`} aria-hidden>
            ▸
          </span>
          <span className={`badge changes-status-${file.status}`}>{STATUS_LABEL[file.status]}</span>
          <span className="mono truncate" title={file.path}>
            {file.path}
          </span>
        </button>
        <span className="spacer" />
        <span className="changes-counts mono small">
          <span className="add">+{file.added}</span> <span className="del">−{file.removed}</span>
        </span>
        {fileRange && (
          <button className="button small ghost" onClick={() => choose(fileRange)} data-testid="comment-file" title="Comment on this file's changed lines">
            Comment
          </button>
        )}
        {actions.revertFile && (
          <button className="button small" disabled={busy} onClick={() => run(() => actions.revertFile!(file.path))} data-testid="revert-file" title={file.status === 'added' ? 'Delete this new file' : 'Put the file back as the last commit has it'}>
            Revert file
          </button>
        )}
      </header>
      {open &&
        (file.binary || file.tooLarge || !parsed ? (
          <p className="muted small changes-note">{file.binary ? 'Binary file: no line diff. Revert file still works.' : file.tooLarge ? 'Too large to show as a diff. Revert file still works.' : 'No line changes (only the file mode changed).'}</p>
        ) : (
          <Diff
            viewType={viewType}
            diffType={parsed.type}
            hunks={parsed.hunks}
            tokens={tokens}
            className={`changes-diff ${commentable ? 'commentable' : ''}`}
            selectedChanges={selection}
            {...(widgets ? { widgets } : {})}
            {...(commentable
              ? {
                  gutterEvents: {
                    onClick: ({ change }, e) => {
                      const n = change ? newLineOf(change) : null;
                      if (n === null) return;
                      // Shift-click extends the chosen lines, as in a code review.
                      choose(e.shiftKey && chosen ? { start: Math.min(chosen.start, n), end: Math.max(chosen.end, n) } : { start: n, end: n });
                    },
                  },
                }
              : {})}
          >
            {(hunks) =>
              hunks.flatMap((h, i) => {
                const hunk = file.hunks[i];
                return [
                  <Decoration key={`deco-${h.content}`} className="changes-hunk-head">
                    <div className="changes-hunk-bar" data-testid="changes-hunk">
                      <span className="mono small muted truncate">{hunk ? hunkLabel(hunk) : h.content}</span>
                      <span className="spacer" />
                      {commentable && rangeOfHunks([h]) && (
                        <button className="button small ghost" onClick={() => choose(rangeOfHunks([h]))} data-testid="comment-hunk">
                          Comment
                        </button>
                      )}
                      {actions.revertHunk && hunk && (
                        <button className="button small ghost" disabled={busy} onClick={() => run(() => actions.revertHunk!(file.path, hunk))} data-testid="revert-hunk">
                          Revert hunk
                        </button>
                      )}
                    </div>
                  </Decoration>,
                  <Hunk key={`hunk-${h.content}`} hunk={h} />,
                ];
              })
            }
          </Diff>
        ))}
    </section>
  );
}

/**
 * A list of changed files with their diffs (unified or side by side, syntax highlighted),
 * revert per file and per hunk, and "commit these" for the files ticked. It knows nothing of
 * sessions: the caller hands in the files and the actions (a session's changes today, a
 * feature branch against its base later).
 */
export function ChangesPanel({ files, actions, busy = false, empty, toolbar }: { files: readonly FileChange[]; actions: ChangesActions; busy?: boolean; empty: ReactNode; toolbar?: ReactNode }) {
  const [viewType, setViewType] = useState<ViewType>('unified');
  const [unticked, setUnticked] = useState<ReadonlySet<string>>(new Set());
  // Untracked files (build output, notes, junk) are not committed unless the user ticks them.
  const [tickedNew, setTickedNew] = useState<ReadonlySet<string>>(new Set());
  const isTicked = (f: FileChange) => (f.untracked ? tickedNew.has(f.path) : !unticked.has(f.path));
  const untrackedLeft = files.filter((f) => f.untracked && !tickedNew.has(f.path)).length;
  const [message, setMessage] = useState('');
  const [running, setRunning] = useState(false);
  const rootRef = useRef<HTMLDivElement>(null);
  const chosen = files.filter(isTicked).map((f) => f.path);
  const disabled = busy || running;
  const run = (what: () => Promise<void>) => {
    setRunning(true);
    what()
      .catch(() => {
        // The caller reported the failure; the view stays as it was.
      })
      .finally(() => {
        setRunning(false);
        // The button pressed may be gone with its hunk or file: focus stays in the view (Escape, Tab keep working).
        requestAnimationFrame(() => {
          const active = document.activeElement;
          if (!active || active === document.body || !active.isConnected) rootRef.current?.focus();
        });
      });
  };
  const totals = files.reduce((t, f) => ({ added: t.added + f.added, removed: t.removed + f.removed }), { added: 0, removed: 0 });
  return (
    <div className="changes-panel" data-testid="changes-panel" ref={rootRef} tabIndex={-1}>
      <div className="changes-toolbar">
        <span className="small">
          <strong>{files.length}</strong> file{files.length === 1 ? '' : 's'} changed <span className="changes-counts mono"><span className="add">+{totals.added}</span> <span className="del">−{totals.removed}</span></span>
        </span>
        <span className="spacer" />
        {toolbar}
        <div className="segmented small" role="radiogroup" aria-label="Diff layout">
          {(['unified', 'split'] as const).map((v) => (
            <button key={v} role="radio" aria-checked={viewType === v} className={viewType === v ? 'active' : ''} onClick={() => setViewType(v)}>
              {v === 'unified' ? 'Unified' : 'Side by side'}
            </button>
          ))}
        </div>
      </div>
      {files.length === 0 ? (
        <div className="changes-empty muted">{empty}</div>
      ) : (
        <div className="changes-body">
          {actions.commit && (
            <form
              className="changes-commit"
              data-testid="changes-commit"
              onSubmit={(e) => {
                e.preventDefault();
                if (!message.trim() || chosen.length === 0) return;
                const sent = message;
                run(async () => {
                  await actions.commit!(chosen, sent.trim());
                  // Typed on while it committed: that stays.
                  setMessage((m) => unsentText(m, sent));
                  setUnticked(new Set());
                  setTickedNew(new Set());
                });
              }}
            >
              <ul className="changes-choose">
                {files.map((f) => (
                  <li key={f.path}>
                    <label className="mono small">
                      <input
                        type="checkbox"
                        checked={isTicked(f)}
                        onChange={(e) => {
                          if (f.untracked) {
                            const next = new Set(tickedNew);
                            if (e.target.checked) next.add(f.path);
                            else next.delete(f.path);
                            setTickedNew(next);
                            return;
                          }
                          const next = new Set(unticked);
                          if (e.target.checked) next.delete(f.path);
                          else next.add(f.path);
                          setUnticked(next);
                        }}
                        data-testid="commit-choose"
                        data-path={f.path}
                      />{' '}
                      {f.path}
                      {f.untracked && <span className="badge changes-untracked">untracked</span>}
                    </label>
                  </li>
                ))}
              </ul>
              {untrackedLeft > 0 && (
                <p className="muted small" data-testid="untracked-note">
                  {untrackedLeft} untracked file{untrackedLeft === 1 ? '' : 's'} not ticked: git does not track {untrackedLeft === 1 ? 'it' : 'them'} yet. Tick what belongs in the commit.
                </p>
              )}
              <div className="changes-commit-row">
                <input className="input" placeholder="Commit message" aria-label="Commit message" value={message} onChange={(e) => setMessage(e.target.value)} data-testid="commit-message" />
                <button className="button primary" type="submit" disabled={disabled || !message.trim() || chosen.length === 0} data-testid="commit-button">
                  Commit {chosen.length} file{chosen.length === 1 ? '' : 's'}
                </button>
              </div>
            </form>
          )}
          {files.map((f) => (
            <FileBlock key={f.path} file={f} viewType={viewType} actions={actions} busy={disabled} run={run} />
          ))}
        </div>
      )}
    </div>
  );
}
