import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import type { MergeStrategy, SessionWorktreeStatus } from '../../../src-preload/contract/session-worktrees';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { SetupStatus } from '../worktrees/SetupStatus';
import { Modal } from '../components/Modal';
import { useAppStore, useClient } from '../store';
import { plural } from '../lib/format';
import './session-worktrees.css';

type Dialog = { kind: 'commit' } | { kind: 'merge' } | { kind: 'discard'; lines: string[] } | { kind: 'pushed'; url: string | null; pr: boolean; existing: boolean; note: string | null; branch: string };

const errorText = (e: unknown) => (e instanceof Error ? e.message : String(e));

/**
 * The session's worktree in its header: the branch, how far it is from its base, what is
 * uncommitted, and what the user does with it — commit, merge into the base, push and open a
 * pull request, discard (archived first, after a confirmation that lists what would be lost).
 */
export function SessionWorktreeBar({ session }: { session: Session }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const [status, setStatus] = useState<SessionWorktreeStatus | null>(null);
  const [generation, setGeneration] = useState(0);
  const [dialog, setDialog] = useState<Dialog | null>(null);
  const [busy, setBusy] = useState<string | null>(null);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const w = session.worktree;

  useEffect(() => {
    if (!w) return;
    let live = true;
    client.invoke('sessionWorktrees.status', { sessionId: session.id }).then(
      (s) => live && setStatus(s),
      // The bar keeps its last status; the next refresh (or action) reports a lasting problem.
      () => undefined,
    );
    return () => {
      live = false;
    };
    // A turn ending (status, updatedAt) or a discard/restore (archiveRef) changes what the worktree holds.
  }, [client, session.id, session.status, session.updatedAt, w?.archiveRef, generation, w]);
  // A revert or commit in the Changes view changes the uncommitted count: read the status again at once.
  useEffect(() => client.on('changes.changed', ({ sessionId }) => sessionId === session.id && reload()), [client, session.id, reload]);

  if (!w) return null;
  const running = session.status === 'running';
  const dirty = status ? status.changed + status.untracked : 0;

  const act = async <T,>(what: string, fn: () => Promise<T>): Promise<T | null> => {
    setBusy(what);
    try {
      return await fn();
    } catch (e) {
      toastError(`Could not ${what}`, e);
      return null;
    } finally {
      setBusy(null);
      reload();
    }
  };

  const push = async () => {
    const r = await act('push', () => client.invoke('sessionWorktrees.push', { sessionId: session.id }));
    if (r) setDialog({ kind: 'pushed', url: r.pr?.url ?? r.compareUrl, pr: r.pr !== null, existing: r.pr?.existing ?? false, note: r.note, branch: r.branch });
  };

  const askDiscard = async () => {
    const r = await act('check the worktree', () => client.invoke('sessionWorktrees.discardPreview', { sessionId: session.id }));
    if (r) setDialog({ kind: 'discard', lines: r.lines });
  };

  const discard = async (lines: string[]) => {
    setDialog(null);
    // Confirmed with the list in view: forced then; with nothing listed, the host re-checks (work may have appeared since).
    const r = await act('discard the worktree', () => client.invoke('sessionWorktrees.discard', { sessionId: session.id, force: lines.length > 0 }));
    if (r) toast({ level: 'success', title: `Discarded ${w.slug}`, message: `Archived as ${r.archive.ref}; restore it from the session or the project's worktrees.` });
  };

  const restore = async () => {
    const r = await act('restore the worktree', () => client.invoke('sessionWorktrees.restore', { sessionId: session.id }));
    if (r) toast({ level: 'success', title: `Restored ${w.slug}`, ...(r.reappliedDirty ? { message: 'Its uncommitted changes are back.' } : {}) });
  };

  return (
    <div className="worktree-bar" data-testid="session-worktree">
      <span className="badge mono worktree-branch" title={`${w.path}\nfrom ${w.base}`} data-testid="session-branch">
        ⎇ {w.branch}
      </span>
      {status?.state === 'active' && (
        <span className="muted small worktree-counts" data-testid="worktree-counts" title={status.upstream ? `upstream ${status.upstream}: ↑${status.aheadOfUpstream ?? 0} ↓${status.behindUpstream ?? 0}` : 'not pushed yet'}>
          ↑{status.aheadOfBase} ↓{status.behindBase} vs {w.base}
          {' · '}
          {dirty === 0 ? 'no uncommitted changes' : `${plural(dirty, 'uncommitted file')}`}
        </span>
      )}
      {status?.state === 'missing' && <span className="badge badge-bad">folder missing</span>}
      {!w.archiveRef && status?.state === 'active' && <SetupStatus path={w.path} initial={status.setup} target={{ sessionId: session.id }} compact />}
      <SetupTerminalsButton worktreePath={w.path} />
      {w.archiveRef ? (
        <>
          <span className="muted small" data-testid="worktree-discarded">
            Discarded — archived as <code>{w.archiveRef}</code>
          </span>
          <button className="button small" onClick={() => void restore()} disabled={busy !== null} data-testid="worktree-restore">
            Restore
          </button>
        </>
      ) : (
        <span className="worktree-actions">
          <button className="button small" onClick={() => setDialog({ kind: 'commit' })} disabled={busy !== null || running || status?.state !== 'active' || dirty === 0} title={dirty === 0 ? 'Nothing to commit' : 'Commit every change in the worktree'} data-testid="worktree-commit">
            Commit
          </button>
          <button className="button small" onClick={() => setDialog({ kind: 'merge' })} disabled={busy !== null || status?.state !== 'active' || status.aheadOfBase === 0} title={`Merge into ${w.base} locally`} data-testid="worktree-merge">
            Merge…
          </button>
          <button className="button small" onClick={() => void push()} disabled={busy !== null || status?.state !== 'active' || status.aheadOfBase === 0} title={status?.remote ? `Push to origin (${status.remote}) and open a pull request` : 'This repository has no remote origin'} data-testid="worktree-push">
            {busy === 'push' ? 'Pushing…' : 'Push & PR'}
          </button>
          <button className="button small danger" onClick={() => void askDiscard()} disabled={busy !== null || running} title="Archive the worktree, then remove it" data-testid="worktree-discard">
            Discard
          </button>
        </span>
      )}
      {dialog?.kind === 'commit' && status && <CommitDialog sessionId={session.id} status={status} onClose={() => setDialog(null)} onDone={reload} />}
      {dialog?.kind === 'merge' && status && <MergeDialog sessionId={session.id} status={status} onClose={() => setDialog(null)} onDone={reload} />}
      {dialog?.kind === 'discard' && (
        <ConfirmDialog title={`Discard the worktree ${w.slug}?`} confirmLabel="Archive and discard" onCancel={() => setDialog(null)} onConfirm={() => void discard(dialog.lines)}>
          {dialog.lines.length > 0 ? (
            <>
              <p>This work exists only in the worktree:</p>
              <ul data-testid="discard-loss">
                {dialog.lines.map((l) => (
                  <li key={l}>{l}</li>
                ))}
              </ul>
            </>
          ) : (
            <p data-testid="discard-loss">Nothing would be lost: every commit is on {w.base} or pushed, and there are no uncommitted files.</p>
          )}
          <p className="muted">
            The folder and the branch {w.branch} are removed. Everything is archived first under <code>refs/flightdeck/archive/{w.slug}/…</code> and can be restored.
          </p>
        </ConfirmDialog>
      )}
      {dialog?.kind === 'pushed' && (
        <Modal title={dialog.pr ? (dialog.existing ? 'Pull request already open' : 'Pull request opened') : 'Branch pushed'} onClose={() => setDialog(null)} testId="push-result">
          <p>
            Pushed <code>{dialog.branch}</code> to origin.
          </p>
          {dialog.url && (
            <p>
              {dialog.pr ? 'Pull request: ' : 'Open the pull request here: '}
              <a href={dialog.url} target="_blank" rel="noreferrer" data-testid="push-link">
                {dialog.url}
              </a>
            </p>
          )}
          {dialog.note && <p className="muted small">{dialog.note}</p>}
        </Modal>
      )}
    </div>
  );
}

