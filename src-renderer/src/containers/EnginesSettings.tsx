import { useState } from 'react';
import { formatBytes } from '../../../src-preload/contract/units';
import { useAppStore } from '../store';
import { useEngines } from './ContainerPlacementFields';
import { AddEngineForm, useRemoveEngine } from './AddEngineForm';

/**
 * Settings → Engines: the Docker-compatible engines this app can place agents on, with what
 * they are and whether they can run GPU work, checked when the user asks (Docker is never
 * contacted just to open Settings) and again on Test; a tcp:// or ssh:// engine is added (and
 * tested by the list that follows) or removed here. Images and containers are in the Containers view.
 */
export function EnginesSettings() {
  const setView = useAppStore((s) => s.setView);
  const [asked, setAsked] = useState(false);
  const [generation, setGeneration] = useState(0);
  const { engines, error } = useEngines(asked, generation);
  const recheck = () => {
    setAsked(true);
    setGeneration((g) => g + 1);
  };
  const removeEngine = useRemoveEngine(recheck);
  return (
    <div className="panel" data-testid="engines-settings">
      <h3>Container engines</h3>
      <p className="muted small">Sessions, feature runs and mailbox tasks can run in a container on one of these engines instead of on this machine.</p>
      {!asked ? (
        <button type="button" className="button" onClick={() => setAsked(true)} data-testid="engines-check">
          Check engines
        </button>
      ) : error ? (
        <p className="error small" role="alert">
          {error}
        </p>
      ) : engines === null ? (
        <p className="muted small">Asking the engines…</p>
      ) : engines.length === 0 ? (
        <p className="muted small">No engine found: install Docker or Podman, or add a tcp:// or ssh:// engine in the Containers view.</p>
      ) : (
        <ul className="plain-list" data-testid="engines-list">
          {engines.map((e) => (
            <li key={e.spec.name} className="small">
              <strong>{e.spec.name}</strong> <span className="mono muted">{e.spec.host}</span>{' '}
              {e.info ? (
                <span>
                  · {e.info.product} {e.info.version} · {e.info.os} · {e.info.cpus} CPUs · {formatBytes(e.info.memoryBytes)} · NVIDIA runtime: {e.info.nvidia ? 'yes' : 'no'}
                </span>
              ) : (
                <span className="error">· {e.error?.message ?? 'unreachable'}</span>
              )}
              {e.spec.source === 'user' && (
                <>
                  {' '}
                  <button type="button" className="link small" onClick={() => void removeEngine(e.spec.name)} aria-label={`Remove the engine ${e.spec.name}`}>
                    Remove
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
      )}
      {asked && (
        <button type="button" className="button small" onClick={recheck} data-testid="engines-test">
          Test connections
        </button>
      )}
      <AddEngineForm onAdded={recheck} />
      <button type="button" className="link small" onClick={() => setView({ name: 'containers' })} data-testid="engines-manage">
        Build or choose images, and see running containers →
      </button>
    </div>
  );
}
