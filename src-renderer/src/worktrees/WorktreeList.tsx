import { useCallback, useEffect, useState } from 'react';
import type { WorktreeArchive, WorktreeEntry } from '../../../src-preload/contract/worktrees';
import { formatBytes } from '../../../src-preload/contract/units';
import { useAppStore, useClient } from '../store';
import { BridgeError } from '../../../src-preload/client/client';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { SetupStatus } from './SetupStatus';

interface Listing {
  worktrees: WorktreeEntry[];
  archives: WorktreeArchive[];
}

/** The newest archive of each slug that has no worktree now: the ones worth offering to restore. */
function restorable(l: Listing): WorktreeArchive[] {
  const live = new Set(l.worktrees.map((w) => w.slug));
  const seen = new Set<string>();
  return l.archives.filter((a) => !live.has(a.slug) && !seen.has(a.slug) && (seen.add(a.slug), true));
}

/**
 * A project's worktrees: Flightdeck's own under `.trees/`, ones made with plain git, and ones
 * whose folder vanished. Removal asks first; when work would be lost the host's refusal (naming
 * the files and commits) is shown and must be confirmed again. Archived worktrees can be restored.
 */
export function WorktreeList({ projectId }: { projectId: string }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const [listing, setListing] = useState<Listing | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [confirm, setConfirm] = useState<{ slug: string; force: boolean; text: string } | null>(null);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    let live = true;
    client.invoke('worktrees.list', { projectId }).then(
      (l) => live && (setListing(l), setError(null)),
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [client, projectId, generation]);

  const remove = async (slug: string, force: boolean) => {
    setConfirm(null);
    try {
      const r = await client.invoke('worktrees.remove', { projectId, slug, force });
      toast({ level: 'success', title: `Removed ${slug}`, message: `Archived as ${r.archive.ref}.` });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      // The host refuses when work would be lost: show what, and ask again with force.
      if (e instanceof BridgeError && e.code === 'conflict' && !force && /would lose work/.test(message)) setConfirm({ slug, force: true, text: message });
      else toastError(`Could not remove ${slug}`, e);
    }
    reload();
  };

  const restore = async (slug: string) => {
    try {
      const r = await client.invoke('worktrees.restore', { projectId, slug });
      toast({ level: 'success', title: `Restored ${slug}`, ...(r.reappliedDirty ? { message: 'Its uncommitted changes are back.' } : {}) });
    } catch (e) {
      toastError(`Could not restore ${slug}`, e);
    }
    reload();
  };

  return (
    <div className="panel" data-testid="worktree-list">
      <h3>Worktrees</h3>
      {error && (
        <p className="card-problem" role="alert">
          {error}
        </p>
      )}
      {listing && listing.worktrees.length === 0 && <p className="muted">No worktrees yet.</p>}
      {listing && listing.worktrees.length > 0 && (
        <ul className="worktree-rows">
          {listing.worktrees.map((w) => (
            <li key={w.path} data-testid={`worktree-${w.slug}`}>
              <strong>{w.slug}</strong> <span className="mono">{w.branch ?? `detached ${w.head?.slice(0, 7) ?? ''}`}</span>
              {!w.managed && <span className="badge"> made outside Flightdeck</span>}
              {w.missing && <span className="badge badge-warn"> folder missing</span>}
              {w.locked && <span className="badge"> locked{w.lockReason ? `: ${w.lockReason}` : ''}</span>}
              {typeof w.diskBytes === 'number' && (
                <span className="muted" data-testid={`worktree-disk-${w.slug}`}>
                  {' '}
                  {formatBytes(w.diskBytes)}
                </span>
              )}
              {typeof w.port === 'number' && <span className="badge"> PORT {w.port}</span>}{' '}
              {!w.missing && <SetupStatus path={w.path} initial={w.setup} target={{ projectId, slug: w.slug }} />}{' '}
              <button className="button" onClick={() => setConfirm({ slug: w.slug, force: false, text: w.missing ? `The folder of ${w.slug} is gone. Forget it (its branch tip is archived)?` : `Remove ${w.slug} (${w.path})? It is archived first and can be restored.` })}>
                {w.missing ? 'Prune' : 'Remove'}
              </button>
            </li>
          ))}
        </ul>
      )}
      {listing && restorable(listing).length > 0 && (
        <>
          <h4>Archived</h4>
          <ul className="worktree-rows">
            {restorable(listing).map((a) => (
              <li key={a.ref} data-testid={`archive-${a.slug}`}>
                <strong>{a.slug}</strong> <span className="mono">{a.branch ?? '(detached)'}</span> <span className="muted">{a.timestamp}{a.dirty ? ', with uncommitted changes' : ''}</span>{' '}
                <button className="button" onClick={() => void restore(a.slug)}>
                  Restore
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
      {confirm && (
        <ConfirmDialog title={confirm.force ? 'Remove and archive unsaved work?' : 'Remove worktree?'} confirmLabel={confirm.force ? 'Archive and remove' : 'Remove'} onConfirm={() => void remove(confirm.slug, confirm.force)} onCancel={() => setConfirm(null)}>
          <p style={{ whiteSpace: 'pre-wrap' }}>{confirm.text}</p>
        </ConfirmDialog>
      )}
    </div>
  );
}