function CommitDialog({ sessionId, status, onClose, onDone }: { sessionId: string; status: SessionWorktreeStatus; onClose(): void; onDone(): void }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const [message, setMessage] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const count = status.changed + status.untracked;
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!message.trim() || busy) return;
    setBusy(true);
    try {
      const r = await client.invoke('sessionWorktrees.commit', { sessionId, message });
      toast({ level: 'success', title: `Committed ${r.sha.slice(0, 7)}`, message: r.subject });
      onDone();
      onClose();
    } catch (err) {
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Commit the worktree's changes"
      onClose={onClose}
      testId="commit-dialog"
      footer={
        <>
          <button className="button" onClick={onClose}>
            Cancel
          </button>
          <button className="button primary" type="submit" form="worktree-commit-form" disabled={!message.trim() || busy} data-testid="commit-confirm">
            {busy ? 'Committing…' : `Commit ${plural(count, 'file')}`}
          </button>
        </>
      }
    >
      <form id="worktree-commit-form" onSubmit={(e) => void submit(e)}>
        <label className="field">
          <span>Message</span>
          <textarea className="input" rows={3} value={message} onChange={(e) => setMessage(e.target.value)} data-testid="commit-message" data-autofocus aria-label="Commit message" />
        </label>
        <p className="muted small">Every change in {status.worktree.path} is committed on {status.worktree.branch}, new files included:</p>
        <ul className="mono small worktree-files">
          {status.files.map((f) => (
            <li key={f}>{f}</li>
          ))}
          {count > status.files.length && <li>… and {count - status.files.length} more</li>}
        </ul>
        {error && (
          <p className="card-problem" role="alert">
            {error}
          </p>
        )}
      </form>
    </Modal>
  );
}

