import { useCallback, useEffect, useState } from 'react';
import type { CandidateComparison, CandidateDiff, CandidateGroupInfo } from '../../../src-preload/contract';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { Modal } from '../components/Modal';
import { useAppStore, useClient } from '../store';
import { usd } from '../lib/format';
import { duration } from './feature-model';
import './candidates.css';

/** While candidates run, the comparison (their branches' size, their state files) is read again at most this often. */
const REFRESH_MS = 3_000;

const STATUS_TEXT: Record<CandidateComparison['status'], string> = { queued: 'queued', running: 'running', finished: 'finished', failed: 'failed', stopped: 'stopped' };

function checksCell(c: CandidateComparison) {
  if (c.checks.length === 0) return <span className="muted">no checks</span>;
  return (
    <ul className="candidate-checks">
      {c.checks.map((k) => (
        <li key={k.command} className={`check-${k.verdict}`} data-verdict={k.verdict} title={`${k.command}: ${k.verdict.replace('_', ' ')}`}>
          <span aria-label={k.verdict.replace('_', ' ')}>{k.verdict === 'passed' ? '✓' : k.verdict === 'failed' ? '✕' : '–'}</span> <code>{k.command}</code>
        </li>
      ))}
    </ul>
  );
}

function issuesCell(c: CandidateComparison) {
  const parts = (['critical', 'major', 'minor', 'info'] as const).filter((s) => c.reviewIssues[s] > 0).map((s) => `${c.reviewIssues[s]} ${s}`);
  return parts.length ? parts.join(', ') : <span className="muted">none</span>;
}

/** A unified diff, each line coloured by what it is (added, removed, hunk header, file header). */
export function DiffText({ text, testId }: { text: string; testId?: string }) {
  if (!text) return <p className="muted">No changes.</p>;
  return (
    <pre className="candidate-diff" data-testid={testId}>
      {text.split('\n').map((l, i) => {
        const kind = l.startsWith('+++') || l.startsWith('---') || l.startsWith('diff ') ? 'file' : l.startsWith('@@') ? 'hunk' : l.startsWith('+') ? 'add' : l.startsWith('-') ? 'del' : 'ctx';
        return (
          <span key={i} className={`diff-line diff-${kind}`}>
            {l}
            {'\n'}
          </span>
        );
      })}
    </pre>
  );
}

/**
 * The feature's best-of-N candidates side by side: per candidate each verify check, the review
 * issues left, the size of its change and the tests it added, tokens, cost, time; its diff, two
 * candidates' diffs next to each other, the judge's ranking, and Pick.
 */
