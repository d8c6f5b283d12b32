import { useState } from 'react';
import { useAppStore, useClient } from '../store';

const EMPTY = { name: '', host: '', tlsVerify: false, certDir: '' };

/** Removes an engine the user added (found ones come back by themselves); `onRemoved` re-reads the list. */
export function useRemoveEngine(onRemoved: () => void): (name: string) => Promise<void> {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  return async (name) => {
    try {
      await client.invoke('containers.engines.remove', { name });
      onRemoved();
    } catch (e) {
      toastError(`Could not remove the engine ${name}`, e);
    }
  };
}

/**
 * Adds an engine the user reaches by tcp:// (TLS certificates from a folder) or ssh://user@host.
 * The main process checks the name and address and says what is wrong; `onAdded` then re-reads
 * the engines, which tests the new one's connection.
 */
export function AddEngineForm({ onAdded }: { onAdded(): void }) {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [adding, setAdding] = useState(EMPTY);
  const add = async () => {
    try {
      await client.invoke('containers.engines.add', { name: adding.name.trim(), host: adding.host.trim(), ...(adding.tlsVerify ? { tlsVerify: true } : {}), ...(adding.certDir.trim() ? { certDir: adding.certDir.trim() } : {}) });
      setAdding(EMPTY);
      onAdded();
    } catch (e) {
      toastError('Could not add the engine', e);
    }
  };
  return (
    <form
      className="form-row add-engine"
      onSubmit={(e) => {
        e.preventDefault();
        if (adding.name.trim() && adding.host.trim()) void add();
      }}
    >
      <input className="input" aria-label="Engine name" placeholder="name (gpu-box)" value={adding.name} onChange={(e) => setAdding({ ...adding, name: e.target.value })} data-testid="engine-add-name" />
      <input className="input" aria-label="Engine address" placeholder="tcp://host:2376 or ssh://user@host" size={34} value={adding.host} onChange={(e) => setAdding({ ...adding, host: e.target.value })} data-testid="engine-add-host" />
      <label>
        <input type="checkbox" checked={adding.tlsVerify} onChange={(e) => setAdding({ ...adding, tlsVerify: e.target.checked })} /> Verify TLS
      </label>
      <input className="input" aria-label="Certificate folder" placeholder="certificate folder (ca.pem, cert.pem, key.pem)" size={30} value={adding.certDir} onChange={(e) => setAdding({ ...adding, certDir: e.target.value })} />
      <button type="submit" className="button" disabled={!adding.name.trim() || !adding.host.trim()} data-testid="engine-add">
        Add engine
      </button>
    </form>
  );
}
