import { useEffect, useRef, useState, type FormEvent } from 'react';
import type { RunPlacement } from '../../../src-preload/contract';
import { Modal } from '../components/Modal';
import { ContainerPlacementFields, usePlacementForm } from '../containers/ContainerPlacementFields';
import type { PlacementForm } from '../containers/placement-form';
import { useClient } from '../store';
import { formOfPlacement, originText } from './run-placement';
import { budgetOf, CandidatesFields, initialCandidates, specsOf } from './CandidatesFields';
import type { CandidateBudget, CandidateSpec } from '../../../src-preload/contract';

/**
 * Before a feature runs: where its agent works — on this machine (the default, in its sandbox)
 * or in a container (engine, image, GPUs, limits, network). The choice holds for this run. It
 * starts from the feature's default (agent.placement in its state.yml, over the project's in
 * .flightdeck/config.yml) and says where that came from.
 */
export function RunDialog({
  title,
  projectId,
  slug,
  onStart,
  onClose,
  onStartCandidates,
}: {
  title: string;
  projectId: string;
  slug: string;
  onStart(placement: RunPlacement): Promise<void>;
  onClose(): void;
  /** Offered for a planned feature: 2–5 candidates of its plan instead of one run (best-of-N). */
  onStartCandidates?: (candidates: CandidateSpec[], budget: CandidateBudget) => Promise<void>;
}) {
  const client = useClient();
  const [runsOn, setRunsOn] = useState<'host' | 'container'>('host');
  const { form, setForm, engines, enginesError: error, read: container } = usePlacementForm(runsOn === 'container');
  const [busy, setBusy] = useState(false);
  /** Where the prefilled choice came from, or why the default could not be read. */
  const [origin, setOrigin] = useState<{ text: string; problem: boolean } | null>(null);
  /** Once the user changed the choice, a default arriving late does not overwrite it. */
  const touched = useRef(false);
  useEffect(() => {
    let live = true;
    client.invoke('featureRuns.defaultPlacement', { projectId, slug }).then(
      (d) => {
        if (!live) return;
        setOrigin({ text: originText(d.from), problem: false });
        if (touched.current) return;
        const prefill = formOfPlacement(d.placement);
        setRunsOn(prefill.runsOn);
        // A default without an engine takes the first engine that answers, as the form does.
        setForm((f) => ({ ...prefill.form, engine: prefill.form.engine || f.engine }));
      },
      // The run itself refuses a broken state file or config with the same message; the user can still choose here.
      (e: unknown) => live && setOrigin({ text: `The default placement could not be read: ${e instanceof Error ? e.message : String(e)}`, problem: true }),
    );
    return () => {
      live = false;
    };
  }, [client, projectId, slug, setForm]);
  const choose = (where: 'host' | 'container') => ((touched.current = true), setRunsOn(where));
  const edit = (f: PlacementForm) => ((touched.current = true), setForm(f));
  const [cands, setCands] = useState(initialCandidates);
  const chosen: RunPlacement | null = container === null ? { kind: 'host' } : container.placement ? { kind: 'container', ...container.placement } : null;
  const several = onStartCandidates !== undefined && cands.count > 1;
  const ready = !busy && chosen !== null && (!several || budgetOf(cands) !== null);
  const submit = async (e?: FormEvent) => {
    e?.preventDefault();
    if (!ready) return;
    setBusy(true);
    try {
      if (several && chosen) await onStartCandidates!(specsOf(cands, chosen), budgetOf(cands)!);
      else await onStart(container?.placement ? { kind: 'container', ...container.placement } : { kind: 'host' });
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
            {several ? `Start ${cands.count} candidates` : title}
          </button>
        </>
      }
    >
      <form id="run-dialog-form" className="placement-form" onSubmit={(e) => void submit(e)}>
        {origin && (
          <p className={`small ${origin.problem ? 'error' : 'muted'}`} role={origin.problem ? 'alert' : undefined} data-testid="run-dialog-default">
            {origin.text}
          </p>
        )}
        <fieldset className="placement-options" aria-label="Where the agent works">
          <label className={`placement-choice ${runsOn === 'host' ? 'selected' : ''}`} data-testid="run-on-host">
            <input type="radio" name="run-on" value="host" checked={runsOn === 'host'} onChange={() => choose('host')} />
            <span>
              <strong>On this machine</strong>
              <span className="placement-help muted small">The agent works in the feature&apos;s worktree, in its sandbox.</span>
            </span>
          </label>
          <label className={`placement-choice ${runsOn === 'container' ? 'selected' : ''}`} data-testid="run-on-container">
            <input type="radio" name="run-on" value="container" checked={runsOn === 'container'} onChange={() => choose('container')} />
            <span>
              <strong>In a container</strong>
              <span className="placement-help muted small">The agent&apos;s commands run in a Docker container with the worktree mounted; checks still run here.</span>
            </span>
          </label>
          {runsOn === 'container' && <ContainerPlacementFields form={form} onChange={edit} engines={engines} enginesError={error} />}
        </fieldset>
        {onStartCandidates && <CandidatesFields projectId={projectId} slug={slug} form={cands} onChange={setCands} placement={chosen} />}
      </form>
    </Modal>
  );
}
