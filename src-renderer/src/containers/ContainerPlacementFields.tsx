import { useEffect, useRef, useState, type Dispatch, type SetStateAction } from 'react';
import type { ContainerEngineEntry, ContainerNetworkMode } from '../../../src-preload/contract/containers';
import { useClient } from '../store';
import { emptyPlacementForm, readPlacementForm, type EngineFacts, type GpuChoice, type PlacementForm } from './placement-form';
import './containers.css';

/** The engines (and the chosen engine's images) once "In a container" is chosen: not before, so a host session never waits on Docker. */
export function useEngines(active: boolean, generation = 0): { engines: ContainerEngineEntry[] | null; error: string | null } {
  const client = useClient();
  const [engines, setEngines] = useState<ContainerEngineEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  // The generation last asked for: a form switched to "container" and back asks once, not each time
  // (an ssh engine's answer takes a handshake).
  const asked = useRef<number | null>(null);
  // Asked once active, and again at each new `generation` (a Test or an added engine).
  useEffect(() => {
    if (!active || asked.current === generation) return;
    asked.current = generation;
    setError(null);
    // Not cancelled on cleanup: the question is asked once per generation, so its answer is kept
    // (an unmounted form's state update is dropped by React).
    client.invoke('containers.engines.list', {}).then(
      (e) => asked.current === generation && setEngines(e),
      (e: unknown) => asked.current === generation && setError(e instanceof Error ? e.message : String(e)),
    );
  }, [active, client, generation]);
  return { engines, error };
}

/**
 * A placement form's state with the engines it needs (looked up once `active`), the first
 * engine that answers (the current one comes first) as the default, and the form read into a
 * placement (null while not active). Shared by every form that offers "in a container".
 */
export function usePlacementForm(active: boolean): {
  form: PlacementForm;
  setForm: Dispatch<SetStateAction<PlacementForm>>;
  engines: ContainerEngineEntry[] | null;
  enginesError: string | null;
  read: ReturnType<typeof readPlacementForm> | null;
} {
  const [form, setForm] = useState<PlacementForm>(() => emptyPlacementForm());
  const { engines, error } = useEngines(active);
  useEffect(() => {
    const first = engines?.find((e) => e.info)?.spec.name;
    if (first) setForm((f) => (f.engine ? f : { ...f, engine: first }));
  }, [engines]);
  const read = active ? readPlacementForm(form, engineFacts(engines, form.engine)) : null;
  return { form, setForm, engines, enginesError: error, read };
}

export function engineFacts(engines: ContainerEngineEntry[] | null, name: string): EngineFacts | null {
  const info = engines?.find((e) => e.spec.name === name)?.info;
  return info ? { cpus: info.cpus, memoryBytes: info.memoryBytes, nvidia: info.nvidia } : null;
}

/**
 * A session's container placement as fields: engine (unreachable ones say why and cannot be
 * chosen), image (the engine's local images offered), GPUs, limits and network. Messages
 * appear as the user types; the dialog starts only when every field fits.
 */
