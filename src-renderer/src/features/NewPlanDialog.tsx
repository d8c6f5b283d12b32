import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { FeatureExecutor } from '../../../src-preload/contract/features';
import type { ForgeIssue } from '../../../src-preload/contract/issues';
import { Modal } from '../components/Modal';
import { useAppStore, useClient } from '../store';

/**
 * "Plan a feature": a slug and who plays the Planner. The slug rule is main's (the same as a
 * worktree's folder and branch), so its refusal is shown under the field word for word rather
 * than a second copy of the rule being checked here.
 */
export function NewPlanDialog({
  projectId: initialProject,
  projects,
  onClose,
  fromIssue = false,
}: {
  projectId: string;
  /** Offered as a choice when the dialog is opened away from a project (the board). */
  projects?: ReadonlyArray<{ id: string; name: string }>;
  onClose(): void;
  fromIssue?: boolean;
}) {
  const client = useClient();
  const [projectId, setProjectId] = useState(initialProject);
  const upsertDraft = useAppStore((s) => s.upsertDraft);
  const setView = useAppStore((s) => s.setView);
  const [source, setSource] = useState<'describe' | 'issue'>(fromIssue ? 'issue' : 'describe');
  const [slug, setSlug] = useState('');
  const [executor, setExecutor] = useState<FeatureExecutor>('builtin');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  // The filter the list is asked with (applied on Enter or leaving a field); one copy, here.
  const [filter, setFilter] = useState<IssueFilter>({ label: '', assignee: '' });
  const issues = useIssues(projectId, source === 'issue', filter);
  const [picked, setPicked] = useState<number | null>(null);
  const ready = source === 'issue' ? picked !== null : slug.trim() !== '';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!ready || busy) return;
    setBusy(true);
    setError(null);
    try {
      const { draft } =
        source === 'issue'
          ? await client.invoke('features.plan.fromIssue', { projectId, issue: String(picked), executor, ...(slug.trim() ? { slug: slug.trim() } : {}) })
          : await client.invoke('features.plan.start', { projectId, slug: slug.trim(), executor });
      upsertDraft(draft);
      onClose();
      setView({ name: 'plan', draftId: draft.id, screen: 'chat' });
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Modal
      title="Plan a feature"
      onClose={onClose}
      testId="new-plan-dialog"
      footer={
        <>
          <button type="button" className="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" form="new-plan-form" className="button primary" disabled={busy || !ready} data-testid="start-plan">
            {busy ? 'Starting…' : 'Start planning'}
          </button>
        </>
      }
    >
      <form id="new-plan-form" className="form" onSubmit={(e) => void submit(e)}>
        {projects && projects.length > 1 && (
          <label className="field">
            Project
            <select className="input" value={projectId} onChange={(e) => (setProjectId(e.target.value), setPicked(null))} data-testid="plan-project">
              {projects.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name}
                </option>
              ))}
            </select>
          </label>
        )}
        <div className="segmented" role="radiogroup" aria-label="Start from">
          {(['describe', 'issue'] as const).map((x) => (
            <button type="button" key={x} role="radio" aria-checked={source === x} className={source === x ? 'active' : ''} onClick={() => setSource(x)} data-testid={`plan-source-${x}`}>
              {x === 'describe' ? 'Describe it' : 'From a GitHub issue'}
            </button>
          ))}
        </div>
        {source === 'issue' && <IssueList state={issues} filter={filter} onFilter={setFilter} picked={picked} onPick={setPicked} />}
        <label className="field">
          {source === 'issue' ? 'Feature slug (optional)' : 'Feature slug'}
          <input
            className={`input mono ${error ? 'invalid' : ''}`}
            value={slug}
            onChange={(e) => {
              setSlug(e.target.value);
              setError(null);
            }}
            placeholder={source === 'issue' ? 'named after the issue' : 'add-user-auth'}
            autoFocus={source === 'describe'}
            spellCheck={false}
            aria-invalid={error !== null}
            aria-describedby="plan-slug-help"
            data-testid="plan-slug-input"
          />
          <span id="plan-slug-help" className={`field-help ${error ? 'error' : ''}`} role={error ? 'alert' : undefined} data-testid="plan-slug-help">
            {error ?? (source === 'issue' ? "Left empty, the issue's title and number name it. The issue's text and comments are the Planner's first message, and the pull request closes the issue." : 'Names the worktree folder and the branch: lowercase letters and digits, single hyphens.')}
          </span>
        </label>
        <fieldset className="field plan-fieldset">
          <legend>Planner runs on</legend>
          <div className="segmented" role="radiogroup" aria-label="Planner runs on">
            {(['builtin', 'claude-code'] as const).map((x) => (
              <button type="button" key={x} role="radio" aria-checked={executor === x} className={executor === x ? 'active' : ''} onClick={() => setExecutor(x)}>
                {x === 'builtin' ? 'Built-in agent' : 'Claude Code'}
              </button>
            ))}
          </div>
        </fieldset>
        <p className="muted small">
          You chat with the Planner (it only reads the repository). When the design is clear, <code>/approve</code> writes the design spec and the
          verification plan for you to review; nothing is written to the repository before you approve.
        </p>
      </form>
    </Modal>
  );
}

