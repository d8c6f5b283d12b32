import { useEffect, useState, type FormEvent } from 'react';
import type { BudgetLimit, BudgetSettings, BudgetUse } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';
import { usd } from '../lib/format';
import { limitProblem, parseUsd, type LimitDraft } from './budget-form';
import './budgets.css';

const toDraft = (l: BudgetLimit): LimitDraft => ({ warn: l.warnUsd === null ? '' : String(l.warnUsd), max: l.maxUsd === null ? '' : String(l.maxUsd) });
const fromDraft = (d: LimitDraft): BudgetLimit => ({ warnUsd: parseUsd(d.warn), maxUsd: parseUsd(d.max) });

function LimitFields({ id, label, help, draft, onChange }: { id: string; label: string; help: string; draft: LimitDraft; onChange(d: LimitDraft): void }) {
  const problem = limitProblem(draft);
  return (
    <div className="setting-row budget-row" data-testid={`budget-${id}`}>
      <div>
        <strong>{label}</strong>
        <p className="muted small">{help}</p>
        {problem && (
          <p className="error small" role="alert" data-testid={`budget-${id}-problem`}>
            {problem}
          </p>
        )}
      </div>
      <div className="budget-fields">
        <label className="small">
          Warn at $
          <input className="input narrow" inputMode="decimal" placeholder="none" aria-invalid={problem !== null} value={draft.warn} onChange={(e) => onChange({ ...draft, warn: e.target.value })} data-testid={`budget-${id}-warn`} />
        </label>
        <label className="small">
          Stop at $
          <input className="input narrow" inputMode="decimal" placeholder="none" aria-invalid={problem !== null} value={draft.max} onChange={(e) => onChange({ ...draft, max: e.target.value })} data-testid={`budget-${id}-max`} />
        </label>
      </div>
    </div>
  );
}

/**
 * Settings → Budgets: how much model calls may cost per day, for everything and per project
 * (a warning level and a maximum each), today's spend against them, and how many features run
 * at once. Raising a maximum lets refused calls go ahead again at once.
 */
