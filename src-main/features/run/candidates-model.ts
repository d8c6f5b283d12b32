/**
 * The pure rules of best-of-N candidates: their names (branch, worktree, archive ref), the
 * budget of each, where one stands as read from its state.yml, which added files are tests, and
 * the judge's answer. No git, no SQLite: ./candidates-service.ts gathers the evidence.
 */
import { parse as parseYaml } from 'yaml';
import type { CandidateBudget, CandidateStatus, FeatureRunStatus, ReviewSeverity } from '../../../src-preload/contract';
import type { FeatureState } from '../state';
import { TREES_DIR } from '../scanner';
import { DETAIL } from './pipeline';

/** Candidate N's label, as branches, worktrees and the UI name it. */
export function candidateLabel(index: number): string {
  return `c${index}`;
}

/**
 * `feature/<slug>--c1`: a slug never holds two hyphens in a row (contract/feature-slug.ts), so
 * no feature's own branch or worktree can be named like a candidate's, and the scanner, which
 * counts a worktree folder only through `.flightdeck/<folder name>/state.yml`, never lists a
 * candidate's worktree as a feature.
 */
export function candidateBranch(featureBranch: string, index: number): string {
  return `${featureBranch}--${candidateLabel(index)}`;
}

export function candidateWorktree(slug: string, index: number): string {
  return `${TREES_DIR}/${slug}--${candidateLabel(index)}`;
}

/** Where a closed group's candidate branch is kept (a ref outside refs/heads: not in branch lists, never garbage-collected). */
export function archiveRef(slug: string, groupId: string, index: number): string {
  return `refs/flightdeck/archive/${slug}/${groupId}/${candidateLabel(index)}`;
}

/** Each candidate's budget and the whole: the feature's run budget split evenly, or the same budget for each. */
export function candidateBudgets(budget: CandidateBudget, count: number, featureBudgetUsd: number): { each: number; total: number } {
  if (budget.mode === 'each') return { each: budget.usd, total: round2(budget.usd * count) };
  const total = budget.totalUsd ?? featureBudgetUsd;
  // Rounded down to the cent, so together they never exceed the whole.
  return { each: Math.floor((total / count) * 100) / 100, total };
}

function round2(n: number): number {
  return Math.round(n * 100) / 100;
}

/** Test files by their names, the conventions of the common runners (vitest/jest/mocha, go, pytest, cargo's tests/). */
const TEST_FILE = /(^|\/)(tests?|__tests__|spec)\/|\.(test|spec)\.[cm]?[jt]sx?$|_test\.(go|py|rb|exs?)$|(^|\/)test_[^/]*\.py$|_spec\.rb$/;

export function isTestFile(path: string): boolean {
  return TEST_FILE.test(path);
}

export interface CandidateProgress {
  status: CandidateStatus;
  phase: string | null;
  phasesDone: number;
  phasesTotal: number;
  checks: Array<{ command: string; verdict: 'passed' | 'failed' | 'not_run' }>;
  verifyAttempts: number;
  reviewIssues: Record<ReviewSeverity, number>;
}

const SEVERITIES: readonly ReviewSeverity[] = ['critical', 'major', 'minor', 'info'];

/**
 * A candidate's progress from its state.yml (what survives a restart) and its latest run's
 * status: the verdict of each configured check at its last verify attempt, and the issues of its
 * last readable review round.
 */
