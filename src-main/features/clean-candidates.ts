/**
 * Which features `clean` may remove. With `gh`: those whose PR is merged or closed (the known PR
 * number is asked directly, else the PRs whose head is the branch). Without `gh`: those whose
 * branch is merged into the base locally, squash and rebase merges included (./merge-detect).
 * `decideCandidate` is the pure rule; `findCleanCandidates` gathers the evidence for it.
 */
import type { GhOps, GhResult, PrInfo } from './git-ops';
import type { MergeMethod, MergeVerdict } from './merge-detect';

export interface CleanFeature {
  slug: string;
  branch: string;
  prNumber?: number;
}

/** What was found out about one feature. */
export type CleanEvidence =
  | { source: 'gh'; prs: readonly PrInfo[] }
  | { source: 'local'; verdict: MergeVerdict }
  | { source: 'error'; message: string };

export type CleanDecision =
  | { candidate: true; reason: 'pr_merged' | 'pr_closed'; pr: PrInfo }
  | { candidate: true; reason: 'merged_locally'; method: MergeMethod }
  | { candidate: false; why: string };

/** The PR that speaks for the branch: a merged one wins, then an open one (work goes on), then closed. */
function decisivePr(prs: readonly PrInfo[]): PrInfo | undefined {
  return prs.find((p) => p.state === 'MERGED') ?? prs.find((p) => p.state === 'OPEN') ?? prs[0];
}

export function decideCandidate(evidence: CleanEvidence): CleanDecision {
  if (evidence.source === 'error') return { candidate: false, why: evidence.message };
  if (evidence.source === 'local') {
    return evidence.verdict.merged ? { candidate: true, reason: 'merged_locally', method: evidence.verdict.method } : { candidate: false, why: 'branch not merged into the base' };
  }
  const pr = decisivePr(evidence.prs);
  if (!pr) return { candidate: false, why: 'no pull request for the branch' };
  if (pr.state === 'MERGED') return { candidate: true, reason: 'pr_merged', pr };
  if (pr.state === 'CLOSED') return { candidate: true, reason: 'pr_closed', pr };
  return { candidate: false, why: `pull request #${pr.number} is open` };
}

export interface CleanContext {
  repo: string;
  base: string;
  gh: GhOps;
  isMerged(repo: string, branch: string, base: string): Promise<MergeVerdict>;
}

async function evidenceFor(f: CleanFeature, ctx: CleanContext, useGh: boolean): Promise<CleanEvidence> {
  try {
    if (!useGh) return { source: 'local', verdict: await ctx.isMerged(ctx.repo, f.branch, ctx.base) };
    const res: GhResult<PrInfo[]> = f.prNumber !== undefined ? wrap(await ctx.gh.prView(ctx.repo, f.prNumber)) : await ctx.gh.prList(ctx.repo, f.branch);
    return res.ok ? { source: 'gh', prs: res.value } : { source: 'error', message: res.message };
  } catch (e) {
    // One feature whose check fails (a deleted branch) must not hide the others: it is reported as not removable.
    return { source: 'error', message: (e as Error).message };
  }
}

function wrap(r: GhResult<PrInfo>): GhResult<PrInfo[]> {
  return r.ok ? { ok: true, value: [r.value] } : r;
}

export interface CleanReportEntry {
  feature: CleanFeature;
  decision: CleanDecision;
}

/** Decisions for every feature, in the given order; `usedGh` tells which way they were judged. */
export async function findCleanCandidates(features: readonly CleanFeature[], ctx: CleanContext): Promise<{ usedGh: boolean; entries: CleanReportEntry[] }> {
  const usedGh = ctx.gh.available();
  const entries: CleanReportEntry[] = [];
  // One at a time: gh calls hit the GitHub API rate limit, and git calls share one repository.
  for (const feature of features) entries.push({ feature, decision: decideCandidate(await evidenceFor(feature, ctx, usedGh)) });
  return { usedGh, entries };
}
