import { useState } from 'react';
import type { OutputOf } from '../../../src-preload/contract';
import { Icon } from '../components/Icon';
import { relativeTime, usd } from '../lib/format';
import { useAppStore, useClient } from '../store';
import { NewPlanDialog } from './NewPlanDialog';
import { DRAFT_STATUS_LABEL } from './PlanHeader';

type InitResult = OutputOf<'features.init'>;
type InitProposal = OutputOf<'features.init.propose'>;

/**
 * A project's features on its page: set the project up for features (init), plan a new one,
 * and the plans still being discussed or reviewed.
 */
export function FeaturesPanel({ projectId }: { projectId: string }) {
  const client = useClient();
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);
  const setView = useAppStore((s) => s.setView);
  const allDrafts = useAppStore((s) => s.drafts);
  const drafts = allDrafts.filter((d) => d.projectId === projectId);
  const featureProjects = useAppStore((s) => s.featureProjects);
  const features = featureProjects.find((p) => p.projectId === projectId)?.features ?? [];
  const [planning, setPlanning] = useState<false | 'describe' | 'issue'>(false);
  const [initing, setIniting] = useState(false);
  const [result, setResult] = useState<InitResult | null>(null);
  // What init will write, shown before anything is written.
  const [proposal, setProposal] = useState<InitProposal | null>(null);

  // When the analysis started: the sessions it opens since then are linked while it works.
  const [initSince, setInitSince] = useState<number | null>(null);
  const allSessions = useAppStore((s) => s.sessions);
  const initSessions = initSince === null ? [] : allSessions.filter((x) => x.projectId === projectId && x.createdAt >= initSince - 2_000);
  const init = async () => {
    setIniting(true);
    setInitSince(Date.now());
    setResult(null);
    try {
      setProposal(await client.invoke('features.init.propose', { projectId }));
    } catch (e) {
      toastError('Could not set up the project for features', e);
    } finally {
      setIniting(false);
      setInitSince(null);
    }
  };

  const decide = async (write: boolean) => {
    if (!proposal) return;
    setIniting(true);
    try {
      const r = await client.invoke('features.init.write', { proposalId: proposal.proposalId, write });
      setProposal(null);
      if (r) {
        setResult(r);
        toast({ level: 'success', title: 'Project set up for features', message: `Wrote ${r.configPath}.` });
      }
    } catch (e) {
      toastError('Could not write the features setup', e);
    } finally {
      setIniting(false);
    }
  };

  return (
    <div className="panel" data-testid="features-panel">
      <div className="panel-head">
        <h3>Features</h3>
        <div className="view-actions">
          <button className="button" onClick={() => void init()} disabled={initing || proposal !== null} data-testid="feature-init" title="Propose .flightdeck/config.yml and overview.md from an analysis of the repository; nothing is written before you confirm">
            {initing ? <Icon name="refresh" className="spin" /> : <Icon name="layers" />} {initing ? 'Analysing the repository…' : 'Set up features'}
          </button>
          <button className="button" onClick={() => setPlanning('issue')} data-testid="plan-from-issue" title="Plan a feature from one of the repository's open GitHub issues">
            New feature from issue
          </button>
          <button className="button primary" onClick={() => setPlanning('describe')} data-testid="plan-feature">
            <Icon name="plus" /> Plan a feature
          </button>
        </div>
      </div>
      {initSince !== null && proposal === null && (
        <div className="feature-init-progress small" role="status" data-testid="feature-init-progress">
          <Icon name="refresh" size={14} className="spin" /> Analysing the repository: an agent reads it and proposes the config and overview. Nothing is written before you confirm.{' '}
          {initSessions.map((x) => (
            <button key={x.id} className="link link-inline" onClick={() => setView({ name: 'session', sessionId: x.id })} data-testid="feature-init-session">
              Watch {x.title}
            </button>
          ))}{' '}
          <button className="link link-inline" onClick={() => setView({ name: 'terminals' })} data-testid="feature-init-terminals">
            Its commands in Terminals
          </button>
        </div>
      )}
      {proposal && (
        <div className="feature-init-result" data-testid="feature-init-preview" role="region" aria-label="Files init will write">
          <p>Init will write these files (the agents changed nothing):</p>
          {proposal.files.map((f) => (
            <details key={f.path} open>
              <summary className="mono small">{f.path}</summary>
              <pre className="tool-pre">{f.text}</pre>
            </details>
          ))}
          <div className="view-actions">
            <button className="button primary" onClick={() => void decide(true)} disabled={initing} data-testid="feature-init-write">
              Write these files
            </button>
            <button className="button" onClick={() => void decide(false)} disabled={initing} data-testid="feature-init-cancel">
              Cancel
            </button>
          </div>
        </div>
      )}
      {result && (
        <div className="feature-init-result" data-testid="feature-init-result" role="status">
          <p>
            <Icon name="check" size={14} /> Wrote <span className="mono">{result.configPath}</span> and <span className="mono">{result.overviewPath}</span>
            {result.gitignoreUpdated ? ', and added .trees/ to .gitignore' : ''}.
          </p>
          {result.checks.length > 0 ? (
            <div className="muted small">
              Checks, run in this order:
              <ol className="init-checks" data-testid="feature-init-checks">
                {result.checks.map((c, i) => (
                  <li key={`${i}:${c}`}>
                    <code>{c}</code>
                  </li>
                ))}
              </ol>
            </div>
          ) : (
            <p className="muted small">Checks: none found</p>
          )}
          {result.notes.length > 0 && (
            <ul className="muted small">
              {result.notes.map((n) => (
                <li key={n}>{n}</li>
              ))}
            </ul>
          )}
          {result.sessionIds.length > 0 && (
            <p className="small">
              {result.sessionIds.map((id, i) => (
                <button key={id} className="link link-inline" onClick={() => setView({ name: 'session', sessionId: id })}>
                  {i === 0 ? 'The analysis' : 'The setup'}
                </button>
              ))}
            </p>
          )}
        </div>
      )}
      {drafts.length === 0 ? (
        <p className="muted">No plan in progress. Plan a feature to discuss it with the Planner; approved plans appear on the board.</p>
      ) : (
        <>
          <h4 className="features-subheading">Plans being discussed or reviewed</h4>
          <ul className="plan-rows" data-testid="plan-rows">
            {drafts.map((d) => (
              <li key={d.id} className="plan-row">
                <button className="link plan-row-main" onClick={() => setView({ name: 'plan', draftId: d.id, screen: d.revision !== null ? 'review' : 'chat' })} data-testid="plan-row">
                  <Icon name="chat" size={14} />
                  <span className="mono truncate">{d.slug}</span>
                </button>
                <span className={`badge ${d.status === 'review' ? 'badge-warn' : ''}`}>{DRAFT_STATUS_LABEL[d.status]}</span>
                <span className="muted small">{relativeTime(d.updatedAt)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {features.length > 0 && (
        <>
          <h4 className="features-subheading">Planned and running</h4>
          <ul className="plan-rows" data-testid="project-features">
            {features.map((f) => (
              <li key={f.slug} className="plan-row">
                <button className="link plan-row-main" onClick={() => setView({ name: 'feature', projectId, slug: f.slug })} data-testid="project-feature">
                  <Icon name="branch" size={14} />
                  <span className="mono truncate">{f.slug}</span>
                </button>
                <span className={`badge ${f.problem ? 'badge-bad' : f.status === 'failed' ? 'badge-bad' : f.status === 'completed' || f.status === 'merged' ? 'badge-ok' : ''}`} title={f.problem?.message}>
                  {f.problem ? 'unreadable state' : (f.status ?? 'unknown').replace('_', ' ')}
                </span>
                <span className="muted small">{usd(f.costUsd)}</span>
              </li>
            ))}
          </ul>
        </>
      )}
      {planning && <NewPlanDialog projectId={projectId} fromIssue={planning === 'issue'} onClose={() => setPlanning(false)} />}
    </div>
  );
}
