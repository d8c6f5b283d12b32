import { useCallback, useEffect, useState } from 'react';
import type { Delivery, PrMergeMethod, PrStatus } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';
import { usd } from '../lib/format';

/** What each state of the loop says to the user. */
const STATUS_LABEL: Record<NonNullable<PrStatus['follow']>['status'], string> = {
  watching: 'Watching checks and reviews',
  fixing: 'Fixing',
  needs_review: 'Needs your review',
  ready: 'Ready to merge',
  needs_input: 'Needs input',
  merged: 'Merged',
  closed: 'Closed',
  stopped: 'Not followed',
};
const BUCKET_MARK: Record<string, string> = { pass: '✓', fail: '✕', pending: '…', skipping: '–', cancel: '⊘' };
const METHODS: PrMergeMethod[] = ['squash', 'merge', 'rebase'];

/** The loop's status of one feature, read again whenever the loop or a run of the feature moves. */
export function usePrStatus(projectId: string, slug: string): { status: PrStatus | null; error: string | null; reload(): void } {
  const client = useClient();
  const [status, setStatus] = useState<PrStatus | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);
  useEffect(() => {
    let alive = true;
    client.invoke('features.pr.status', { projectId, slug }).then(
      (s) => alive && (setStatus(s), setError(null)),
      (e: unknown) => alive && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      alive = false;
    };
  }, [client, projectId, slug, generation]);
  useEffect(() => {
    const offs = [client.on('features.pr.changed', (e) => e.slug === slug && reload()), client.on('featureRuns.event', (e) => e.slug === slug && e.data.type === 'RunFinished' && reload())];
    return () => offs.forEach((off) => off());
  }, [client, slug, reload]);
  return { status, error, reload };
}

/**
 * The pull request panel of a feature: where its PR stands (checks, reviews, the fix rounds made
 * from them and what each cost), Ready to merge with Merge, and Follow / Stop. Without gh, what
 * the loop would do and how to enable it.
 */
