/**
 * The board's model, free of React: which column a feature belongs in, the filter, and where
 * the keyboard focus goes on an arrow key. The board renders whatever this returns, so the
 * rules are tested here once.
 */
import type { ProjectFeatures } from '../../../src-preload/contract/features';
import type { FeatureRunInfo } from '../../../src-preload/contract/feature-runs';
import type { AutopilotRun } from '../../../src-preload/contract/autopilot';
import { trimSlash } from '../lib/paths';
import { placeWithPr, type PrBoardStatus } from './pr-placement';

export const BOARD_COLUMNS = ['planned', 'in_progress', 'needs_input', 'completed', 'failed', 'merged'] as const;
export type BoardColumn = (typeof BOARD_COLUMNS)[number];

export const COLUMN_LABEL: Record<BoardColumn, string> = {
  planned: 'Planned',
  in_progress: 'In progress',
  needs_input: 'Needs input',
  completed: 'Completed',
  failed: 'Failed or stopped',
  merged: 'Merged',
};

/** What a card needs; built from the host's feature list and run queue (toBoardCards). */
export interface BoardCard {
  /** Unique across projects: `<repository root>/<slug>`. */
  key: string;
  /** Null for a repository that is not (or no longer) a project of this app. */
  projectId: string | null;
  projectName: string;
  slug: string;
  status: 'planned' | 'in_progress' | 'completed' | 'failed' | 'merged';
  branch: string;
  /** The phase running now, next to run, or failed (null when all are done or nothing is known). */
  phase: { name: string; running: boolean; startedAt: number | null; failed: boolean; position: string | null } | null;
  costUsd: number;
  turns: number;
  /** Approvals or questions waiting for the user. */
  waiting: number;
  updatedAt: number;
  /** The state file cannot be read (the card shows its last good content, or only this). */
  problem: string | null;
  /** Where the facts put it (placeFeature). */
  column: BoardColumn;
  /** Why it is there when that is not obvious: what waits for the user, why it failed or stopped. */
  reason: string | null;
  /** Nothing runs it, and a run would continue it: the card offers Resume. */
  resume: boolean;
  /** A blocked autopilot run shown among the features (its answer is asked on the run's page). */
  autopilotRunId?: string;
  /** The issue the feature was planned from, linked from the card. */
  issue?: { number: number; url: string; title: string } | null;
  /** Its best-of-N candidates while it is tried by several (one card for all), each with its run's status and phase. */
  candidates?: Array<{ label: string; status: FeatureRunInfo['status']; phase: string | null }>;
}

/** What is known about one feature, from the main process; the column follows from these alone. */
export interface FeatureFacts {
  /** state.yml's status; null when no good copy of it was ever read. */
  state: BoardCard['status'] | null;
  /** Why the state file cannot be read. */
  problem: string | null;
  /** The phase state.yml says failed, if any. */
  failedPhase: string | null;
  /** A run of it held by a live process (queued, running, being cancelled). */
  liveRun: Pick<FeatureRunInfo, 'status' | 'position' | 'phase'> | null;
  /** Its latest run when none is live. */
  lastRun: Pick<FeatureRunInfo, 'status' | 'message'> | null;
  /** Approvals waiting in its worktree. */
  approvals: number;
}

export interface Placement {
  column: BoardColumn;
  reason: string | null;
  resume: boolean;
}

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The column a feature belongs in, from facts only (never from how it looked a moment ago):
 * merged and unreadable first, then anything waiting for the user, then a live run, then how
 * it ended. A feature in progress that no live process runs is stopped, with its reason and
 * Resume — a crashed run must not sit under In progress.
 */
