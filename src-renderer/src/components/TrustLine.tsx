import { useCallback, useEffect, useState } from 'react';
import type { TrustItem, TrustStatus } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';
import { Icon } from './Icon';
import { Modal } from './Modal';
import './trust.css';

/** A project's workspace trust, kept current: re-read when trust changes anywhere and when the project list refreshes. */
export function useTrust(projectId: string): { status: TrustStatus | null; reload(): void } {
  const client = useClient();
  const projects = useAppStore((s) => s.projects);
  const [status, setStatus] = useState<TrustStatus | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => client.on('trust.changed', () => setGeneration((g) => g + 1)), [client]);
  useEffect(() => {
    let live = true;
    client.invoke('trust.status', { projectId }).then(
      (s) => live && setStatus(s),
      // A project that is gone (or a folder that moved) has no trust line; the card says what is wrong.
      () => live && setStatus(null),
    );
    return () => {
      live = false;
    };
  }, [client, projectId, generation, projects]);
  return { status, reload };
}

const KIND_TITLE: Record<TrustItem['kind'], string> = {
  command: 'Commands it runs',
  image: 'Container images',
  setting: 'Settings',
  folder: 'Folders it reads',
  file: 'Files it reads',
  problem: 'Problems',
};
const KIND_ORDER: TrustItem['kind'][] = ['command', 'image', 'setting', 'folder', 'file', 'problem'];

/** Exactly what trusting the repository lets Flightdeck run and read, and what changed since it was last trusted. */
export function TrustDialog({ projectId, status, onClose, onTrusted }: { projectId: string; status: TrustStatus; onClose(): void; onTrusted?: () => void }) {
  const client = useClient();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const trust = async () => {
    setBusy(true);
    setError(null);
    try {
      await client.invoke('trust.trust', { projectId, fingerprint: status.fingerprint });
      onTrusted?.();
      onClose();
    } catch (e) {
      setError((e as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title="Review and trust this repository"
      onClose={onClose}
      onSubmit={() => void trust()}
      testId="trust-dialog"
      className="trust-dialog"
      footer={
        <>
          <button className="button" onClick={onClose}>
            Cancel
          </button>
          <button className="button primary" onClick={() => void trust()} disabled={busy} data-testid="trust-confirm">
            Trust
          </button>
        </>
      }
    >
      <p>
        <code>{status.root}</code>: trusting it lets Flightdeck run and read exactly what is listed here, on the repository&apos;s say-so. Setup commands run in the workspace sandbox; a later change to any of it (a commit, a pull, an agent) is asked again.
      </p>
      {status.state === 'changed' && (
        <section data-testid="trust-changes">
          <h3>Changed since you trusted it</h3>
          <ul className="trust-list mono">
            {status.changes.map((c) => (
              <li key={c.key} className={`trust-change trust-${c.change}`}>
                <span className="badge">{c.change}</span> {c.key}: {c.before !== null && <del>{c.before}</del>}
                {c.before !== null && c.after !== null && ' → '}
                {c.after !== null && <ins>{c.after}</ins>}
              </li>
            ))}
          </ul>
        </section>
      )}
      {status.items.length === 0 ? (
        <p className="muted">It holds no setup, checks, templates, placement or context of its own.</p>
      ) : (
        KIND_ORDER.filter((k) => status.items.some((i) => i.kind === k)).map((k) => (
          <section key={k} data-testid={`trust-kind-${k}`}>
            <h3>{KIND_TITLE[k]}</h3>
            <ul className="trust-list">
              {status.items
                .filter((i) => i.kind === k)
                .map((i) => (
                  <li key={i.key} data-testid="trust-item">
                    <code>{i.value}</code> <span className="muted">— {i.label}</span>
                  </li>
                ))}
            </ul>
          </section>
        ))
      )}
      {error && (
        <p className="card-problem" role="alert">
          <Icon name="alert" size={14} /> {error}
        </p>
      )}
    </Modal>
  );
}

/**
 * The one line a project card, the New session dialog and the feature page show while the
 * repository is not trusted, with its Review and trust action. Nothing when trusted.
 */
export function TrustLine({ projectId }: { projectId: string }) {
  const { status, reload } = useTrust(projectId);
  const [reviewing, setReviewing] = useState(false);
  if (!status || status.state === 'trusted') return null;
  const changed = status.state === 'changed';
  const text = changed ? 'Changed since you trusted it: Flightdeck defaults apply.' : 'Untrusted: Flightdeck defaults apply.';
  const why = changed
    ? "The repository's setup, checks, templates or placement changed since you trusted them; they are not used until you review them again."
    : "The repository's own setup commands, checks, prompt templates and placement are not used until you review and trust them.";
  return (
    <>
      <div className={`trust-line ${changed ? 'trust-line-changed' : ''}`} data-testid="trust-line" data-state={status.state} title={why}>
        <Icon name="alert" size={13} /> <span>{text}</span>
        <button type="button" className="link" onClick={() => setReviewing(true)} data-testid="trust-review">
          Review and trust
        </button>
      </div>
      {/* Outside the line: the dialog does not take the notice's colour and size. */}
      {reviewing && <TrustDialog projectId={projectId} status={status} onClose={() => setReviewing(false)} onTrusted={reload} />}
    </>
  );
}

/** Untrust, for the project's own page: its config is inert again. */
export function UntrustButton({ projectId }: { projectId: string }) {
  const client = useClient();
  const { status, reload } = useTrust(projectId);
  if (!status || status.state !== 'trusted') return null;
  return (
    <button className="button" title="Stop using this repository's own setup, checks, templates and placement" onClick={() => void client.invoke('trust.untrust', { projectId }).then(reload)} data-testid="trust-untrust">
      <Icon name="alert" size={14} /> Untrust
    </button>
  );
}
