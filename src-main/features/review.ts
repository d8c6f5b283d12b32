/**
 * What a person reviews of a feature: its branch's changes against the base (what a pull
 * request would show, plus whatever the agent has not committed yet), and what model calls
 * cost per day, across projects or in one. Read-only: nothing here changes a file or a ref.
 */
import { existsSync } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import type { ChangeSet } from '../../src-preload/contract/changes';
import type { Database } from '../store/db';
import { git, GitError } from '../git/git';
import { listChanges } from '../changes/changes-service';
import { FeatureError } from './errors';
import { findFeature, scanFeatures } from './scanner';

export interface FeatureDiff {
  slug: string;
  branch: string;
  base: string;
  /** The commit the branch started from on the base (what the diff is against); null when not found. */
  mergeBase: string | null;
  changes: ChangeSet;
}

/** The feature branch's changes against the point where it left its base, uncommitted work included. */
export async function featureDiff(repoRoot: string, slug: string): Promise<FeatureDiff> {
  const { feature, problems } = await findFeature(repoRoot, slug);
  if (!feature) {
    if (problems[0]) throw problems[0];
    throw new FeatureError('state', `There is no feature "${slug}" in ${repoRoot}.`);
  }
  const { branch, base_branch: base, worktree_path: wt } = feature.state.git;
  const worktree = isAbsolute(wt) ? wt : join(repoRoot, wt);
  const empty = (problem: string): FeatureDiff => ({ slug, branch, base, mergeBase: null, changes: { root: worktree, gitRepo: false, branch, files: [], problem } });
  if (feature.source === 'merged' || !existsSync(worktree)) {
    return empty(feature.source === 'merged' ? `"${slug}" is merged: its changes are in ${base}'s history.` : `The worktree ${worktree} does not exist any more.`);
  }
  let mergeBase: string;
  try {
    mergeBase = (await git(['merge-base', base, 'HEAD'], { cwd: worktree })).trim();
  } catch (e) {
    if (!(e instanceof GitError)) throw e;
    return empty(`The base branch "${base}" and "${branch}" have no common commit (${e.message.split('\n')[0]}).`);
  }
  return { slug, branch, base, mergeBase, changes: await listChanges(worktree, { base: mergeBase }) };
}

export interface SpendDay {
  /** The local calendar day, YYYY-MM-DD. */
  day: string;
  usd: number;
  calls: number;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Model spend per calendar day (in the user's time zone, given as minutes east of UTC), for the
 * last `days` days, optionally for one project. Days without spend are included as zero so a
 * chart shows the gaps.
 */
export function spendPerDay(db: Database, o: { days: number; tzOffsetMinutes: number; projectId?: string; now?: number }): SpendDay[] {
  const now = o.now ?? Date.now();
  const offsetMs = o.tzOffsetMinutes * 60_000;
  const dayOf = (ms: number) => new Date(ms + offsetMs).toISOString().slice(0, 10);
  const today = Date.parse(`${dayOf(now)}T00:00:00Z`) - offsetMs;
  const from = today - (o.days - 1) * 86_400_000;
  const rows = db
    .prepare(
      `SELECT c.created_at AS at, c.usd AS usd, c.input_tokens AS inputTokens, c.output_tokens AS outputTokens
       FROM agent_costs c ${o.projectId ? 'JOIN agent_sessions s ON s.id = c.session_id' : ''}
       WHERE c.created_at >= ? ${o.projectId ? 'AND s.project_id = ?' : ''}`,
    )
    .all(...(o.projectId ? [from, o.projectId] : [from])) as Array<{ at: number; usd: number; inputTokens: number; outputTokens: number }>;
  const byDay = new Map<string, SpendDay>();
  for (let i = 0; i < o.days; i++) {
    const d = dayOf(from + i * 86_400_000 + 43_200_000);
    byDay.set(d, { day: d, usd: 0, calls: 0, inputTokens: 0, outputTokens: 0 });
  }
  for (const r of rows) {
    const d = byDay.get(dayOf(r.at));
    if (!d) continue;
    d.usd += r.usd;
    d.calls += 1;
    d.inputTokens += r.inputTokens;
    d.outputTokens += r.outputTokens;
  }
  return [...byDay.values()];
}

export interface ProjectTimelineFeature {
  slug: string;
  status: string;
  phases: Array<{ name: string; status: string; startedAt: string | null; completedAt: string | null; costUsd: number }>;
}

/** Every feature of a project with its phases' times and costs, for the project's timeline across features. */
export async function projectTimeline(repoRoot: string): Promise<{ features: ProjectTimelineFeature[]; problems: string[] }> {
  const { features, problems } = await scanFeatures(repoRoot);
  return {
    features: features.map((f) => ({
      slug: f.slug,
      status: f.state.status,
      phases: f.state.phases.map((p) => ({ name: p.name, status: p.status, startedAt: p.started_at, completedAt: p.completed_at, costUsd: p.cost_usd })),
    })),
    problems: problems.map((p) => p.message),
  };
}
