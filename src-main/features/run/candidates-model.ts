/**
 * The pure rules of best-of-N candidates: their names (branch, worktree, archive ref), the
 * budget of each, where one stands as its runs' events tell, which added files are tests, and
 * the judge's answer. No git, no SQLite: ./candidates-service.ts gathers the evidence.
 */
import { parse as parseYaml } from 'yaml';
import type { CandidateBudget, CandidateStatus, FeatureRunStatus, ReviewSeverity, RunEventData } from '../../../src-preload/contract';
import { TREES_DIR } from '../scanner';

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
 * A candidate's progress from its runs' events, oldest first, and its latest run's status. The
 * events are what the runner saw (the real checks' exit codes, the review answers it parsed) and
 * live in the app's event log, out of the agent's reach; the candidate's state.yml sits in a
 * worktree its agent writes, so a candidate could claim there that its checks passed.
 */
export function candidateProgress(events: readonly RunEventData[], runStatus: FeatureRunStatus | null, checks: readonly string[]): CandidateProgress {
  let total: string[] = [];
  const done = new Set<string>();
  let current: string | null = null;
  let lastVerify: Extract<RunEventData, { type: 'VerifyAttempt' }> | null = null;
  let verifyAttempts = 0;
  let lastReview: Extract<RunEventData, { type: 'ReviewRound' }> | null = null;
  let finish: Extract<RunEventData, { type: 'RunFinished' }> | null = null;
  for (const e of events) {
    if (e.type === 'RunStarting') {
      total = e.phases.filter((p) => p.kind !== 'pr').map((p) => p.name);
      done.clear();
      for (const p of e.phases) if (p.status === 'completed' && p.kind !== 'pr') done.add(p.name);
      finish = null;
    } else if (e.type === 'PhaseStarting') current = e.name;
    else if (e.type === 'PhaseCompleted' && e.success) done.add(e.name);
    else if (e.type === 'VerifyAttempt') {
      lastVerify = e;
      verifyAttempts++;
    } else if (e.type === 'ReviewRound' && e.parsed) lastReview = e;
    else if (e.type === 'RunFinished') finish = e;
  }
  const live = runStatus === 'queued' || runStatus === 'running' || runStatus === 'cancelling';
  const status: CandidateStatus = live
    ? runStatus === 'queued'
      ? 'queued'
      : 'running'
    : finish?.success && total.length > 0 && total.every((n) => done.has(n))
      ? 'finished'
      : finish?.outcome === 'failed' || runStatus === 'failed'
        ? 'failed'
        : runStatus === null
          ? 'queued'
          : 'stopped';
  const ran = lastVerify?.checks ?? [];
  const commands = [...checks, ...ran.map((c) => c.command).filter((c) => !checks.includes(c))];
  const checkVerdicts = commands.map((command) => {
    const outcome = ran.find((c) => c.command === command);
    return { command, verdict: (outcome ? (outcome.passed ? 'passed' : 'failed') : 'not_run') as 'passed' | 'failed' | 'not_run' };
  });
  const reviewIssues = Object.fromEntries(SEVERITIES.map((s) => [s, 0])) as Record<ReviewSeverity, number>;
  for (const i of lastReview?.issues ?? []) reviewIssues[i.severity] += 1;
  const phase = status === 'finished' ? null : (total.find((n) => !done.has(n)) ?? current);
  return { status, phase, phasesDone: total.filter((n) => done.has(n)).length, phasesTotal: total.length, checks: checkVerdicts, verifyAttempts, reviewIssues };
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