export function candidateProgress(state: FeatureState | null, runStatus: FeatureRunStatus | null, checks: readonly string[]): CandidateProgress {
  const phases = state?.phases ?? [];
  const done = phases.filter((p) => p.status === 'completed').length;
  const current = phases.find((p) => p.status !== 'completed');
  const live = runStatus === 'queued' || runStatus === 'running' || runStatus === 'cancelling';
  const status: CandidateStatus = live ? (runStatus === 'queued' ? 'queued' : 'running') : phases.length > 0 && done === phases.length ? 'finished' : state?.status === 'failed' || runStatus === 'failed' ? 'failed' : runStatus === null ? 'queued' : 'stopped';

  const verify = phases.find((p) => p.name === 'verify');
  const attempts = Array.isArray(verify?.details[DETAIL.attempts]) ? (verify!.details[DETAIL.attempts] as unknown[]) : [];
  const last = attempts[attempts.length - 1] as { failed_checks?: unknown } | undefined;
  const failed = Array.isArray(last?.failed_checks) ? new Set(last.failed_checks.filter((c): c is string => typeof c === 'string')) : null;
  const checkVerdicts = checks.map((command) => ({ command, verdict: (failed === null ? 'not_run' : failed.has(command) ? 'failed' : 'passed') as 'passed' | 'failed' | 'not_run' }));

  const review = phases.find((p) => p.name === 'review');
  const rounds = Array.isArray(review?.details[DETAIL.rounds]) ? (review!.details[DETAIL.rounds] as Array<{ parsed?: unknown; issues?: unknown }>) : [];
  const lastRead = [...rounds].reverse().find((r) => r.parsed === true);
  const reviewIssues = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<ReviewSeverity, number>;
  for (const i of Array.isArray(lastRead?.issues) ? lastRead.issues : []) {
    const sev = (i as { severity?: unknown }).severity;
    if (typeof sev === 'string' && (SEVERITIES as readonly string[]).includes(sev)) reviewIssues[sev as ReviewSeverity] += 1;
  }
  return { status, phase: current?.name ?? null, phasesDone: done, phasesTotal: phases.length, checks: checkVerdicts, verifyAttempts: attempts.length, reviewIssues };
}

/** Counts `git diff --numstat -z`'s answer: files, lines added and deleted (binary files count as a file, no lines). */
export function parseNumstat(z: string): Array<{ path: string; added: number; deleted: number }> {
  const out: Array<{ path: string; added: number; deleted: number }> = [];
  const parts = z.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const line = parts[i]!;
    if (!line) continue;
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(line);
    if (!m) continue;
    let path = m[3]!;
    // A rename: the path is empty and the old and new names follow as two fields.
    if (path === '') {
      i += 2;
      path = parts[i] ?? '';
    }
    out.push({ path, added: m[1] === '-' ? 0 : Number(m[1]), deleted: m[2] === '-' ? 0 : Number(m[2]) });
  }
  return out;
}

export interface JudgeAnswer {
  ranking: Array<{ candidate: number; reason: string }>;
  summary: string;
}

/**
 * The judge's ranking from its answer's fenced yaml block: every candidate exactly once, best
 * first, each with a reason. Anything else is refused with what is wrong (the model is not trusted).
 */
export function parseJudgeAnswer(text: string, candidates: readonly number[]): { ok: true; value: JudgeAnswer } | { ok: false; reason: string } {
  const blocks = [...text.matchAll(/```ya?ml\s*\n([\s\S]*?)```/g)];
  const block = blocks[blocks.length - 1]?.[1];
  if (block === undefined) return { ok: false, reason: 'the answer has no fenced yaml block' };
  let doc: unknown;
  try {
    doc = parseYaml(block, { maxAliasCount: 0 });
  } catch (e) {
    return { ok: false, reason: `the yaml block does not parse: ${(e as Error).message.split('\n')[0]}` };
  }
  const o = doc as { ranking?: unknown; summary?: unknown } | null;
  if (!o || !Array.isArray(o.ranking)) return { ok: false, reason: 'the yaml block has no "ranking" list' };
  const ranking: JudgeAnswer['ranking'] = [];
  for (const r of o.ranking as unknown[]) {
    const e = r as { candidate?: unknown; reason?: unknown } | null;
    const raw = typeof e?.candidate === 'string' ? e.candidate.replace(/^c/i, '') : e?.candidate;
    const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (!candidates.includes(n)) return { ok: false, reason: `"${String(e?.candidate)}" is not one of the candidates (${candidates.map(candidateLabel).join(', ')})` };
    if (ranking.some((x) => x.candidate === n)) return { ok: false, reason: `${candidateLabel(n)} is ranked twice` };
    ranking.push({ candidate: n, reason: typeof e?.reason === 'string' ? e.reason.slice(0, 2_000) : '' });
  }
  const missing = candidates.filter((c) => !ranking.some((x) => x.candidate === c));
  if (missing.length > 0) return { ok: false, reason: `the ranking leaves out ${missing.map(candidateLabel).join(', ')}` };
  return { ok: true, value: { ranking, summary: typeof o.summary === 'string' ? o.summary.slice(0, 4_000) : '' } };
}