export function CandidatesPanel({ projectId, slug, projectPath, onPicked }: { projectId: string; slug: string; projectPath: string; onPicked(): void }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const [group, setGroup] = useState<CandidateGroupInfo | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const [diff, setDiff] = useState<{ title: string; left: CandidateDiff; right?: CandidateDiff } | null>(null);
  const [pair, setPair] = useState<{ a: number; b: number }>({ a: 1, b: 2 });
  const [pick, setPick] = useState<number | null>(null);
  const [discard, setDiscard] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    let live = true;
    client.invoke('featureCandidates.compare', { projectId, slug }).then(
      (r) => {
        if (!live) return;
        setGroup(r.group);
        setError(null);
      },
      (e: unknown) => live && setError(`The candidates could not be compared: ${e instanceof Error ? e.message : String(e)}`),
    );
    return () => {
      live = false;
    };
  }, [client, projectId, slug, generation]);

  // Their runs' events change what the comparison shows: read again, at most every few seconds.
  useEffect(() => {
    let due: ReturnType<typeof setTimeout> | null = null;
    const soon = () => {
      due ??= setTimeout(() => {
        due = null;
        reload();
      }, REFRESH_MS);
    };
    const off = client.on('featureRuns.event', (e) => {
      if (e.slug === slug && e.projectPath === projectPath) soon();
    });
    return () => {
      off();
      if (due) clearTimeout(due);
    };
  }, [client, slug, projectPath, reload]);

  if (error) return <p className="error" role="alert">{error}</p>;
  if (!group) return null;
  const cands = group.candidates;
  const running = cands.some((c) => c.status === 'running' || c.status === 'queued');
  const open = group.status === 'open';

  const showDiff = async (a: number, b?: number) => {
    setBusy('diff');
    try {
      if (b === undefined) {
        setDiff({ title: `Candidate c${a}: its change`, left: await client.invoke('featureCandidates.diff', { projectId, slug, candidate: a }) });
      } else {
        const [left, right] = await Promise.all([client.invoke('featureCandidates.diff', { projectId, slug, candidate: a }), client.invoke('featureCandidates.diff', { projectId, slug, candidate: b })]);
        setDiff({ title: `c${a} and c${b} side by side`, left, right });
      }
    } catch (e) {
      toastError('Could not read the diff', e);
    } finally {
      setBusy(null);
    }
  };
  const judge = async () => {
    setBusy('judge');
    try {
      await client.invoke('featureCandidates.judge', { projectId, slug });
      reload();
    } catch (e) {
      toastError('The judge gave no ranking', e);
    } finally {
      setBusy(null);
    }
  };
  const doPick = async (n: number) => {
    setPick(null);
    setBusy('pick');
    try {
      const r = await client.invoke('featureCandidates.pick', { projectId, slug, candidate: n });
      toast({ level: 'success', title: `Picked c${n}`, message: r.message });
      setGroup(r.group);
      onPicked();
    } catch (e) {
      toastError(`Could not pick c${n}`, e);
    } finally {
      setBusy(null);
    }
  };

  const doDiscard = async () => {
    setDiscard(false);
    setBusy('discard');
    try {
      const r = await client.invoke('featureCandidates.discard', { projectId, slug });
      toast({ level: 'success', title: 'No candidate picked', message: `The candidates are kept under refs/flightdeck/archive/${slug}/${r.group.id}/; ${slug} is planned as before.` });
      setGroup(r.group);
      onPicked();
    } catch (e) {
      toastError('Could not discard the candidates', e);
    } finally {
      setBusy(null);
    }
  };

  return (
    <section className="panel candidates-panel" data-testid="candidates-panel" aria-label="Candidates">
      <h3>
        Candidates{' '}
        <span className="muted small">
          {group.status === 'picked' ? `c${group.winner} picked; the others are kept under refs/flightdeck/archive/` : group.status === 'discarded' ? 'discarded' : running ? 'running' : 'finished: compare and pick one'}
          {' · '}budget {group.budgetMode === 'split' ? `${usd(group.budgetUsd)} split` : `${usd(group.budgetUsd)} each`}
        </span>
      </h3>
      <div className="candidates-scroll">
        <table className="table candidates-table" data-testid="candidates-table">
          <thead>
            <tr>
              <th>Candidate</th>
              <th>Status</th>
              <th>Checks</th>
              <th>Review issues</th>
              <th className="num">Files</th>
              <th className="num">Lines</th>
              <th>Tests added</th>
              <th className="num">Tokens</th>
              <th className="num">Cost</th>
              <th className="num">Time</th>
              <th />
            </tr>
          </thead>
          <tbody>
            {cands.map((c) => (
              <tr key={c.index} data-testid={`candidate-c${c.index}`} data-status={c.status} className={group.winner === c.index ? 'candidate-winner' : undefined}>
                <td>
                  <strong>c{c.index}</strong> <span className="muted small">{c.executor}{c.model ? ` · ${c.model}` : ''}{c.profile ? ` · ${c.profile}` : ''}{c.placement?.kind === 'container' ? ' · container' : ''}</span>
                  <div className="mono small muted">{c.branch}</div>
                </td>
                <td data-testid="candidate-status">
                  {STATUS_TEXT[c.status]}
                  {c.status !== 'finished' && c.phase && <span className="muted small"> · {c.phase}</span>}
                  <div className="muted small">
                    {c.phasesDone}/{c.phasesTotal} phases
                  </div>
                  {c.status === 'failed' && c.message && <div className="error small">{c.message}</div>}
                </td>
                <td>{checksCell(c)}</td>
                <td>{issuesCell(c)}</td>
                <td className="num">{c.filesChanged}</td>
                <td className="num">
                  <span className="diff-add-text">+{c.linesAdded}</span> <span className="diff-del-text">−{c.linesDeleted}</span>
                </td>
                <td>{c.testsAdded.length ? <span title={c.testsAdded.join('\n')}>{c.testsAdded.length}</span> : <span className="muted">none</span>}</td>
                <td className="num">{(c.inputTokens + c.outputTokens).toLocaleString()}</td>
                <td className="num">{usd(c.costUsd)}</td>
                <td className="num">{duration(c.wallSecs)}</td>
                <td className="candidate-actions">
                  <button className="button small" disabled={busy !== null || !c.head} onClick={() => void showDiff(c.index)} data-testid={`candidate-diff-c${c.index}`}>
                    Diff
                  </button>
                  {open && (
                    <button className="button small primary" disabled={busy !== null || c.status !== 'finished' || running} title={c.status !== 'finished' ? 'Only a finished candidate can be picked' : running ? 'Wait for the others to finish, or cancel them' : `Make c${c.index} the feature's branch and deliver it`} onClick={() => setPick(c.index)} data-testid={`candidate-pick-c${c.index}`}>
                      Pick
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <div className="candidates-tools">
        <label>
          Side by side:{' '}
          <select aria-label="First candidate" value={pair.a} onChange={(e) => setPair({ ...pair, a: Number(e.target.value) })} data-testid="candidates-pair-a">
            {cands.map((c) => (
              <option key={c.index} value={c.index}>
                c{c.index}
              </option>
            ))}
          </select>{' '}
          and{' '}
          <select aria-label="Second candidate" value={pair.b} onChange={(e) => setPair({ ...pair, b: Number(e.target.value) })} data-testid="candidates-pair-b">
            {cands.map((c) => (
              <option key={c.index} value={c.index}>
                c{c.index}
              </option>
            ))}
          </select>
        </label>{' '}
        <button className="button small" disabled={busy !== null || pair.a === pair.b} onClick={() => void showDiff(pair.a, pair.b)} data-testid="candidates-side-by-side">
          Compare diffs
        </button>{' '}
        <button className="button small" disabled={busy !== null || running || cands.length === 0} onClick={() => void judge()} data-testid="candidates-judge" title="An agent reads the plan, the verification plan, the diffs and the check results and ranks the candidates">
          {busy === 'judge' ? 'Judging…' : group.judge ? 'Judge again' : 'Ask a judge'}
        </button>
        {open && (
          <button className="button small danger" disabled={busy !== null || running} onClick={() => setDiscard(true)} data-testid="candidates-discard" title="Pick none: archive every candidate and remove their worktrees">
            Pick none…
          </button>
        )}
      </div>
      {group.judge && (
        <div className="candidates-judge" data-testid="candidates-judge-ranking">
          <p>
            <strong>Judge:</strong> {group.judge.summary} <span className="muted small">({usd(group.judge.costUsd)}, {(group.judge.inputTokens + group.judge.outputTokens).toLocaleString()} tokens)</span>
          </p>
          <ol>
            {group.judge.ranking.map((r) => (
              <li key={r.candidate} data-candidate={r.candidate}>
                <strong>c{r.candidate}</strong>: {r.reason}
              </li>
            ))}
          </ol>
        </div>
      )}
      {diff && (
        <Modal title={diff.title} onClose={() => setDiff(null)} testId="candidate-diff-dialog" className="candidate-diff-modal">
          {diff.right ? (
            <div className="candidate-diff-pair">
              {[diff.left, diff.right].map((d) => (
                <div key={d.to}>
                  <h4>
                    {d.to} <span className="muted small">{d.files.length} files{d.truncated ? ' (truncated)' : ''}</span>
                  </h4>
                  <DiffText text={d.text} testId={`candidate-diff-${d.to}`} />
                </div>
              ))}
            </div>
          ) : (
            <>
              <p className="muted small">
                {diff.left.files.length} files from the start commit{diff.left.truncated ? ' (truncated)' : ''}
              </p>
              <DiffText text={diff.left.text} testId={`candidate-diff-${diff.left.to}`} />
            </>
          )}
        </Modal>
      )}
      {discard && (
        <ConfirmDialog title="Pick none of the candidates?" confirmLabel="Pick none" onCancel={() => setDiscard(false)} onConfirm={() => void doDiscard()}>
          <p>Every candidate&apos;s branch is kept under refs/flightdeck/archive/ and its worktree removed. The feature stays planned: run it, or try it with candidates again.</p>
        </ConfirmDialog>
      )}
      {pick !== null && (
        <ConfirmDialog title={`Pick c${pick}?`} confirmLabel={`Pick c${pick}`} onCancel={() => setPick(null)} onConfirm={() => void doPick(pick)}>
          <p>
            c{pick}&apos;s work becomes the feature&apos;s branch and is delivered (pull request or local merge, as a run of the feature does). Every candidate&apos;s branch is kept under refs/flightdeck/archive/ and its worktree removed; nothing is lost.
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