export function placeFeature(f: FeatureFacts): Placement {
  if (f.state === 'merged') return { column: 'merged', reason: null, resume: false };
  if (f.state === null) return { column: 'failed', reason: f.problem ?? 'Its state file cannot be read.', resume: false };
  // Finished work has nothing to ask (an approval left in its worktree belongs to a session there).
  if (f.state === 'completed' && !f.liveRun) return { column: 'completed', reason: null, resume: false };
  if (f.approvals > 0) return { column: 'needs_input', reason: `${plural(f.approvals, 'approval')} waiting`, resume: false };
  if (f.liveRun) {
    const reason = f.liveRun.status === 'queued' ? `Queued${f.liveRun.position ? ` (#${f.liveRun.position})` : ''}` : f.liveRun.status === 'cancelling' ? 'Cancelling' : null;
    return { column: 'in_progress', reason, resume: false };
  }
  const last = f.lastRun;
  if (last?.status === 'waiting') return { column: 'needs_input', reason: last.message ?? 'An approval nobody could answer stopped the run; Resume asks it again.', resume: true };
  if (f.state === 'planned' && !last) return { column: 'planned', reason: null, resume: false };
  if (last?.status === 'failed') return { column: 'failed', reason: last.message ?? (f.failedPhase ? `Phase ${f.failedPhase} failed.` : 'The run failed.'), resume: true };
  if (f.state === 'failed' || f.failedPhase) return { column: 'failed', reason: f.failedPhase ? `Phase ${f.failedPhase} failed.` : 'The feature failed.', resume: true };
  if (last?.status === 'interrupted') return { column: 'failed', reason: `Stopped: ${last.message ?? 'the process running it ended.'}`, resume: true };
  if (last?.status === 'cancelled') return { column: 'failed', reason: 'Stopped: the run was cancelled.', resume: true };
  if (f.state === 'planned') return { column: 'planned', reason: null, resume: false };
  // In progress in its state file, yet no live process runs it and no run says why.
  return { column: 'failed', reason: 'Stopped: no Flightdeck process is running it.', resume: true };
}

export function columnOf(card: BoardCard): BoardColumn {
  return card.column;
}

/** A blocked autopilot run waits for the user's answer: it belongs under Needs input with the features. */
export function autopilotCards(runs: readonly AutopilotRun[], projectName: (projectId: string | null, repo: string) => string): BoardCard[] {
  return runs
    .filter((r) => r.status === 'stopped' && r.state.exitReason === 'blocked')
    .map((r) => ({
      key: `autopilot/${r.id}`,
      projectId: r.projectId,
      projectName: projectName(r.projectId, r.repo),
      slug: r.branch || r.id,
      status: 'in_progress' as const,
      branch: r.branch,
      phase: null,
      costUsd: r.costUsd,
      turns: 0,
      waiting: 1,
      updatedAt: r.updatedAt,
      problem: null,
      column: 'needs_input' as const,
      reason: `Autopilot blocked${r.state.blockedStepId ? ` at step ${r.state.blockedStepId}` : ''}: answer to go on`,
      resume: false,
      autopilotRunId: r.id,
    }));
}

/** How each column's cards are ordered. */
export type BoardSort = 'activity' | 'name' | 'cost';

export interface BoardFilter {
  /** null: every project. */
  projectId: string | null;
  text: string;
}

/** Every word of the text must occur in the slug, project, branch or current phase (any case). */
export function matches(card: BoardCard, filter: BoardFilter): boolean {
  if (filter.projectId !== null && card.projectId !== filter.projectId) return false;
  const words = filter.text.toLowerCase().split(/\s+/).filter(Boolean);
  if (words.length === 0) return true;
  const hay = `${card.slug} ${card.projectName} ${card.branch} ${card.phase?.name ?? ''}`.toLowerCase();
  return words.every((w) => hay.includes(w));
}

export type Columns = Record<BoardColumn, BoardCard[]>;

/** The filtered cards per column, by last activity (newest first), name or cost (ties by project then slug, so the order is stable). */
export function groupCards(cards: readonly BoardCard[], filter: BoardFilter, sort: BoardSort = 'activity'): Columns {
  const out = Object.fromEntries(BOARD_COLUMNS.map((c) => [c, [] as BoardCard[]])) as Columns;
  for (const c of cards) if (matches(c, filter)) out[columnOf(c)].push(c);
  const tie = (a: BoardCard, b: BoardCard) => a.projectName.localeCompare(b.projectName) || a.slug.localeCompare(b.slug);
  const by = sort === 'name' ? (a: BoardCard, b: BoardCard) => a.slug.localeCompare(b.slug) || tie(a, b) : sort === 'cost' ? (a: BoardCard, b: BoardCard) => b.costUsd - a.costUsd || tie(a, b) : (a: BoardCard, b: BoardCard) => b.updatedAt - a.updatedAt || tie(a, b);
  for (const col of BOARD_COLUMNS) out[col].sort(by);
  return out;
}

export interface BoardPos {
  column: number;
  row: number;
}

/**
 * Where the focus goes on a key: up and down within a column, left and right to the nearest
 * column that has cards (keeping the row as far as it exists), Home and End to a column's ends.
 * Returns null for keys the board does not handle.
 */
export function moveFocus(columns: Columns, pos: BoardPos, key: string): BoardPos | null {
  const sizes = BOARD_COLUMNS.map((c) => columns[c].length);
  const size = sizes[pos.column] ?? 0;
  switch (key) {
    case 'ArrowUp':
      return { column: pos.column, row: Math.max(0, pos.row - 1) };
    case 'ArrowDown':
      return { column: pos.column, row: Math.max(0, Math.min(size - 1, pos.row + 1)) };
    case 'Home':
      return { column: pos.column, row: 0 };
    case 'End':
      return { column: pos.column, row: Math.max(0, size - 1) };
    case 'ArrowLeft':
    case 'ArrowRight': {
      const step = key === 'ArrowLeft' ? -1 : 1;
      for (let c = pos.column + step; c >= 0 && c < sizes.length; c += step) {
        if (sizes[c]! > 0) return { column: c, row: Math.min(pos.row, sizes[c]! - 1) };
      }
      return pos;
    }
    default:
      return null;
  }
}

/** The focus kept valid after the cards changed (a filter, a feature moving column). */
export function clampFocus(columns: Columns, pos: BoardPos): BoardPos | null {
  const sizes = BOARD_COLUMNS.map((c) => columns[c].length);
  if (sizes.every((s) => s === 0)) return null;
  if ((sizes[pos.column] ?? 0) > 0) return { column: pos.column, row: Math.min(pos.row, sizes[pos.column]! - 1) };
  const right = moveFocus(columns, pos, 'ArrowRight')!;
  return right !== pos ? right : moveFocus(columns, pos, 'ArrowLeft')!;
}

/** Elapsed time as a running phase shows it: 42s, 3m 05s, 1h 02m. */
export function elapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m ${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(m / 60)}h ${String(m % 60).padStart(2, '0')}m`;
}

/** Runs a live process holds (main lists another process's runs only while that process lives): the card follows them rather than the state file's last write. */
const LIVE_RUN = new Set<FeatureRunInfo['status']>(['queued', 'running', 'cancelling']);

/** A feature's worktree as an absolute path (state files keep it relative to the repository). */
export function worktreeRoot(repoRoot: string, worktreePath: string): string {
  if (worktreePath.startsWith('/') || /^[A-Za-z]:[\\/]/.test(worktreePath)) return trimSlash(worktreePath);
  return trimSlash(`${trimSlash(repoRoot)}/${worktreePath.replace(/^\.\//, '')}`);
}

/**
 * The board's cards from what the host reports: the features of every project (from their
 * state files), the runs (queued, running, waiting for an answer, with their phase), the
 * approvals waiting in each folder (a feature's agent works in its worktree), and when each
 * running phase started (from the runs' PhaseStarting events).
 */
export function toBoardCards(
  projects: readonly ProjectFeatures[],
  runs: readonly FeatureRunInfo[],
  pendingByRoot: ReadonlyMap<string, number>,
  phaseStartedAt: ReadonlyMap<string, number>,
  /** Followed pull requests by `<repo>/<slug>` (./pr-board.ts). */
  prs: ReadonlyMap<string, PrBoardStatus> = new Map(),
): BoardCard[] {
  const latestRun = new Map<string, FeatureRunInfo>();
  /** Per feature, the latest run of each candidate. */
  const candidateRuns = new Map<string, Map<string, FeatureRunInfo>>();
  for (const r of runs) {
    const k = `${trimSlash(r.projectPath)}/${r.slug}`;
    if (r.candidate) {
      const byLabel = candidateRuns.get(k) ?? new Map<string, FeatureRunInfo>();
      const seen = byLabel.get(r.candidate);
      if (!seen || r.queuedAt > seen.queuedAt) byLabel.set(r.candidate, r);
      candidateRuns.set(k, byLabel);
      continue;
    }
    const seen = latestRun.get(k);
    if (!seen || r.queuedAt > seen.queuedAt) latestRun.set(k, r);
  }
  const cards: BoardCard[] = [];
  for (const p of projects) {
    // A project's features share its root (the listing carries it once): trimmed once, not per card.
    const trimmedRoot = trimSlash(p.repoRoot);
    for (const f of p.features) {
      const key = `${trimmedRoot}/${f.slug}`;
      const run = latestRun.get(key);
      // Candidates run while the feature itself is still planned; after the pick it runs as itself.
      const cands = f.status === 'planned' ? [...(candidateRuns.get(key)?.values() ?? [])].sort((a, b) => a.candidate!.localeCompare(b.candidate!)) : [];
      const liveCandidate = cands.find((c) => LIVE_RUN.has(c.status)) ?? null;
      const live = (run && LIVE_RUN.has(run.status) ? run : null) ?? liveCandidate;
      const pending = f.worktreePath && pendingByRoot.size > 0 ? (pendingByRoot.get(worktreeRoot(p.repoRoot, f.worktreePath)) ?? 0) : 0;
      let placed = placeFeature({
        state: f.status,
        problem: f.problem ? f.problem.message : null,
        failedPhase: f.currentPhase?.status === 'failed' ? f.currentPhase.name : null,
        liveRun: live ?? null,
        lastRun: !live && run ? run : null,
        approvals: pending,
      });
      placed = placeWithPr(placed, prs.get(key), live !== null);
      if (cands.length > 0 && !live && placed.column === 'planned') placed = { column: 'needs_input', reason: 'Candidates finished: compare them and pick one.', resume: false };
      // No good state ever read: only its problem is known, which is a failure to look at.
      let status: BoardCard['status'] = f.status ?? 'failed';
      if (live && (status === 'planned' || status === 'failed' || status === 'completed')) status = 'in_progress';
      cards.push({
        ...placed,
        key,
        projectId: p.projectId,
        projectName: p.name,
        slug: f.slug,
        status,
        branch: f.branch ?? '',
        phase: phaseOf(f, live, phaseStartedAt),
        costUsd: f.costUsd,
        turns: f.turns,
        waiting: pending + (placed.column === 'needs_input' && pending === 0 ? 1 : 0),
        // Last activity: the state file's last write, or a run's start or end, whichever is latest.
        updatedAt: Math.max(f.updatedAt ? Date.parse(f.updatedAt) || 0 : 0, run?.startedAt ?? 0, run?.endedAt ?? 0, run?.queuedAt ?? 0),
        problem: f.problem ? f.problem.message : null,
        issue: f.issue ?? null,
        ...(cands.length > 0 ? { candidates: cands.map((c) => ({ label: c.candidate!, status: c.status, phase: c.phase })) } : {}),
      });
    }
  }
  return cards;
}

/**
 * A live run's phase wins (it moves before the state file is written); otherwise the state
 * file's current phase. A phase the file says is running without a live run is not shown as
 * running: nothing is (the run was cancelled or the app stopped; resume continues it).
 */
function phaseOf(f: ProjectFeatures['features'][number], live: FeatureRunInfo | null, startedAt: ReadonlyMap<string, number>): BoardCard['phase'] {
  const cur = f.currentPhase;
  const position = (name: string) => (cur && cur.name === name ? `${cur.index + 1}/${cur.count}` : null);
  if (live && live.phase) {
    return { name: live.phase, running: live.status === 'running', startedAt: startedAt.get(live.id) ?? live.startedAt, failed: false, position: position(live.phase) };
  }
  if (!cur || f.status === 'completed' || f.status === 'merged') return null;
  return { name: cur.name, running: false, startedAt: null, failed: cur.status === 'failed', position: position(cur.name) };
}