export function BudgetsPanel() {
  const client = useClient();
  const projects = useAppStore((s) => s.projects);
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const [saved, setSaved] = useState<BudgetSettings | null>(null);
  const [global, setGlobal] = useState<LimitDraft>({ warn: '', max: '' });
  const [perProject, setPerProject] = useState<LimitDraft>({ warn: '', max: '' });
  const [overrides, setOverrides] = useState<Record<string, LimitDraft>>({});
  const [uses, setUses] = useState<BudgetUse[]>([]);
  const [parallel, setParallel] = useState('');
  const [savedParallel, setSavedParallel] = useState<number | null>(null);
  // The fields take input only once what they edit has arrived: a load that ended after the
  // user typed replaced the typed value, and its baseline made Save skip the change.
  const [parallelLoad, setParallelLoad] = useState<'loading' | 'ready' | 'failed'>('loading');
  const [busy, setBusy] = useState(false);

  useEffect(() => {
    // Answers after the panel went (or, in development, after StrictMode's second mount asked again) are not applied.
    let live = true;
    const load = (b: BudgetSettings) => {
      if (!live) return;
      setSaved(b);
      setGlobal(toDraft(b.globalDaily));
      setPerProject(toDraft(b.projectDaily));
      setOverrides(Object.fromEntries(Object.entries(b.projectOverrides).map(([k, v]) => [k, toDraft(v)])));
    };
    client.invoke('budgets.get', {}).then(load, (e: unknown) => live && toastError('Could not read the budgets', e));
    client.invoke('budgets.status', {}).then((r) => live && setUses(r.uses), () => undefined);
    client.invoke('featureRuns.settings.get', {}).then(
      (r) => {
        if (!live) return;
        setParallel(String(r.maxParallel));
        setSavedParallel(r.maxParallel);
        setParallelLoad('ready');
      },
      (e: unknown) => {
        if (!live) return;
        setParallelLoad('failed');
        toastError('Could not read how many features run at once', e);
      },
    );
    const off = client.on('budgets.changed', ({ uses: u }) => setUses(u));
    return () => {
      live = false;
      off();
    };
  }, [client, toastError]);

  const drafts = [global, perProject, ...Object.values(overrides)];
  const parallelN = Number(parallel);
  const parallelProblem = parallelLoad !== 'ready' || (Number.isInteger(parallelN) && parallelN >= 1 && parallelN <= 32) ? null : 'a whole number from 1 to 32';
  const invalid = drafts.some((d) => limitProblem(d) !== null) || parallelProblem !== null;
  const unused = projects.filter((p) => !(p.id in overrides));
  const canSave = saved !== null || parallelLoad === 'ready';

  const onSubmit = async (e: FormEvent) => {
    e.preventDefault();
    if (invalid || !canSave) return;
    setBusy(true);
    try {
      // Budgets that could not be read are not written (over limits the user never saw).
      if (saved) {
        const next = await client.invoke('budgets.update', {
          globalDaily: fromDraft(global),
          projectDaily: fromDraft(perProject),
          projectOverrides: Object.fromEntries(Object.entries(overrides).map(([k, d]) => [k, fromDraft(d)])),
        });
        setSaved(next);
      }
      if (parallelLoad === 'ready' && parallelN !== savedParallel) setSavedParallel((await client.invoke('featureRuns.settings.update', { maxParallel: parallelN })).maxParallel);
      setUses((await client.invoke('budgets.status', {})).uses);
      toast({ level: 'success', title: 'Budgets saved' });
    } catch (err) {
      toastError('Could not save the budgets', err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form className="panel" onSubmit={(e) => void onSubmit(e)} data-testid="budgets-panel" aria-label="Budgets">
      <h3>Budgets and parallel runs</h3>
      <p className="muted small">
        Per calendar day. At the warning level you get a notice; at the maximum new model calls are refused (sessions and feature runs alike) until you raise it or the day ends. Leave a field empty for no limit.
      </p>
      <fieldset className="budgets-fields" disabled={!saved} aria-busy={!saved}>
        <LimitFields id="global" label="Everything" help="All projects and sessions together." draft={global} onChange={setGlobal} />
        <LimitFields id="project" label="Each project" help="The default for every project." draft={perProject} onChange={setPerProject} />
        {Object.entries(overrides).map(([id, d]) => (
          <div key={id} className="budget-override">
            <LimitFields id={`override-${id}`} label={projects.find((p) => p.id === id)?.name ?? id} help="This project only (instead of the default)." draft={d} onChange={(n) => setOverrides((o) => ({ ...o, [id]: n }))} />
            <button
              type="button"
              className="link small"
              onClick={() =>
                setOverrides((o) => {
                  const { [id]: _removed, ...rest } = o;
                  return rest;
                })
              }
            >
              Use the default for this project
            </button>
          </div>
        ))}
        {unused.length > 0 && (
          <label className="small budget-add">
            Set a budget for one project:{' '}
            <select
              className="input"
              value=""
              data-testid="budget-add-project"
              onChange={(e) => {
                const id = e.target.value;
                if (id) setOverrides((o) => ({ ...o, [id]: { warn: '', max: '' } }));
              }}
            >
              <option value="">Choose a project…</option>
              {unused.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        )}
      </fieldset>
      <div className="setting-row">
        <div>
          <strong>Features running at once</strong>
          <p className="muted small">More wait in a visible queue.</p>
          {parallelProblem && (
            <p className="error small" role="alert">
              Must be {parallelProblem}.
            </p>
          )}
        </div>
        <input className="input narrow" inputMode="numeric" aria-label="Features running at once" aria-invalid={parallelProblem !== null} disabled={parallelLoad !== 'ready'} placeholder={parallelLoad === 'failed' ? 'unknown' : ''} value={parallel} onChange={(e) => setParallel(e.target.value)} data-testid="max-parallel" />
      </div>
      {uses.length > 0 && (
        <ul className="budget-uses small" data-testid="budget-uses">
          {uses.map((u) => (
            <li key={`${u.scope}-${u.projectId ?? ''}`} className={`budget-use state-${u.state}`}>
              {u.scope === 'global' ? 'Everything' : (projects.find((p) => p.id === u.projectId)?.name ?? 'A project')} today: {usd(u.spentUsd)}
              {u.maxUsd !== null ? ` of ${usd(u.maxUsd)}` : ''}
              {u.state === 'exceeded' ? ' — maximum reached: new model calls are refused' : u.state === 'warning' ? ' — past the warning level' : ''}
            </li>
          ))}
        </ul>
      )}
      <div className="budgets-actions">
        <button type="submit" className="button primary" disabled={busy || invalid || !canSave} data-testid="budgets-save">
          Save budgets
        </button>
      </div>
    </form>
  );
}