interface IssueFilter {
  label: string;
  assignee: string;
}

type IssuesState = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; issues: ForgeIssue[] };

/** The project's open issues through gh, asked again when the filter changes or on Try again. */
function useIssues(projectId: string, enabled: boolean, filter: IssueFilter): IssuesState & { retry(): void } {
  const client = useClient();
  const [state, setState] = useState<IssuesState>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  const label = filter.label.trim();
  const assignee = filter.assignee.trim();
  useEffect(() => {
    if (!enabled) return;
    let live = true;
    setState({ status: 'loading' });
    client
      .invoke('issues.list', { projectId, ...(label ? { label } : {}), ...(assignee ? { assignee } : {}) })
      .then((r) => live && setState({ status: 'ready', issues: r.issues }))
      .catch((e: unknown) => live && setState({ status: 'error', message: e instanceof Error ? e.message : String(e) }));
    return () => {
      live = false;
    };
  }, [client, projectId, enabled, label, assignee, attempt]);
  const retry = useCallback(() => setAttempt((n) => n + 1), []);
  return { ...state, retry };
}

/** The filter fields (typed freely, applied on Enter or leaving a field, in any state of the list) and the list. */
function IssueList({ state, filter, onFilter, picked, onPick }: { state: IssuesState & { retry(): void }; filter: IssueFilter; onFilter(f: IssueFilter): void; picked: number | null; onPick(n: number): void }) {
  const [typed, setTyped] = useState(filter);
  const apply = () => (typed.label !== filter.label || typed.assignee !== filter.assignee) && onFilter(typed);
  return (
    <div className="issue-picker" data-testid="issue-picker">
      <div className="issue-filters">
        <input className="input" placeholder="Label" aria-label="Filter by label" value={typed.label} onChange={(e) => setTyped({ ...typed, label: e.target.value })} onBlur={apply} onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), apply())} data-testid="issue-label" />
        <input className="input" placeholder="Assignee" aria-label="Filter by assignee" value={typed.assignee} onChange={(e) => setTyped({ ...typed, assignee: e.target.value })} onBlur={apply} onKeyDown={(e) => e.key === 'Enter' && (e.preventDefault(), apply())} data-testid="issue-assignee" />
      </div>
      {state.status === 'loading' && <p className="muted small">Loading open issues…</p>}
      {state.status === 'error' && (
        <p className="field-help error" role="alert" data-testid="issues-error">
          {state.message}{' '}
          <button type="button" className="link link-inline" onClick={state.retry}>
            Try again
          </button>
        </p>
      )}
      {state.status === 'ready' && state.issues.length === 0 && <p className="muted small">No open issues{filter.label.trim() || filter.assignee.trim() ? ' match' : ''}.</p>}
      {state.status === 'ready' && state.issues.length > 0 && (
        <ul className="issue-list" role="radiogroup" aria-label="Open issues">
          {state.issues.map((i) => (
            <li key={i.number}>
              <label className={`issue-row ${picked === i.number ? 'active' : ''}`} data-testid="issue-row">
                <input type="radio" name="issue" checked={picked === i.number} onChange={() => onPick(i.number)} />
                <span className="mono muted">#{i.number}</span>
                <span className="truncate" title={i.title}>
                  {i.title}
                </span>
                {i.labels.map((l) => (
                  <span key={l} className="badge">
                    {l}
                  </span>
                ))}
              </label>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

