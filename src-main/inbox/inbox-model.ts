/**
 * Which events become inbox entries, and what they say. Pure; unit-tested.
 */
import { basename, dirname, sep } from 'node:path';
import type { Approval, FeatureRunEvent, InboxEntry } from '../../src-preload/contract';

export type EntryDraft = Omit<InboxEntry, 'id' | 'ts' | 'read'>;

/** A feature run's end, or a budget's word, as an entry; null for every other run event. */
export function entryForRunEvent(e: FeatureRunEvent, projectId: string | null): EntryDraft | null {
  const target = { kind: 'feature' as const, projectId, projectPath: e.projectPath, slug: e.slug };
  const project = basename(e.projectPath);
  const d = e.data;
  if (d.type === 'BudgetNotice') {
    return { kind: 'budget', title: d.level === 'exceeded' ? `Budget reached: ${e.slug}` : `Budget warning: ${e.slug}`, body: d.message, target };
  }
  if (d.type !== 'RunFinished') return null;
  // A best-of-N candidate ends without delivering anything: the feature goes on when one is picked.
  if (e.candidate) {
    if (d.outcome === 'completed') return { kind: 'finished', title: `Candidate ${e.candidate} finished: ${e.slug}`, body: `${project} · compare the candidates and pick one`, target };
    if (d.outcome === 'failed') return { kind: 'failed', title: `Candidate ${e.candidate} failed: ${e.slug}`, body: d.message ?? `${project}: the candidate's run failed.`, target };
    if (d.outcome === 'waiting') return { kind: 'needs_input', title: `Candidate ${e.candidate} needs you: ${e.slug}`, body: d.message ?? `${project}: an approval is waiting.`, target };
    return null;
  }
  if (d.outcome === 'completed') {
    const where = d.delivery?.kind === 'pr' ? `pull request ${d.delivery.url}` : d.delivery?.kind === 'compare' ? `branch pushed to ${d.delivery.remote}` : 'completed locally';
    return { kind: 'finished', title: `Feature finished: ${e.slug}`, body: `${project} · ${where}`, target };
  }
  if (d.outcome === 'waiting') return { kind: 'needs_input', title: `Feature needs you: ${e.slug}`, body: d.message ?? `${project}: an approval is waiting.`, target };
  if (d.outcome === 'failed') return { kind: 'failed', title: `Feature failed: ${e.slug}`, body: d.message ?? `${project}: the run failed.`, target };
  // Cancelled by the user (they know) or interrupted by a shutdown (resumed at start): no entry.
  return null;
}

/**
 * A pending approval of an agent working in a feature worktree (`<repo>/.trees/<slug>`): the
 * feature needs input. Approvals of the user's own sessions already have their dialog.
 */
export function entryForApproval(a: Approval, sessionRoot: string | null, projectIdOf: (repo: string) => string | null): EntryDraft | null {
  if (a.status !== 'pending' || !sessionRoot) return null;
  const parent = dirname(sessionRoot);
  if (basename(parent) !== '.trees') return null;
  const repo = dirname(parent);
  const slug = basename(sessionRoot);
  if (!repo || repo === sep) return null;
  return { kind: 'needs_input', title: `Approval waiting: ${slug}`, body: a.summary, target: { kind: 'feature', projectId: projectIdOf(repo), projectPath: repo, slug }, approvalId: a.id };
}

/**
 * Which earlier entries a run event settles, so the inbox only lists what still wants the user:
 * any later step of a feature's run means its "needs you" was answered; a completed run also
 * settles its earlier failures. Pure.
 */
export function settledByRunEvent(e: FeatureRunEvent): (entry: InboxEntry) => boolean {
  const d = e.data;
  if (d.type === 'BudgetNotice' || (d.type === 'RunFinished' && d.outcome === 'waiting')) return () => false;
  // One candidate finishing settles nothing of its siblings (a failed one stays until the pick).
  if (e.candidate && d.type === 'RunFinished') return () => false;
  const kinds: ReadonlySet<InboxEntry['kind']> = d.type === 'RunFinished' && d.outcome === 'completed' ? new Set(['needs_input', 'failed']) : new Set(['needs_input']);
  return (entry) => entry.target?.kind === 'feature' && entry.target.projectPath === e.projectPath && entry.target.slug === e.slug && kinds.has(entry.kind);
}