export function ContainerPlacementFields({ form, onChange, engines, enginesError }: { form: PlacementForm; onChange(f: PlacementForm): void; engines: ContainerEngineEntry[] | null; enginesError: string | null }) {
  const client = useClient();
  const [images, setImages] = useState<string[]>([]);
  const { errors, warning } = readPlacementForm(form, engineFacts(engines, form.engine));
  const set = (patch: Partial<PlacementForm>) => onChange({ ...form, ...patch });

  useEffect(() => {
    if (!form.engine || !engineFacts(engines, form.engine)) return;
    let live = true;
    client.invoke('containers.images.list', { engine: form.engine }).then(
      (list) => live && setImages(list.flatMap((i) => i.tags).filter((t) => t !== '<none>:<none>')),
      // The list only offers names; the image field still takes any reference.
      () => live && setImages([]),
    );
    return () => {
      live = false;
    };
  }, [client, engines, form.engine]);

  const help = (field: keyof typeof errors, normal: string) => (
    <span className={`field-help ${errors[field] ? 'error' : ''}`} id={`ctr-${field}-help`} data-testid={`ctr-${field}-help`}>
      {errors[field] ?? normal}
    </span>
  );
  const chosen = engines?.find((e) => e.spec.name === form.engine);

  return (
    <div className="ctr-fields" data-testid="container-fields">
      <label className="field">
        <span>Engine</span>
        {engines === null && !enginesError && <span className="muted small">Looking for Docker engines…</span>}
        {enginesError && (
          <span className="field-help error" role="alert">
            {enginesError}
          </span>
        )}
        {engines !== null && (
          <select className="input" value={form.engine} onChange={(e) => set({ engine: e.target.value })} aria-describedby="ctr-engine-help" data-testid="ctr-engine">
            <option value="">Choose an engine…</option>
            {engines.map((e) => (
              <option key={e.spec.name} value={e.spec.name} disabled={!e.info}>
                {e.info ? `${e.spec.name} — ${e.info.product} ${e.info.version}${e.info.local ? '' : ', remote'}` : `${e.spec.name} — not reachable`}
              </option>
            ))}
          </select>
        )}
        {engines !== null && (engines.length === 0 ? <span className="field-help error">No Docker engine found. Install Docker (or Podman) and start it, or add one in the Containers view.</span> : help('engine', chosen?.info ? `${chosen.info.cpus} CPUs · NVIDIA runtime: ${chosen.info.nvidia ? 'yes' : 'no'}` : ''))}
        {engines?.filter((e) => !e.info).map((e) => (
          <span key={e.spec.name} className="field-help small">
            {e.spec.name}: {e.error?.message}
          </span>
        ))}
      </label>
      <label className="field">
        <span>Image</span>
        <input className="input mono" list="ctr-images" value={form.image} onChange={(e) => set({ image: e.target.value })} aria-describedby="ctr-image-help" aria-invalid={!!errors.image} spellCheck={false} data-testid="ctr-image" />
        <datalist id="ctr-images">
          {images.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
        {help('image', 'A local image with a shell; Flightdeck never pulls one. Build the agent image in the Containers view.')}
      </label>
      <div className="ctr-row">
        <label className="field">
          <span>GPUs</span>
          <select className="input" value={form.gpus} onChange={(e) => set({ gpus: e.target.value as GpuChoice })} data-testid="ctr-gpus">
            <option value="none">None</option>
            <option value="all">All</option>
            <option value="count">A number of them</option>
            <option value="ids">These devices</option>
          </select>
        </label>
        {form.gpus === 'count' && (
          <label className="field">
            <span>How many</span>
            <input className="input" inputMode="numeric" value={form.gpuCount} onChange={(e) => set({ gpuCount: e.target.value })} aria-describedby="ctr-gpus-help" aria-invalid={!!errors.gpus} data-testid="ctr-gpu-count" />
          </label>
        )}
        {form.gpus === 'ids' && (
          <label className="field ctr-grow">
            <span>Device ids</span>
            <input className="input mono" placeholder="0,1 or GPU-…" value={form.gpuIds} onChange={(e) => set({ gpuIds: e.target.value })} aria-describedby="ctr-gpus-help" aria-invalid={!!errors.gpus} spellCheck={false} data-testid="ctr-gpu-ids" />
          </label>
        )}
        <label className="field">
          <span>Network</span>
          <select className="input" value={form.network} onChange={(e) => set({ network: e.target.value as ContainerNetworkMode })} data-testid="ctr-network">
            <option value="bridge">Bridge</option>
            <option value="host">Host</option>
            <option value="none">None</option>
          </select>
        </label>
      </div>
      {errors.gpus && help('gpus', '')}
      {warning && (
        <p className="placement-warning small" role="status" data-testid="ctr-gpu-warning">
          {warning}
        </p>
      )}
      <div className="ctr-row">
        <label className="field">
          <span>Memory</span>
          <input className="input" placeholder="8g" value={form.memory} onChange={(e) => set({ memory: e.target.value })} aria-describedby="ctr-memory-help" aria-invalid={!!errors.memory} data-testid="ctr-memory" />
          {help('memory', 'Default 8 GiB')}
        </label>
        <label className="field">
          <span>CPUs</span>
          <input className="input" inputMode="decimal" placeholder="4" value={form.cpus} onChange={(e) => set({ cpus: e.target.value })} aria-describedby="ctr-cpus-help" aria-invalid={!!errors.cpus} data-testid="ctr-cpus" />
          {help('cpus', 'Default 4')}
        </label>
        <label className="field">
          <span>Processes</span>
          <input className="input" inputMode="numeric" placeholder="4096" value={form.pids} onChange={(e) => set({ pids: e.target.value })} aria-describedby="ctr-pids-help" aria-invalid={!!errors.pids} data-testid="ctr-pids" />
          {help('pids', 'Default 4096')}
        </label>
      </div>
    </div>
  );
}
