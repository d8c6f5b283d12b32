import { useEffect, useState } from 'react';
import { MAX_CANDIDATES, type CandidateBudget, type CandidateSpec, type RunPlacement } from '../../../src-preload/contract';
import { useClient } from '../store';
import { usd } from '../lib/format';

/** The Start dialog's best-of-N part: how many candidates, each one's agent and placement, and the budget. */
export interface CandidatesForm {
  /** 1: a single run of the feature (no candidates). */
  count: number;
  rows: Array<{ executor: '' | 'builtin' | 'claude-code'; model: string; profile: string; where: 'chosen' | 'host' }>;
  budget: 'split' | 'each';
  eachUsd: string;
}

export function initialCandidates(): CandidatesForm {
  return { count: 1, rows: Array.from({ length: MAX_CANDIDATES }, () => ({ executor: '', model: '', profile: '', where: 'chosen' })), budget: 'split', eachUsd: '' };
}

/** The candidates' specs from the form; `chosen` is where the dialog says the run works. */
export function specsOf(f: CandidatesForm, chosen: RunPlacement): CandidateSpec[] {
  return f.rows.slice(0, f.count).map((r) => ({
    ...(r.executor ? { executor: r.executor } : {}),
    ...(r.model.trim() ? { model: r.model.trim() } : {}),
    ...(r.profile.trim() ? { profile: r.profile.trim() } : {}),
    placement: r.where === 'host' ? { kind: 'host' } : chosen,
  }));
}

/** Null while "each" has no valid amount. */
export function budgetOf(f: CandidatesForm): CandidateBudget | null {
  if (f.budget === 'split') return { mode: 'split' };
  const usdEach = Number(f.eachUsd);
  return usdEach > 0 ? { mode: 'each', usd: usdEach } : null;
}

/** How long the form waits after an edit before it asks what the budgets come to. */
const PREVIEW_DEBOUNCE_MS = 300;

export function CandidatesFields({ projectId, slug, form, onChange, placement }: { projectId: string; slug: string; form: CandidatesForm; onChange(f: CandidatesForm): void; placement: RunPlacement | null }) {
  const client = useClient();
  const [preview, setPreview] = useState<{ text: string; problem: boolean } | null>(null);
  const budget = budgetOf(form);
  const specs = placement ? specsOf(form, placement) : null;
  const key = JSON.stringify({ specs, budget });
  useEffect(() => {
    if (form.count < 2 || !specs) return setPreview(null);
    if (!budget) return setPreview({ text: 'Give each candidate a budget above $0.', problem: true });
    let live = true;
    const t = setTimeout(() => {
      client.invoke('featureCandidates.start', { projectId, slug, candidates: specs, budget, confirm: false }).then(
        (r) => live && setPreview({ text: `Each candidate may spend ${usd(r.candidates[0]?.budgetUsd ?? 0)}, ${usd(r.totalBudgetUsd)} in all. Branches ${r.candidates.map((c) => c.branch).join(', ')}.`, problem: false }),
        (e: unknown) => live && setPreview({ text: e instanceof Error ? e.message : String(e), problem: true }),
      );
    }, PREVIEW_DEBOUNCE_MS);
    return () => {
      live = false;
      clearTimeout(t);
    };
    // `key` stands for specs and budget (new objects at every render).
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [client, projectId, slug, key, form.count]);
  const row = (i: number, patch: Partial<CandidatesForm['rows'][number]>) => onChange({ ...form, rows: form.rows.map((r, j) => (j === i ? { ...r, ...patch } : r)) });
  return (
    <fieldset className="candidates-fields" aria-label="Candidates" data-testid="candidates-fields">
      <label>
        Try it with{' '}
        <select value={form.count} onChange={(e) => onChange({ ...form, count: Number(e.target.value) })} data-testid="candidates-count">
          <option value={1}>one run</option>
          {Array.from({ length: MAX_CANDIDATES - 1 }, (_, i) => i + 2).map((n) => (
            <option key={n} value={n}>
              {n} candidates
            </option>
          ))}
        </select>
      </label>
      {form.count > 1 && (
        <>
          <p className="muted small">Each candidate runs the approved plan in its own worktree and branch; compare them when they finish and pick one to deliver.</p>
          <table className="table candidates-form-table">
            <thead>
              <tr>
                <th>Candidate</th>
                <th>Executor</th>
                <th>Model</th>
                <th>Profile</th>
                <th>Where</th>
              </tr>
            </thead>
            <tbody>
              {form.rows.slice(0, form.count).map((r, i) => (
                <tr key={i} data-testid={`candidate-row-${i + 1}`}>
                  <td>c{i + 1}</td>
                  <td>
                    <select aria-label={`c${i + 1} executor`} value={r.executor} onChange={(e) => row(i, { executor: e.target.value as CandidatesForm['rows'][number]['executor'] })}>
                      <option value="">as approved</option>
                      <option value="builtin">built-in loop</option>
                      <option value="claude-code">Claude Code</option>
                    </select>
                  </td>
                  <td>
                    <input aria-label={`c${i + 1} model`} value={r.model} placeholder="as approved" onChange={(e) => row(i, { model: e.target.value })} />
                  </td>
                  <td>
                    <input aria-label={`c${i + 1} profile`} value={r.profile} placeholder="as approved" onChange={(e) => row(i, { profile: e.target.value })} />
                  </td>
                  <td>
                    <select aria-label={`c${i + 1} placement`} value={r.where} onChange={(e) => row(i, { where: e.target.value as 'chosen' | 'host' })}>
                      <option value="chosen">as chosen above</option>
                      <option value="host">on this machine</option>
                    </select>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          <div className="candidates-budget">
            <label>
              <input type="radio" name="candidates-budget" checked={form.budget === 'split'} onChange={() => onChange({ ...form, budget: 'split' })} /> Split the feature&apos;s run budget
            </label>{' '}
            <label>
              <input type="radio" name="candidates-budget" checked={form.budget === 'each'} onChange={() => onChange({ ...form, budget: 'each' })} /> Each may spend $
              <input aria-label="Budget of each candidate (USD)" className="candidates-each" inputMode="decimal" value={form.eachUsd} disabled={form.budget !== 'each'} onChange={(e) => onChange({ ...form, eachUsd: e.target.value })} />
            </label>
          </div>
          {preview && (
            <p className={`small ${preview.problem ? 'error' : 'muted'}`} role={preview.problem ? 'alert' : 'status'} data-testid="candidates-preview">
              {preview.text}
            </p>
          )}
        </>
      )}
    </fieldset>
  );
}
