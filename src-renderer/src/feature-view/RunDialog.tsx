import { useEffect, useState, type FormEvent } from 'react';
import type { RunPlacement } from '../../../src-preload/contract';
import { Modal } from '../components/Modal';
import { ContainerPlacementFields, engineFacts, useEngines } from '../containers/ContainerPlacementFields';
import { emptyPlacementForm, readPlacementForm, type PlacementForm } from '../containers/placement-form';

/**
 * Before a feature runs: where its agent works — on this machine (the default, in its sandbox)
 * or in a container (engine, image, GPUs, limits, network). The choice holds for this run; the
 * feature's state file may carry a default (agent.placement).
 */
export function RunDialog({ title, onStart, onClose }: { title: string; onStart(placement: RunPlacement): Promise<void>; onClose(): void }) {
  const [runsOn, setRunsOn] = useState<'host' | 'container'>('host');
  const [form, setForm] = useState<PlacementForm>(() => emptyPlacementForm());
  const [busy, setBusy] = useState(false);
  const { engines, error } = useEngines(runsOn === 'container');
  useEffect(() => {
    const first = engines?.find((e) => e.info)?.spec.name;
    if (first) setForm((f) => (f.engine ? f : { ...f, engine: first }));
  }, [engines]);
  const container = runsOn === 'container' ? readPlacementForm(form, engineFacts(engines, form.engine)) : null;
  const ready = !busy && (container === null || container.placement !== null);
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!ready) return;
    setBusy(true);
    try {
      await onStart(container?.placement ? { kind: 'container', ...container.placement } : { kind: 'host' });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Modal
      title={title}
      onClose={onClose}
      onSubmit={() => void submit()}
      testId="run-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form="run-dialog-form" className="button primary" disabled={!ready} data-testid="run-dialog-start">
            {title}
          </button>
        </>
      }
    >
      <form id="run-dialog-form" className="placement-form" onSubmit={(e) => void submit(e)}>
        <fieldset className="placement-options" aria-label="Where the agent works">
          <label className={`placement-choice ${runsOn === 'host' ? 'selected' : ''}`} data-testid="run-on-host">
            <input type="radio" name="run-on" value="host" checked={runsOn === 'host'} onChange={() => setRunsOn('host')} />
            <span>
              <strong>On this machine</strong>
              <span className="placement-help muted small">The agent works in the feature&apos;s worktree, in its sandbox.</span>
            </span>
          </label>
          <label className={`placement-choice ${runsOn === 'container' ? 'selected' : ''}`} data-testid="run-on-container">
            <input type="radio" name="run-on" value="container" checked={runsOn === 'container'} onChange={() => setRunsOn('container')} />
            <span>
              <strong>In a container</strong>
              <span className="placement-help muted small">The agent&apos;s commands run in a Docker container with the worktree mounted; checks still run here.</span>
            </span>
          </label>
          {runsOn === 'container' && <ContainerPlacementFields form={form} onChange={setForm} engines={engines} enginesError={error} />}
        </fieldset>
      </form>
    </Modal>
  );
}
