import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { PlacementProbe, SessionPlacement } from '../../../src-preload/contract/session-worktrees';
import type { Session } from '../../../src-preload/contract/agents';
import { Modal } from '../components/Modal';
import { TrustLine } from '../components/TrustLine';
import { useAppStore, useClient } from '../store';
import { plural } from '../lib/format';
import { ContainerPlacementFields, usePlacementForm } from '../containers/ContainerPlacementFields';
import './session-worktrees.css';

/**
 * "New session": where the agent works. In a git repository the default is a new worktree of
 * its own (branch `<prefix>/<name>` from the base), so the user's checkout is never touched; the
 * checkout itself is offered with a warning when it has uncommitted files. Outside git the
 * session can only work in the folder, and the dialog says why.
 */
export function NewSessionDialog({ projectId, onClose, onStarted }: { projectId: string; onClose(): void; onStarted(session: Session): void }) {
  const client = useClient();
  const upsert = useAppStore((s) => s.upsertSession);
  // Opened from anywhere (Ctrl/Cmd+N, the palette, a project card): the title says where.
  const projectName = useAppStore((s) => s.projects.find((p) => p.id === projectId)?.name ?? null);
  const [probe, setProbe] = useState<PlacementProbe | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [placement, setPlacement] = useState<SessionPlacement>('worktree');
  const [slug, setSlug] = useState('');
  const [busy, setBusy] = useState(false);
  /** The host's refusal (an invalid or taken name, a failed git call), shown in the dialog. */
  const [startError, setStartError] = useState<string | null>(null);
  /** Where its commands run: on this machine (the default) or in a container. */
  const [runsOn, setRunsOn] = useState<'host' | 'container'>('host');
  const { form: ctr, setForm: setCtr, engines, enginesError, read: inContainer } = usePlacementForm(runsOn === 'container');

  useEffect(() => {
    let live = true;
    client.invoke('sessionWorktrees.probe', { projectId }).then(
      (p) => {
        if (!live) return;
        setProbe(p);
        // A worktree is the default wherever one can be made.
        setPlacement(p.kind === 'git' && p.worktreeProblem === null ? 'worktree' : 'checkout');
        if (p.kind === 'git') setSlug(p.suggestedSlug);
      },
      (e: unknown) => live && setLoadError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [client, projectId]);

  const git = probe?.kind === 'git' ? probe : null;
  // The name's rule is the host's (it answers with the rule when the name breaks it); empty is the only thing caught here.
  const canStart = probe !== null && !busy && !(placement === 'worktree' && (git?.worktreeProblem || slug.trim() === '')) && (inContainer === null || inContainer.placement !== null);

  // The Start button is the dialog's autofocus but disabled until the probe answers: focus it then, unless the user has moved on.
  const startRef = useRef<HTMLButtonElement>(null);
  useEffect(() => {
    const el = startRef.current;
    if (canStart && el && document.activeElement === el.closest('[role="dialog"]')) el.focus();
  }, [canStart]);

  const start = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!canStart) return;
    setBusy(true);
    setStartError(null);
    try {
      const session = await client.invoke('sessionWorktrees.start', { projectId, placement, ...(placement === 'worktree' ? { slug: slug.trim() } : {}) });
      if (inContainer?.placement) {
        try {
          await client.invoke('containers.placement.set', { sessionId: session.id, placement: inContainer.placement });
        } catch (err) {
          // The session exists but would run on the host: say so instead of opening it as if placed.
          upsert(session, null);
          setStartError(`The session was created but not placed in a container: ${err instanceof Error ? err.message : String(err)}. Place it from the Containers view before its first command.`);
          setBusy(false);
          return;
        }
      }
      upsert(session, null);
      onStarted(session);
    } catch (err) {
      setStartError(err instanceof Error ? err.message : String(err));
      setBusy(false);
    }
  };

  return (
    <Modal
      title={projectName ? `New session in ${projectName}` : 'New session'}
      onClose={onClose}
      testId="new-session-dialog"
      footer={
        <>
          <button className="button" onClick={onClose}>
            Cancel
          </button>
          <button className="button primary" type="submit" form="new-session-form" disabled={!canStart} data-testid="new-session-start" data-autofocus ref={startRef}>
            {busy ? 'Starting…' : 'Start session'}
          </button>
        </>
      }
    >
      <form id="new-session-form" className="placement-form" onSubmit={(e) => void start(e)}>
        <TrustLine projectId={projectId} />
        {loadError && (
          <p className="card-problem" role="alert">
            {loadError}
          </p>
        )}
        {!probe && !loadError && <p className="muted">Looking at the repository…</p>}
        {probe?.kind === 'folder' && (
          <div className="placement-choice selected" data-testid="placement-folder">
            <strong>In the folder</strong>
            <p className="muted small">{probe.reason}</p>
          </div>
        )}
        {git && (
          <fieldset className="placement-options" aria-label="Where the agent works">
            <label className={`placement-choice ${placement === 'worktree' ? 'selected' : ''}`} data-testid="placement-worktree">
              <input type="radio" name="placement" value="worktree" checked={placement === 'worktree'} disabled={git.worktreeProblem !== null} onChange={() => setPlacement('worktree')} />
              <span>
                <span>
                  <strong>In a new worktree</strong> <span className="muted small">(recommended)</span>
                </span>
                <span className="placement-help muted small">
                  The agent works on its own branch in <code>.trees/</code>; your checkout stays as it is. Commit, merge, push or discard from the session.
                </span>
              </span>
            </label>
            {placement === 'worktree' && git.worktreeProblem === null && (
              <div className="placement-details">
                <label className="field">
                  <span>Worktree name</span>
                  <input className="input mono" value={slug} onChange={(e) => setSlug(e.target.value)} aria-label="Worktree name" data-testid="worktree-name" spellCheck={false} />
                  <span className="field-help">Lowercase letters, digits and single hyphens; it names the folder and the branch.</span>
                </label>
                <p className="small" data-testid="worktree-branch-preview">
                  Branch <code>{`${git.branchPrefix}/${slug.trim() || '…'}`}</code> from <code>{git.base}</code>
                </p>
              </div>
            )}
            {git.worktreeProblem && (
              <p className="card-problem small" role="alert" data-testid="worktree-problem">
                {git.worktreeProblem}
              </p>
            )}
            <label className={`placement-choice ${placement === 'checkout' ? 'selected' : ''}`} data-testid="placement-checkout">
              <input type="radio" name="placement" value="checkout" checked={placement === 'checkout'} onChange={() => setPlacement('checkout')} />
              <span>
                <strong>In the checkout</strong>
                <span className="placement-help muted small">
                  The agent changes the files of {git.currentBranch ? <code>{git.currentBranch}</code> : 'the checkout'} directly, next to your own work.
                </span>
              </span>
            </label>
            {placement === 'checkout' && git.dirtyCount > 0 && (
              <div className="placement-warning" role="alert" data-testid="checkout-dirty-warning">
                The checkout has {plural(git.dirtyCount, 'uncommitted file')}: the agent&apos;s changes will mix with them.
                <ul className="mono small">
                  {git.dirtyFiles.map((f) => (
                    <li key={f}>{f}</li>
                  ))}
                  {git.dirtyCount > git.dirtyFiles.length && <li>… and {git.dirtyCount - git.dirtyFiles.length} more</li>}
                </ul>
              </div>
            )}
          </fieldset>
        )}
        {probe && (
          <fieldset className="placement-options" aria-label="Where its commands run">
            <label className={`placement-choice ${runsOn === 'host' ? 'selected' : ''}`} data-testid="runs-on-host">
              <input type="radio" name="runs-on" value="host" checked={runsOn === 'host'} onChange={() => setRunsOn('host')} />
              <span>
                <strong>On this machine</strong>
                <span className="placement-help muted small">Commands run here, in the session&apos;s sandbox.</span>
              </span>
            </label>
            <label className={`placement-choice ${runsOn === 'container' ? 'selected' : ''}`} data-testid="runs-on-container">
              <input type="radio" name="runs-on" value="container" checked={runsOn === 'container'} onChange={() => setRunsOn('container')} />
              <span>
                <strong>In a container</strong>
                <span className="placement-help muted small">Commands run in a Docker container with the folder mounted; it starts at the first command.</span>
              </span>
            </label>
            {runsOn === 'container' && <ContainerPlacementFields form={ctr} onChange={setCtr} engines={engines} enginesError={enginesError} />}
          </fieldset>
        )}
        {startError && (
          <p className="card-problem" role="alert" data-testid="new-session-error">
            {startError}
          </p>
        )}
      </form>
    </Modal>
  );
}
