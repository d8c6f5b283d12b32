import { useCallback, useEffect, useRef, useState } from 'react';
import type { Session } from '../../../src-preload/contract/agents';
import type { ChangeScope, ChangeSet } from '../../../src-preload/contract/changes';
import { Modal } from '../components/Modal';
import { useAppStore, useClient } from '../store';
import type { ReviewComment } from '../../../src-preload/contract/review-comments';
import { ChangesPanel, type ChangesActions } from './ChangesPanel';
import type { DiffCommenting } from './diff-comments';
import { ReviewCommentList } from './ReviewCommentList';
import { onChangesRequested } from '../keyboard/events';
import { afterIdle } from '../lib/after-idle';
import { afterOpeningRead } from '../agents/use-session-stream';

/**
 * A session's changes, read from the host: re-read when the session's state moves (a turn
 * ended, a file was written), when a revert or commit anywhere changed them, and on demand.
 */
function useSessionChanges(session: Session, scope: ChangeScope, { firstReadAfterIdle = false }: { firstReadAfterIdle?: boolean } = {}) {
  const client = useClient();
  const [set, setSet] = useState<ChangeSet | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const turnEnded = session.lastTurn?.endedAt ?? 0;
  const readFor = useRef<string | null>(null);
  useEffect(() => {
    let live = true;
    const read = () =>
      client.invoke('changes.list', { sessionId: session.id, scope }).then(
        (s) => live && (setSet(s), setError(null)),
        (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
      );
    // A session just opened reads its conversation first: listing changes runs git (a few process
    // spawns on the host), which the history's read would otherwise wait behind.
    const first = readFor.current !== session.id;
    readFor.current = session.id;
    let cancelAfterRead: (() => void) | null = null;
    const later = first && firstReadAfterIdle ? afterIdle(() => (cancelAfterRead = afterOpeningRead(session.id, () => void read()))) : (void read(), null);
    return () => {
      live = false;
      later?.();
      cancelAfterRead?.();
    };
    // Read again when the session's status moves (a turn, ! or / command started or ended) or a
    // turn ended; not on every update during a turn, which would run git for each streamed change.
  }, [client, session.id, session.status, turnEnded, scope, generation, firstReadAfterIdle]);
  useEffect(() => client.on('changes.changed', ({ sessionId }) => sessionId === session.id && reload()), [client, session.id, reload]);
  return { set, error, reload };
}

/** The session's review comments, read again with its changes (those sent are judged once it is idle). */
function useSessionComments(session: Session, generation: unknown) {
  const client = useClient();
  const [comments, setComments] = useState<ReviewComment[]>([]);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    let live = true;
    client.invoke('sessions.comments.list', { sessionId: session.id }).then(
      (r) => live && setComments(r.comments),
      // The changes view shows its own errors; no comments is the safe reading.
      () => live && setComments([]),
    );
    return () => {
      live = false;
    };
  }, [client, session.id, session.status, generation, tick]);
  return { comments, reloadComments: () => setTick((t) => t + 1) };
}

function ChangesDialog({ session, onClose }: { session: Session; onClose(): void }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const [scope, setScope] = useState<ChangeScope>('session');
  const { set, error, reload } = useSessionChanges(session, scope);
  const busy = session.status === 'running' || session.status === 'awaiting_approval';
  const { comments, reloadComments } = useSessionComments(session, set);
  const commenting: DiffCommenting = {
    comments,
    add: async (file, lineStart, lineEnd, body) => {
      await client.invoke('sessions.comments.add', { sessionId: session.id, file, lineStart, lineEnd, body });
      reloadComments();
    },
  };
  const act = async (title: string, what: () => Promise<{ message: string }>) => {
    try {
      const r = await what();
      toast({ level: 'success', title, message: r.message });
    } catch (e) {
      toastError(`Could not ${title.toLowerCase()}`, e);
      throw e;
    } finally {
      reload();
    }
  };
  const actions: ChangesActions = set?.gitRepo
    ? {
        revertFile: (path) => act('Revert file', () => client.invoke('changes.revertFile', { sessionId: session.id, path })),
        revertHunk: (path, hunk) => act('Revert hunk', () => client.invoke('changes.revertHunk', { sessionId: session.id, path, hunk })),
        commit: (paths, message) => act('Commit', () => client.invoke('changes.commit', { sessionId: session.id, paths, message })),
        commenting,
      }
    : { commenting };
  return (
    <Modal title={`Changes · ${session.title}`} onClose={onClose} className="changes-modal" testId="changes-dialog">
      {error && <p className="error small">{error}</p>}
      {set?.problem && (
        <p className="muted small" data-testid="changes-problem">
          {set.problem}
        </p>
      )}
      {busy && <p className="small muted">A turn is running: reverting and committing wait until it ends.</p>}
      <ReviewCommentList
        comments={comments}
        blocked={null}
        send={async () => {
          const r = await client.invoke('sessions.comments.send', { sessionId: session.id });
          return `Sent ${r.sent === 1 ? '1 comment' : `${r.sent} comments`} to the agent${r.outcome === 'queued' ? ' (queued behind the running turn)' : ''}`;
        }}
        reopen={(id) => client.invoke('comments.reopen', { id })}
        remove={(id) => client.invoke('comments.remove', { id })}
        onChange={reloadComments}
      />
      {set ? (
        <ChangesPanel
          files={set.files}
          actions={actions}
          busy={busy}
          toolbar={
            <>
              {set.branch && <span className="small muted">on <span className="mono">{set.branch}</span></span>}
              <div className="segmented small" role="radiogroup" aria-label="Which changes">
                <button role="radio" aria-checked={scope === 'session'} className={scope === 'session' ? 'active' : ''} onClick={() => setScope('session')} title="Files this session's write and patch tools changed">
                  This session
                </button>
                <button role="radio" aria-checked={scope === 'all'} className={scope === 'all' ? 'active' : ''} onClick={() => setScope('all')} title="Every uncommitted change in the folder, by anyone" data-testid="changes-scope-all">
                  All uncommitted
                </button>
              </div>
              <button className="button small" onClick={reload} data-testid="changes-refresh">
                Refresh
              </button>
            </>
          }
          empty={scope === 'session' ? 'No uncommitted changes from this session: its changed files match the last commit (or it has not changed any yet).' : 'Nothing uncommitted in this folder.'}
        />
      ) : (
        !error && <p className="muted">Reading the changes…</p>
      )}
    </Modal>
  );
}

/** "Changes 3" in the session header: how many files the session left uncommitted; opens the changes view. */
export function ChangesButton({ session }: { session: Session }) {
  const [open, setOpen] = useState(false);
  const { set } = useSessionChanges(session, 'session', { firstReadAfterIdle: true });
  const count = set?.files.length ?? 0;
  // Ctrl/Cmd+Shift+G and the palette's "Open Changes" ask for this dialog.
  useEffect(() => onChangesRequested(session.id, () => setOpen(true)), [session.id]);
  return (
    <>
      <button className="button small changes-button" onClick={() => setOpen(true)} title="Files this session changed: diffs, revert, commit (Ctrl/Cmd+Shift+G)" aria-keyshortcuts="Control+Shift+G Meta+Shift+G" data-testid="changes-button">
        Changes
        {count > 0 && (
          <span className="badge" data-testid="changes-count">
            {count}
          </span>
        )}
      </button>
      {open && <ChangesDialog session={session} onClose={() => setOpen(false)} />}
    </>
  );
}
