import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { SetupFilesOffer } from './SetupFilesOffer';
import type { Delivery, FeatureDetail, FeatureRunEvent, FeatureRunInfo } from '../../../src-preload/contract';
import type { FeatureDiff } from '../../../src-preload/contract/feature-review';
import { useAppStore, useClient } from '../store';
import { Missing } from '../components/Missing';
import { TrustLine } from '../components/TrustLine';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Modal } from '../components/Modal';
import { ChangesPanel } from '../changes/ChangesPanel';
import type { DiffCommenting } from '../changes/diff-comments';
import { ReviewCommentList } from '../changes/ReviewCommentList';
import type { ReviewComment } from '../../../src-preload/contract/review-comments';
import { shortPath, usd } from '../lib/format';
import { deliveryOf, duration, featureHistory, mergeEvents, phaseFigures, pipelineChips, type FeatureHistory } from './feature-model';
import { FeatureTimeline } from './FeatureTimeline';
import { RunDialog } from './RunDialog';
import { CandidatesPanel } from './CandidatesPanel';
import { PrEvents, PrPanel, usePrStatus } from './PrPanel';
import './feature-view.css';
import { usePageVisible } from '../lib/use-page-visible';

type Tab = 'overview' | 'changes' | 'timeline';
const TABS: Array<{ id: Tab; label: string }> = [
  { id: 'overview', label: 'Overview' },
  { id: 'changes', label: 'Changes' },
  { id: 'timeline', label: 'Timeline' },
];
/**
 * How long the page waits for a feature's status and runs before it says they did not come:
 * reading one state file and its run history takes well under a second; on a loaded machine a
 * few seconds. Past this something is stuck, and the user gets the reason and Retry.
 */
const LOAD_DEADLINE_MS = 20_000;
/** While the agent works, the branch diff is read again this often (git on a worktree is cheap). */
const LIVE_DIFF_MS = 4_000;
const ACTIVE_RUN = new Set(['queued', 'running']);

