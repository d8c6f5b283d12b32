import { useEffect, useState } from 'react';
import { useAppStore, useClient } from '../store';

/**
 * Said once per repository: the feature worktree's setup created files the repository does not
 * ignore (node_modules, a build folder). They are kept out of the feature's commits either way;
 * the user can add the ignore rules to .gitignore, or decline.
 */
export function SetupFilesOffer({ projectId, slug }: { projectId: string; slug: string }) {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [patterns, setPatterns] = useState<string[]>([]);
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    let live = true;
    const ask = () =>
      client.invoke('features.setupFiles.offer', { projectId, slug }).then(
        (r) => live && setPatterns(r.patterns),
        () => undefined, // No worktree (merged, removed): nothing to offer.
      );
    void ask();
    // The worktree's setup runs after it is made: what it created is known once it ends.
    const off = client.on('worktrees.setup.changed', (e) => {
      if (e.projectId === projectId && e.setup.state === 'done') void ask();
    });
    return () => {
      live = false;
      off();
    };
  }, [client, projectId, slug]);

  if (patterns.length === 0) return null;
  const answer = async (add: boolean) => {
    setBusy(true);
    try {
      await client.invoke('features.setupFiles.answer', { projectId, slug, add });
      setPatterns([]);
    } catch (e) {
      toastError('Could not update .gitignore', e);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="notice notice-info" role="status" data-testid="setup-files-offer">
      <span>
        Setup created files this repository does not ignore: <span className="mono">{patterns.join(', ')}</span>. They are kept out of the feature&apos;s commits.
      </span>
      <button className="button small" disabled={busy} onClick={() => void answer(true)} data-testid="setup-files-ignore">
        Add to .gitignore
      </button>
      <button className="button small" disabled={busy} onClick={() => void answer(false)} data-testid="setup-files-dismiss">
        Dismiss
      </button>
    </div>
  );
}