export function PrPanel({ projectId, slug, delivery }: { projectId: string; slug: string; delivery: Delivery | null }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const { status, error, reload } = usePrStatus(projectId, slug);
  const [method, setMethod] = useState<PrMergeMethod>('squash');
  const [busy, setBusy] = useState(false);
  if (error) return <p className="error small" data-testid="pr-panel-error">{error}</p>;
  if (!status) return null;
  const f = status.follow;
  // Shown once the feature was delivered (or its PR is followed): before that there is no PR to speak of.
  if (!f && !delivery) return null;
  const hasPr = delivery?.kind === 'pr' && delivery.number !== null;

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

  return (
    <div className="panel pr-panel" data-testid="pr-panel" data-status={f?.status ?? 'none'}>
      <h3>
        Pull request
        {f && (
          <>
            {' '}
            <a href={f.url} target="_blank" rel="noreferrer" data-testid="pr-link">
              #{f.number}
            </a>{' '}
            <span className={`badge pr-status pr-status-${f.status}`} data-testid="pr-status">
              {STATUS_LABEL[f.status]}
            </span>
          </>
        )}
      </h3>
      {!status.gh.ready && (
        <p className="muted small" data-testid="pr-gh-missing">
          {status.gh.message}
        </p>
      )}
      {!f && status.gh.ready && hasPr && (
        <p className="muted small">
          Flightdeck is not following this feature&apos;s pull request.{' '}
          <button className="button small" disabled={busy} data-testid="pr-follow" onClick={() => void act('Following the pull request', () => client.invoke('features.pr.follow', { projectId, slug, follow: true }))}>
            Follow it
          </button>
        </p>
      )}
      {f && (
        <>
          {f.reason && (
            <p className={`small ${f.status === 'needs_input' ? 'error' : 'muted'}`} data-testid="pr-reason">
              {f.reason}
            </p>
          )}
          {f.checks.length > 0 && (
            <ul className="pr-checks small" data-testid="pr-checks">
              {f.checks.map((c) => (
                <li key={c.id} className={`pr-check pr-check-${c.bucket}`} data-bucket={c.bucket}>
                  <span aria-hidden>{BUCKET_MARK[c.bucket] ?? '?'} </span>
                  {c.link ? (
                    <a href={c.link} target="_blank" rel="noreferrer">
                      {c.workflow ? `${c.workflow} / ` : ''}
                      {c.name}
                    </a>
                  ) : (
                    <>{c.name}</>
                  )}{' '}
                  <span className="muted">{c.bucket}</span>
                </li>
              ))}
            </ul>
          )}
          <p className="small muted" data-testid="pr-rounds-count">
            Fix rounds: {status.rounds.length} of at most {status.maxFixRounds}
            {status.autoMerge !== 'off' && <> · merged automatically ({status.autoMerge}) once green and approved</>}
          </p>
          {status.rounds.length > 0 && (
            <table className="table pr-rounds" data-testid="pr-rounds">
              <thead>
                <tr>
                  <th>Round</th>
                  <th>What it fixed</th>
                  <th>State</th>
                  <th className="num">Cost</th>
                </tr>
              </thead>
              <tbody>
                {status.rounds.map((r) => (
                  <tr key={r.round} data-testid="pr-round" data-status={r.status}>
                    <td>{r.round}</td>
                    <td>{r.summary}</td>
                    <td>{r.status}</td>
                    <td className="num">{r.costUsd === null ? '—' : usd(r.costUsd)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
          <div className="pr-actions">
            {(f.status === 'ready' || f.status === 'needs_review' || f.status === 'needs_input' || f.status === 'watching') && (
              <>
                <label className="small">
                  Method{' '}
                  <select value={method} onChange={(e) => setMethod(e.target.value as PrMergeMethod)} data-testid="pr-merge-method" disabled={busy}>
                    {METHODS.map((m) => (
                      <option key={m} value={m}>
                        {m}
                      </option>
                    ))}
                  </select>
                </label>
                <button
                  className={`button${f.status === 'ready' ? ' primary' : ''}`}
                  disabled={busy}
                  data-testid="pr-merge"
                  title="Merge the pull request on GitHub with gh pr merge"
                  onClick={() => void act(`Merged pull request #${f.number}`, () => client.invoke('features.pr.merge', { projectId, slug, method }))}
                >
                  Merge #{f.number}
                </button>
              </>
            )}
            {f.status === 'stopped' || f.status === 'needs_input' ? (
              <button className="button" disabled={busy} data-testid="pr-follow" onClick={() => void act('Following the pull request', () => client.invoke('features.pr.follow', { projectId, slug, follow: true }))}>
                Follow again
              </button>
            ) : f.status !== 'merged' && f.status !== 'closed' ? (
              <button className="button" disabled={busy} data-testid="pr-stop" onClick={() => void act('Stopped following the pull request', () => client.invoke('features.pr.follow', { projectId, slug, follow: false }))}>
                Stop following
              </button>
            ) : null}
          </div>
        </>
      )}
    </div>
  );
}

/** The PR's events on the feature's timeline, each fix round with what it cost. */
export function PrEvents({ projectId, slug }: { projectId: string; slug: string }) {
  const { status } = usePrStatus(projectId, slug);
  if (!status || status.events.length === 0) return null;
  return (
    <div className="panel" data-testid="pr-events">
      <h3>Pull request</h3>
      <ul className="timeline-marks small">
        {status.events.map((e) => (
          <li key={e.id} data-kind={e.kind} className={e.kind === 'needs_input' || (e.kind === 'checks' && e.message.startsWith('Checks failed')) ? 'error' : e.kind === 'ready' || e.kind === 'merged' ? 'ok' : ''}>
            {new Date(e.ts).toLocaleTimeString()}: {e.message}
            {e.costUsd !== null && <> · {usd(e.costUsd)}</>}
          </li>
        ))}
      </ul>
    </div>
  );
}
