import { useEffect, useMemo, useState, type FormEvent } from 'react';
import type { ContainerEngineEntry } from '../../../src-preload/contract/containers';
import type { OutputOf } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';
import { AGENT_IMAGE } from './ImagesSection';

type ContainerImage = OutputOf<'containers.images.list'>[number];
type Outcome = { kind: 'placing' } | { kind: 'placed'; text: string } | { kind: 'failed'; text: string } | null;

/**
 * "Place a session in a container": every field labelled, the image picked from the engine's
 * images (or typed), and Place says what happened — placing, placed (it starts at the session's
 * next command), or the engine's own refusal.
 */
export function PlaceSessionForm({ engines, onPlaced }: { engines: ContainerEngineEntry[] | null; onPlaced(): void }) {
  const client = useClient();
  const sessions = useAppStore((s) => s.sessions);
  const [place, setPlace] = useState({ sessionId: '', image: AGENT_IMAGE, gpus: 'none' as 'none' | 'all', network: 'bridge' as 'bridge' | 'host' | 'none' });
  const [outcome, setOutcome] = useState<Outcome>(null);
  /** The engine's images; null while unknown (no engine answers, or the list failed), when any name is let through. */
  const [images, setImages] = useState<ContainerImage[] | null>(null);
  const engine = useMemo(() => (engines ?? []).find((e) => e.info !== null)?.spec.name ?? null, [engines]);

  useEffect(() => {
    if (!engine) return;
    let live = true;
    client.invoke('containers.images.list', { engine }).then(
      (list) => live && setImages(list),
      // The picker only suggests: without the list the image is typed, and Place reports any problem.
      () => live && setImages(null),
    );
    return () => {
      live = false;
    };
  }, [client, engine]);
  const tags = useMemo(() => [...new Set((images ?? []).flatMap((i) => i.tags).filter((t) => t !== '<none>:<none>'))].sort(), [images]);

  const edit = (patch: Partial<typeof place>) => {
    setPlace((p) => ({ ...p, ...patch }));
    if (outcome?.kind !== 'placing') setOutcome(null);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!place.sessionId || !place.image.trim() || outcome?.kind === 'placing') return;
    const image = place.image.trim();
    // Flightdeck never pulls: an image the engine does not have would fail at the session's next command, so say it now.
    const bare = image.includes(':') ? image : `${image}:latest`;
    if (images !== null && engine && !images.some((i) => i.id === image || i.id.replace(/^sha256:/, '').startsWith(image.replace(/^sha256:/, '')) || i.tags.includes(image) || i.tags.includes(bare))) {
      setOutcome({ kind: 'failed', text: `${engine} has no image ${image}. Build the agent image below, or pull it with the engine (docker pull ${image}): Flightdeck never pulls by itself.` });
      return;
    }
    setOutcome({ kind: 'placing' });
    const title = sessions.find((s) => s.id === place.sessionId)?.title ?? place.sessionId;
    try {
      await client.invoke('containers.placement.set', { sessionId: place.sessionId, placement: { image: place.image.trim(), gpus: { kind: place.gpus }, network: place.network } });
      setOutcome({ kind: 'placed', text: `${title} is placed in ${place.image.trim()}: its container starts at the session's next command.` });
      onPlaced();
    } catch (err) {
      setOutcome({ kind: 'failed', text: err instanceof Error ? err.message : String(err) });
    }
  };

  const active = sessions.filter((s) => !s.archived);
  return (
    <form className="place-form" onSubmit={(e) => void submit(e)} data-testid="place-form">
      <div className="place-fields">
        <label className="field">
          <span className="field-label">Session</span>
          <select className="input select" value={place.sessionId} onChange={(e) => edit({ sessionId: e.target.value })} data-testid="place-session">
            <option value="">Choose a session…</option>
            {active.map((s) => (
              <option key={s.id} value={s.id}>
                {s.title}
              </option>
            ))}
          </select>
        </label>
        <label className="field place-image-field">
          <span className="field-label">Image</span>
          <input className="input mono" list="place-image-options" value={place.image} onChange={(e) => edit({ image: e.target.value })} placeholder={AGENT_IMAGE} data-testid="place-image" />
          <datalist id="place-image-options" data-testid="place-image-options">
            {tags.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
          <span className="muted small">{engine ? (tags.length > 0 ? `${tags.length} image${tags.length === 1 ? '' : 's'} on ${engine}; or type another local image` : `No images listed on ${engine}: type a local image`) : 'No engine answers'}</span>
        </label>
        <label className="field">
          <span className="field-label">GPUs</span>
          <select className="input select" value={place.gpus} onChange={(e) => edit({ gpus: e.target.value as 'none' | 'all' })} data-testid="place-gpus">
            <option value="none">No GPU</option>
            <option value="all">All GPUs</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">Network</span>
          <select className="input select" value={place.network} onChange={(e) => edit({ network: e.target.value as 'bridge' | 'host' | 'none' })} data-testid="place-network">
            <option value="bridge">Bridge network</option>
            <option value="host">Host network</option>
            <option value="none">No network</option>
          </select>
        </label>
        <button type="submit" className="button primary place-submit" disabled={!place.sessionId || !place.image.trim() || outcome?.kind === 'placing'} data-testid="place-submit">
          {outcome?.kind === 'placing' ? 'Placing…' : 'Place'}
        </button>
      </div>
      {outcome?.kind === 'placing' && (
        <p className="muted small" role="status" data-testid="place-status">
          Checking the image and the engine…
        </p>
      )}
      {outcome?.kind === 'placed' && (
        <p className="place-ok small" role="status" data-testid="place-status">
          {outcome.text}
        </p>
      )}
      {outcome?.kind === 'failed' && (
        <p className="error small" role="alert" data-testid="place-error">
          Could not place the session: {outcome.text}
        </p>
      )}
    </form>
  );
}