function MergeDialog({ sessionId, status, onClose, onDone }: { sessionId: string; status: SessionWorktreeStatus; onClose(): void; onDone(): void }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const [strategy, setStrategy] = useState<MergeStrategy>('merge');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const w = status.worktree;
  const submit = async () => {
    if (busy) return;
    setBusy(true);
    try {
      const r = await client.invoke('sessionWorktrees.merge', { sessionId, strategy });
      toast({ level: 'success', title: `${r.strategy === 'squash' ? 'Squashed' : 'Merged'} into ${r.base}`, message: `${plural(r.commits, 'commit')} as ${r.commit.slice(0, 7)}${r.updatedCheckout ? `; ${r.updatedCheckout} is up to date` : ''}.` });
      onDone();
      onClose();
    } catch (err) {
      // Refusals (a conflict, a dirty checkout) changed nothing: say why and stay open.
      setError(errorText(err));
      setBusy(false);
    }
  };
  return (
    <Modal
      title={`Merge into ${w.base}?`}
      onClose={onClose}
      onSubmit={() => void submit()}
      testId="merge-dialog"
      footer={
        <>
          <button className="button" onClick={onClose} data-autofocus>
            Cancel
          </button>
          <button className="button primary" onClick={() => void submit()} disabled={busy} data-testid="merge-confirm">
            {busy ? 'Merging…' : strategy === 'squash' ? 'Squash and merge' : 'Merge'}
          </button>
        </>
      }
    >
      <p>
        {plural(status.aheadOfBase, 'commit')} of <code>{w.branch}</code> go into <code>{w.base}</code> in your repository. When {w.base} is checked out, its checkout must have no uncommitted changes; a merge that would conflict is refused and nothing changes.
      </p>
      <div className="segmented small" role="radiogroup" aria-label="Merge strategy">
        <button role="radio" aria-checked={strategy === 'merge'} className={strategy === 'merge' ? 'active' : ''} onClick={() => setStrategy('merge')} data-testid="strategy-merge">
          Merge commit
        </button>
        <button role="radio" aria-checked={strategy === 'squash'} className={strategy === 'squash' ? 'active' : ''} onClick={() => setStrategy('squash')} data-testid="strategy-squash">
          Squash
        </button>
      </div>
      {error && (
        <p className="card-problem" role="alert" data-testid="merge-error">
          {error}
        </p>
      )}
    </Modal>
  );
}

/** The worktree's setup commands (worktree.setup of a trusted repository) ran in terminals: opened from here. */
function SetupTerminalsButton({ worktreePath }: { worktreePath: string }) {
  const all = useAppStore((s) => s.terminals);
  const showTerminal = useAppStore((s) => s.showTerminal);
  const setView = useAppStore((s) => s.setView);
  const setup = all.filter((t) => t.owner.worktreePath === worktreePath && t.owner.phase === 'setup');
  if (setup.length === 0) return null;
  const failed = setup.some((t) => t.status === 'exited' && t.exitCode !== 0);
  const running = setup.some((t) => t.status === 'running');
  return (
    <button
      className={`button small ${failed ? 'danger' : ''}`}
      title={setup.map((t) => t.title).join('\n')}
      data-testid="worktree-setup-terminal"
      onClick={() => {
        // The last one: the step that failed or is running, else the last that ran.
        showTerminal(setup[setup.length - 1]!.id);
        setView({ name: 'terminals' });
      }}
    >
      Setup {running ? 'running…' : failed ? 'failed' : 'output'}
    </button>
  );
}