/** The feature's status, its runs and their events, kept current from the bridge's events. */
function useFeature(projectId: string, slug: string) {
  const client = useClient();
  const project = useAppStore((s) => s.projects.find((p) => p.id === projectId));
  const [detail, setDetail] = useState<FeatureDetail | null>(null);
  const [runs, setRuns] = useState<FeatureRunInfo[]>([]);
  const [events, setEvents] = useState<FeatureRunEvent[]>([]);
  const [error, setError] = useState<string | null>(null);
  /** What is being read while nothing was shown yet, for the loading line. */
  const [loading, setLoading] = useState<string | null>('its state file and runs');
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  const fetched = useRef(new Set<string>());

  useEffect(() => {
    let live = true;
    // A read that never answers must not leave the page on "Loading…": past the deadline it says so.
    const deadline = setTimeout(() => {
      if (!live) return;
      setLoading(null);
      setError(`${slug} did not load within ${LOAD_DEADLINE_MS / 1000} s (its state file and runs were still being read). The host may be busy: try again.`);
    }, LOAD_DEADLINE_MS);
    (async () => {
      try {
        const [d, h] = await Promise.all([client.invoke('features.status', { projectId, slug }), client.invoke('featureRuns.history', { projectId, slug })]);
        if (live) setLoading('the events of its runs');
        // A run's stored events are read once; after that its events arrive live (featureRuns.event).
        const fresh = h.runs.filter((r) => !fetched.current.has(r.id));
        const stored = (await Promise.all(fresh.map((r) => client.invoke('featureRuns.events', { runId: r.id, fromSeq: 1 })))).flatMap((x) => x.events);
        if (!live) return;
        for (const r of fresh) fetched.current.add(r.id);
        setDetail(d);
        setRuns(h.runs);
        setEvents((prev) => mergeEvents(prev, stored));
        setError(null);
        setLoading(null);
      } catch (e) {
        if (live) {
          setError(`Could not load ${slug}: ${e instanceof Error ? e.message : String(e)}`);
          setLoading(null);
        }
      } finally {
        clearTimeout(deadline);
      }
    })();
    return () => {
      live = false;
      clearTimeout(deadline);
    };
  }, [client, projectId, slug, generation]);

  useEffect(() => {
    const offs = [
      client.on('featureRuns.event', (e) => {
        if (e.slug !== slug || (project && e.projectPath !== project.path)) return;
        setEvents((prev) => mergeEvents(prev, [e]));
        // Phase boundaries and the end change the state file: read the status again.
        if (e.data.type === 'PhaseCompleted' || e.data.type === 'RunFinished' || e.data.type === 'RunStarting' || e.data.type === 'PhaseStarting') reload();
      }),
      client.on('featureRuns.changed', ({ runs: all }) => {
        const mine = all.filter((r) => r.slug === slug && (!project || r.projectPath === project.path));
        if (mine.length > 0) setRuns((prev) => [...mine, ...prev.filter((p) => !mine.some((m) => m.id === p.id))].sort((a, b) => b.queuedAt - a.queuedAt));
      }),
      client.on('features.changed', ({ repoRoot }) => {
        if (!project || repoRoot === project.path) reload();
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [client, slug, project, reload]);

  return { project, detail, runs, events, error, loading, reload };
}

export function FeatureView({ projectId, slug }: { projectId: string; slug: string }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const setView = useAppStore((s) => s.setView);
  const { project, detail, runs: allRuns, events: allEvents, error, loading, reload } = useFeature(projectId, slug);
  // Best-of-N candidates' runs are shown by the candidates panel, not as runs of the feature.
  const runs = useMemo(() => allRuns.filter((r) => !r.candidate), [allRuns]);
  const candidateRuns = useMemo(() => allRuns.filter((r) => r.candidate), [allRuns]);
  const events = useMemo(() => {
    const ids = new Set(candidateRuns.map((r) => r.id));
    return allEvents.filter((e) => !e.candidate && !ids.has(e.runId));
  }, [allEvents, candidateRuns]);
  const candidatesActive = candidateRuns.some((r) => ACTIVE_RUN.has(r.status));
  const [tab, setTab] = useState<Tab>('overview');
  const [confirm, setConfirm] = useState<null | 'run' | 'cancel' | 'merge' | 'discard'>(null);
  const [pushed, setPushed] = useState<FeaturePushed | null>(null);
  const [busy, setBusy] = useState(false);
  const history = useMemo(() => featureHistory(events), [events]);
  const latest = runs[0] ?? null;
  const active = latest !== null && ACTIVE_RUN.has(latest.status);
  const tabRefs = useRef<Array<HTMLButtonElement | null>>([]);
  const projectsLoaded = useAppStore((s) => s.projectsLoaded);
  // A PR Flightdeck follows is merged there (its panel's Merge), never locally beside it.
  const followedPr = usePrStatus(projectId, slug).status?.follow ?? null;
  const prOpen = followedPr !== null && followedPr.status !== 'merged' && followedPr.status !== 'closed' && followedPr.status !== 'stopped';

  if (!project) return <Missing what="Project" loaded={projectsLoaded} verb="removed" />;

  const act = async (title: string, what: () => Promise<unknown>) => {
    setBusy(true);
    try {
      await what();
      toast({ level: 'success', title });
    } catch (e) {
      toastError(`Could not ${title.toLowerCase()}`, e);
    } finally {
      setBusy(false);
      reload();
    }
  };

  const state = detail?.state ?? null;
  const status = state?.status ?? detail?.feature.status ?? null;
  // A planned feature with candidate runs has its candidates open: it goes on by a pick, not by a run of its own.
  const candidatesOpen = status === 'planned' && candidateRuns.length > 0;
  const canRun = !active && !candidatesOpen && (status === 'planned' || status === 'in_progress' || status === 'failed');
  const runLabel = status === 'planned' ? 'Start run' : status === 'failed' ? 'Retry phase' : 'Resume';
  // Where the work went: the runs' own word, else the PR the state file records.
  const delivery = deliveryOf(history, state?.pr ?? null);
  // The session header's worktree actions, for the feature's branch: merge a completed one, push one whose work is done or stuck at delivery, discard (archived first).
  const canMerge = !active && status === 'completed' && !prOpen;
  const canPush = !active && (status === 'completed' || status === 'in_progress' || status === 'failed');
  const canDiscard = !active && !candidatesOpen && status !== null && status !== 'merged';
  const push = async () => {
    setBusy(true);
    try {
      setPushed(await client.invoke('featureRuns.push', { projectId, slug }));
    } catch (e) {
      toastError('Could not push', e);
    } finally {
      setBusy(false);
      reload();
    }
  };

  const onTabKey = (e: KeyboardEvent<HTMLDivElement>) => {
    const i = TABS.findIndex((t) => t.id === tab);
    const next = e.key === 'ArrowRight' ? (i + 1) % TABS.length : e.key === 'ArrowLeft' ? (i + TABS.length - 1) % TABS.length : -1;
    if (next < 0) return;
    e.preventDefault();
    setTab(TABS[next]!.id);
    tabRefs.current[next]?.focus();
  };

  return (
    <section className="view feature-view" data-testid="feature-view" data-slug={slug}>
      <header className="view-header">
        <div className="feature-title">
          <h1>
            {slug} {status && <span className={`badge feature-status feature-status-${status}`} data-testid="feature-status">{status.replace('_', ' ')}</span>}
          </h1>
          <p className="muted">
            <button className="link" onClick={() => setView({ name: 'project', projectId })}>
              {project.name}
            </button>
            {state && (
              <>
                {' · '}
                <span className="mono">{state.git.branch}</span> → <span className="mono">{state.git.base_branch}</span>
              </>
            )}
            {latest?.status === 'queued' && latest.position !== null && <> · queued (#{latest.position})</>}
          </p>
        </div>
        <div className="view-actions">
          {canRun && (
            <button className="button primary" disabled={busy} data-testid="feature-run" onClick={() => setConfirm('run')}>
              {runLabel}
            </button>
          )}
          {active && (
            <button className="button" disabled={busy} data-testid="feature-cancel" onClick={() => setConfirm('cancel')}>
              Cancel run
            </button>
          )}
          {candidatesActive && (
            <button className="button" disabled={busy} data-testid="feature-cancel-candidates" onClick={() => void act('Candidates cancelled', () => client.invoke('featureCandidates.cancel', { projectId, slug }))}>
              Cancel candidates
            </button>
          )}
          {canMerge && (
            <button className="button" disabled={busy} data-testid="feature-merge" onClick={() => setConfirm('merge')} title={`Merge or squash into ${state?.git.base_branch ?? 'the base'} locally, previewed first`}>
              Merge into {state?.git.base_branch ?? 'base'}…
            </button>
          )}
          {canPush && (
            <button className="button" disabled={busy} data-testid="feature-push" onClick={() => void push()} title="Push the branch and open its pull request">
              {busy ? 'Working…' : 'Push & PR'}
            </button>
          )}
          {canDiscard && (
            <button className="button danger" disabled={busy} data-testid="feature-discard" onClick={() => setConfirm('discard')} title="Archive the worktree and its branch, then remove them">
              Discard…
            </button>
          )}
        </div>
      </header>
      <SetupFilesOffer projectId={projectId} slug={slug} />
      <TrustLine projectId={projectId} />
      {error && (
        <p className="error feature-load-error" role="alert" data-testid="feature-load-error">
          {error}{' '}
          <button className="button small" onClick={reload} data-testid="feature-retry">
            Try again
          </button>
        </p>
      )}
      {!detail && !error && loading && (
        <p className="muted" role="status" data-testid="feature-loading">
          Loading {slug}: reading {loading}…
        </p>
      )}
      {detail?.feature.problem && (
        <p className="card-problem" role="alert">
          {detail.feature.problem.message}
        </p>
      )}
      <Delivered delivery={delivery} />
      <PrPanel projectId={projectId} slug={slug} delivery={delivery} />
      {latest && latest.message && latest.status !== 'completed' && (
        <p className={`feature-run-message ${latest.status === 'failed' ? 'error' : 'muted'}`} data-testid="feature-run-message">
          {latest.message}
        </p>
      )}
      {(candidateRuns.length > 0 || status === 'planned') && <CandidatesPanel projectId={projectId} slug={slug} projectPath={project.path} key={candidateRuns.map((r) => r.id).join()} onPicked={reload} />}
      {detail && (
        <>
          <div className="segmented feature-tabs" role="tablist" aria-label="Feature" onKeyDown={onTabKey}>
            {TABS.map((t, i) => (
              <button
                key={t.id}
                ref={(el) => {
                  tabRefs.current[i] = el;
                }}
                role="tab"
                id={`feature-tab-${t.id}`}
                aria-selected={tab === t.id}
                aria-controls={`feature-panel-${t.id}`}
                tabIndex={tab === t.id ? 0 : -1}
                className={tab === t.id ? 'active' : ''}
                data-testid={`feature-tab-${t.id}`}
                onClick={() => setTab(t.id)}
              >
                {t.label}
              </button>
            ))}
          </div>
          <div role="tabpanel" id={`feature-panel-${tab}`} aria-labelledby={`feature-tab-${tab}`}>
            {tab === 'overview' && detail && <Overview detail={detail} history={history} delivery={delivery} running={active} />}
            {tab === 'changes' && <BranchChanges projectId={projectId} slug={slug} live={active} />}
            {tab === 'timeline' && <FeatureTimeline phases={state?.phases ?? []} marks={history.marks} projectId={projectId} running={active} />}
            {tab === 'timeline' && <PrEvents projectId={projectId} slug={slug} />}
          </div>
        </>
      )}
      {confirm === 'run' && (
        <RunDialog
          title={runLabel}
          projectId={projectId}
          slug={slug}
          onClose={() => setConfirm(null)}
          onStart={async (placement) => {
            setConfirm(null);
            await act(runLabel, () => client.invoke('featureRuns.start', { projectId, slug, placement }));
          }}
          {...(status === 'planned'
            ? {
                onStartCandidates: async (candidates, budget) => {
                  setConfirm(null);
                  await act(`Started ${candidates.length} candidates`, () => client.invoke('featureCandidates.start', { projectId, slug, candidates, budget, confirm: true }));
                },
              }
            : {})}
        />
      )}
      {confirm === 'cancel' && (
        <ConfirmDialog
          title={`Cancel the run of ${slug}?`}
          confirmLabel="Cancel run"
          onCancel={() => setConfirm(null)}
          onConfirm={() => {
            setConfirm(null);
            void act('Run cancelled', () => client.invoke('featureRuns.cancel', { projectId, slug }));
          }}
        >
          <p>The agent stops; the worktree and the state file stay consistent, and completed phases and their commits are kept. Resume continues from the phase that was running.</p>
        </ConfirmDialog>
      )}
      {confirm === 'merge' && <MergeDialog projectId={projectId} slug={slug} base={state?.git.base_branch ?? 'the base'} onDone={() => (setConfirm(null), reload())} />}
      {confirm === 'discard' && (
        <DiscardDialog
          projectId={projectId}
          slug={slug}
          branch={state?.git.branch ?? slug}
          onClose={() => setConfirm(null)}
          onDiscarded={() => {
            setConfirm(null);
            setView({ name: 'board' });
          }}
        />
      )}
      {pushed && <PushedDialog result={pushed} onClose={() => setPushed(null)} />}
    </section>
  );
}

function Delivered({ delivery: d }: { delivery: Delivery | null }) {
  if (!d) return null;
  return (
    <p className="feature-delivery" data-testid="feature-delivery">
      {d.kind === 'pr' && (
        <>
          Pull request{' '}
          <a href={d.url} target="_blank" rel="noreferrer">
            {d.number ? `#${d.number} ` : ''}
            {d.title}
          </a>
        </>
      )}
      {d.kind === 'compare' &&
        (d.url ? (
          <>
            Branch pushed to {d.remote}:{' '}
            <a href={d.url} target="_blank" rel="noreferrer">
              open a pull request
            </a>
          </>
        ) : (
          <>Branch pushed to {d.remote}.</>
        ))}
      {d.kind === 'local' && <>Completed locally: there is no remote to push to. Merge it into the base from here when you are ready.</>}
    </p>
  );
}

function Overview({ detail, history, delivery, running }: { detail: FeatureDetail; history: FeatureHistory; delivery: Delivery | null; running: boolean }) {
  const sessions = useAppStore((s) => s.sessions);
  const setView = useAppStore((s) => s.setView);
  const [now, setNow] = useState(() => Date.now());
  const visible = usePageVisible();
  useEffect(() => {
    if (!running || !visible) return;
    setNow(Date.now());
    const t = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(t);
  }, [running, visible]);
  const state = detail.state;
  if (!state) return <p className="muted">No readable state file for this feature.</p>;
  const lastRun = history.runs.at(-1);
  const failedAtPr = lastRun?.outcome === 'failed' && state.phases.every((p) => p.status === 'completed');
  const chips = pipelineChips(state.phases, delivery, running, failedAtPr);
  const figures = phaseFigures(state.phases, now, running);
  const worktree = detail.git?.worktreePath ?? null;
  const agentSessions = worktree ? sessions.filter((s) => s.root === worktree).sort((a, b) => b.updatedAt - a.updatedAt) : [];
  return (
    <div className="feature-overview">
      <ol className="pipeline" aria-label="Pipeline" data-testid="pipeline">
        {chips.map((c) => (
          <li key={c.name} className={`pipeline-chip chip-${c.state}`} data-state={c.state} title={`${c.name}: ${c.state}`}>
            {c.state === 'running' && <span className="spinner" aria-hidden />}
            {c.state === 'done' && <span aria-hidden>✓ </span>}
            {c.state === 'failed' && <span aria-hidden>✕ </span>}
            {c.name}
          </li>
        ))}
      </ol>
      <div className="panel">
        <h3>Phases</h3>
        <table className="table phases-table" data-testid="phases-table">
          <thead>
            <tr>
              <th>Phase</th>
              <th>Status</th>
              <th className="num">Turns</th>
              <th className="num">Cost</th>
              <th className="num">Duration</th>
            </tr>
          </thead>
          <tbody>
            {figures.rows.map((p) => (
              <tr key={p.name} data-phase={p.name}>
                <td>
                  {p.name} {p.kind === 'quality' && <span className="muted small">(quality)</span>}
                </td>
                <td>{p.status}</td>
                <td className="num">{p.turns}</td>
                <td className="num">{usd(p.costUsd)}</td>
                <td className="num">{duration(p.durationSecs)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th>Total</th>
              <th />
              <th className="num">{figures.total.turns}</th>
              <th className="num">{usd(figures.total.costUsd)}</th>
              <th className="num">{duration(figures.total.durationSecs)}</th>
            </tr>
          </tfoot>
        </table>
        <p className="muted small">
          Tokens: {figures.total.inputTokens.toLocaleString()} in · {figures.total.outputTokens.toLocaleString()} out
          {detail.git && (
            <>
              {' '}
              · {detail.git.aheadOfBase} ahead, {detail.git.behindBase} behind {detail.git.base}
              {detail.git.dirty && ' · uncommitted changes'}
            </>
          )}
        </p>
      </div>
      {agentSessions.length > 0 && (
        <div className="panel">
          <h3>Agent sessions</h3>
          <ul className="plain-list">
            {agentSessions.slice(0, 8).map((s) => (
              <li key={s.id}>
                <button className="link" data-testid="feature-session-link" onClick={() => setView({ name: 'session', sessionId: s.id })}>
                  {s.title}
                </button>{' '}
                <span className="muted small">
                  {s.status === 'running' ? 'running now — open to watch the transcript and its terminals' : s.status}
                  {' · '}
                  {usd(s.cost.usd)}
                </span>
              </li>
            ))}
          </ul>
        </div>
      )}
      <div className="panel" data-testid="review-rounds">
        <h3>Review rounds</h3>
        {history.rounds.length === 0 ? (
          <p className="muted small">No review yet.</p>
        ) : (
          history.rounds.map((r) => (
            <details key={`${r.runId}-${r.round}`} className="round" open={r.blocking > 0}>
              <summary>
                Round {r.round}: {!r.parsed ? <span className="error">the reviewer's answer had no readable issues block</span> : r.issues.length === 0 ? <span className="ok">clean</span> : `${r.issues.length} issue${r.issues.length === 1 ? '' : 's'}${r.blocking ? ` (${r.blocking} blocking)` : ''}`}
              </summary>
              {r.issues.length > 0 && (
                <ul className="issues">
                  {r.issues.map((i, k) => (
                    <li key={k} className={`issue sev-${i.severity}`}>
                      <span className="badge">{i.severity}</span> <span className="mono">{i.file}{i.line ? `:${i.line}` : ''}</span> — {i.description}
                    </li>
                  ))}
                </ul>
              )}
            </details>
          ))
        )}
      </div>
      <div className="panel" data-testid="verify-attempts">
        <h3>Verify attempts</h3>
        {history.attempts.length === 0 ? (
          <p className="muted small">No verification yet.</p>
        ) : (
          history.attempts.map((a) => (
            <details key={`${a.runId}-${a.attempt}`} className="attempt" open={a.result === 'fail'}>
              <summary>
                Attempt {a.attempt}: <span className={a.result === 'pass' ? 'ok' : 'error'}>{a.result}</span>
                <span className="muted small"> · agent said {a.agentResult ?? 'nothing readable'}</span>
              </summary>
              {a.checks.map((c, k) => (
                <div key={k} className="check">
                  <div className="check-head">
                    <span className={c.passed ? 'ok' : 'error'}>{c.passed ? '✓' : '✕'}</span> <span className="mono">{c.command}</span>{' '}
                    <span className="muted small">
                      exit {c.exitCode ?? 'none (stopped)'} · {duration(c.durationMs / 1000)}
                    </span>{' '}
                    {c.terminalId && <CheckTerminalButton terminalId={c.terminalId} command={c.command} />}
                  </div>
                  {c.output && <pre className="check-output">{c.output}</pre>}
                </div>
              ))}
              {a.items.length > 0 && (
                <ul className="verify-items">
                  {a.items.map((it, k) => (
                    <li key={k}>
                      <span className={it.result === 'pass' ? 'ok' : 'error'}>{it.result}</span> {it.item}
                      {it.note ? <span className="muted"> — {it.note}</span> : null}
                    </li>
                  ))}
                </ul>
              )}
            </details>
          ))
        )}
      </div>
      {worktree && <p className="muted small mono">Worktree: {shortPath(worktree)}</p>}
    </div>
  );
}

/** The branch's changes against its base; read again while the agent works and on every run event. */
function BranchChanges({ projectId, slug, live }: { projectId: string; slug: string; live: boolean }) {
  const client = useClient();
  const [diff, setDiff] = useState<FeatureDiff | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [comments, setComments] = useState<ReviewComment[]>([]);
  useEffect(() => {
    let alive = true;
    client.invoke('featureReview.diff', { projectId, slug }).then(
      (d) => alive && (setDiff(d), setError(null)),
      (e: unknown) => alive && setError(e instanceof Error ? e.message : String(e)),
    );
    client.invoke('features.comments.list', { projectId, slug }).then(
      (r) => alive && setComments(r.comments),
      (e: unknown) => alive && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      alive = false;
    };
  }, [client, projectId, slug, generation]);
  const refresh = () => setGeneration((g) => g + 1);
  const commenting: DiffCommenting = {
    comments,
    add: async (file, lineStart, lineEnd, body) => {
      await client.invoke('features.comments.add', { projectId, slug, file, lineStart, lineEnd, body });
      refresh();
    },
  };
  // While the page is hidden the diff is not read; it is read again once it shows.
  const visible = usePageVisible();
  useEffect(() => {
    if (!live || !visible) return;
    const t = setInterval(() => setGeneration((g) => g + 1), LIVE_DIFF_MS);
    return () => clearInterval(t);
  }, [live, visible]);
  useEffect(() => client.on('featureRuns.event', (e) => e.slug === slug && setGeneration((g) => g + 1)), [client, slug]);
  return (
    <div className="panel feature-changes" data-testid="feature-changes">
      {error && <p className="error small">{error}</p>}
      {diff?.changes.problem && <p className="muted small">{diff.changes.problem}</p>}
      <ReviewCommentList
        comments={comments}
        blocked={live ? 'The feature is running: send when it stops' : null}
        send={async () => {
          const r = await client.invoke('features.comments.send', { projectId, slug });
          return `Sent ${r.sent === 1 ? '1 comment' : `${r.sent} comments`} to the agent`;
        }}
        reopen={(id) => client.invoke('comments.reopen', { id })}
        remove={(id) => client.invoke('comments.remove', { id })}
        onChange={refresh}
      />
      {diff && (
        <ChangesPanel
          files={diff.changes.files}
          actions={{ commenting }}
          toolbar={
            <span className="small muted">
              <span className="mono">{diff.branch}</span> against <span className="mono">{diff.base}</span>
              {diff.mergeBase && <> (from {diff.mergeBase.slice(0, 8)})</>}
              {live && ' · live'}
            </span>
          }
          empty={<p className="muted">No changes on this branch yet.</p>}
        />
      )}
    </div>
  );
}

function MergeDialog({ projectId, slug, base, onDone }: { projectId: string; slug: string; base: string; onDone(): void }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const [squash, setSquash] = useState(false);
  const [preview, setPreview] = useState<{ text: string; ok: boolean } | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => {
    let alive = true;
    setPreview(null);
    // What would happen, asked of main without changing anything (the same call, unconfirmed).
    client.invoke('featureRuns.merge', { projectId, slug, squash, confirm: false }).then(
      (r) => alive && setPreview({ text: r.message, ok: true }),
      (e: unknown) => alive && setPreview({ text: e instanceof Error ? e.message : String(e), ok: false }),
    );
    return () => {
      alive = false;
    };
  }, [client, projectId, slug, squash]);
  const submit = async () => {
    if (busy || !preview?.ok) return;
    setBusy(true);
    try {
      const r = await client.invoke('featureRuns.merge', { projectId, slug, squash, confirm: true });
      toast({ level: r.merged ? 'success' : 'error', title: r.merged ? `${squash ? 'Squashed' : 'Merged'} into ${r.base}` : 'Not merged', message: r.message });
      onDone();
    } catch (e) {
      // A refusal (a conflict, a dirty checkout) changed nothing: say why and stay open.
      setError(e instanceof Error ? e.message : String(e));
      setBusy(false);
    }
  };
  return (
    <Modal
      title={`Merge ${slug} into ${base}?`}
      onClose={onDone}
      onSubmit={() => void submit()}
      testId="merge-dialog"
      footer={
        <>
          <button className="button" onClick={onDone} data-autofocus>
            Cancel
          </button>
          <button className="button primary" onClick={() => void submit()} disabled={busy || !preview?.ok} data-testid="merge-confirm">
            {busy ? 'Merging…' : squash ? 'Squash and merge' : 'Merge'}
          </button>
        </>
      }
    >
      <div className="segmented small" role="radiogroup" aria-label="Merge strategy">
        <button role="radio" aria-checked={!squash} className={!squash ? 'active' : ''} onClick={() => setSquash(false)} data-testid="strategy-merge">
          Merge commit
        </button>
        <button role="radio" aria-checked={squash} className={squash ? 'active' : ''} onClick={() => setSquash(true)} data-testid="strategy-squash">
          Squash
        </button>
      </div>
      <p className={`small ${preview && !preview.ok ? 'card-problem' : ''}`} data-testid="merge-preview">
        {preview?.text ?? 'Checking what the merge would do…'}
      </p>
      {error && (
        <p className="card-problem" role="alert" data-testid="merge-error">
          {error}
        </p>
      )}
    </Modal>
  );
}

type FeaturePushed = { remote: string; branch: string; pr: { url: string; number: number | null; existing: boolean } | null; compareUrl: string | null; note: string | null };

function PushedDialog({ result: r, onClose }: { result: FeaturePushed; onClose(): void }) {
  const url = r.pr?.url ?? r.compareUrl;
  return (
    <Modal title={r.pr ? (r.pr.existing ? 'Pull request already open' : 'Pull request opened') : 'Branch pushed'} onClose={onClose} testId="push-result">
      <p>
        Pushed <code>{r.branch}</code> to {r.remote}.
      </p>
      {url && (
        <p>
          {r.pr ? 'Pull request: ' : 'Open the pull request here: '}
          <a href={url} target="_blank" rel="noreferrer" data-testid="push-link">
            {url}
          </a>
        </p>
      )}
      {r.note && <p className="muted small">{r.note}</p>}
    </Modal>
  );
}

/** Discard, as the session header does it: archived under refs/flightdeck/archive/… first, then removed; work that exists only there is named before it goes. */
function DiscardDialog({ projectId, slug, branch, onClose, onDiscarded }: { projectId: string; slug: string; branch: string; onClose(): void; onDiscarded(): void }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const [atRisk, setAtRisk] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const discard = async (force: boolean) => {
    setBusy(true);
    try {
      const r = await client.invoke('worktrees.remove', { projectId, slug, force });
      toast({ level: 'success', title: `Discarded ${slug}`, message: `Archived as ${r.archive.ref}; restore it from the project's worktrees.` });
      onDiscarded();
    } catch (e) {
      const code = (e as { code?: string }).code;
      // Refused because work would be lost: the reason names it, and the user can still go on (it is archived either way).
      if (code === 'conflict' && !force) setAtRisk(e instanceof Error ? e.message : String(e));
      else toast({ level: 'error', title: 'Could not discard', message: e instanceof Error ? e.message : String(e) });
      setBusy(false);
    }
  };
  return (
    <ConfirmDialog title={`Discard the feature ${slug}?`} confirmLabel={atRisk ? 'Archive and discard anyway' : 'Archive and discard'} onCancel={onClose} onConfirm={() => void discard(atRisk !== null)}>
      {atRisk && (
        <p className="card-problem" data-testid="discard-loss">
          {atRisk}
        </p>
      )}
      <p className="muted">
        Its worktree and the branch {branch} are removed, and the feature leaves the board. Everything is archived first under <code>refs/flightdeck/archive/{slug}/…</code> and can be restored from the project's worktrees.
      </p>
      {busy && <p className="muted small">Archiving…</p>}
    </ConfirmDialog>
  );
}

/**
 * Opens a check's terminal in the Terminals view (putting it in a pane alone did nothing the
 * user could see); a terminal that was closed since says so instead of doing nothing.
 */
function CheckTerminalButton({ terminalId, command }: { terminalId: string; command: string }) {
  const showTerminal = useAppStore((s) => s.showTerminal);
  const setView = useAppStore((s) => s.setView);
  const exists = useAppStore((s) => s.terminals.some((t) => t.id === terminalId));
  if (!exists) {
    return (
      <span className="muted small" title="The terminal this check ran in was closed since; its output is below" data-testid="check-terminal-closed">
        terminal closed
      </span>
    );
  }
  return (
    <button
      className="link small"
      title={`Open the terminal ${command} ran in`}
      data-testid="check-terminal"
      onClick={() => {
        showTerminal(terminalId);
        setView({ name: 'terminals' });
      }}
    >
      open terminal
    </button>
  );
}
