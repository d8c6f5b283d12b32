/**
 * The pull request loop's records (migration 012): one follow per feature, its fix rounds, the
 * check runs / reviews / line comments already fed back, and its timeline events. Every change
 * of a loop step is one transaction, so a host killed at any moment leaves a state the next
 * start can go on from.
 */
import type { Database } from '../../store/db';
import type { PrCheck } from './pr-model';

export const FOLLOW_STATUSES = ['watching', 'fixing', 'needs_review', 'ready', 'needs_input', 'merged', 'closed', 'stopped'] as const;
export type FollowStatus = (typeof FOLLOW_STATUSES)[number];

export interface FollowRow {
  repoRoot: string;
  slug: string;
  number: number;
  url: string;
  branch: string;
  status: FollowStatus;
  reason: string | null;
  checks: PrCheck[];
  reviewState: string | null;
  nextPollAt: number;
  idlePolls: number;
  createdAt: number;
  updatedAt: number;
}

export type RoundStatus = 'pending' | 'sent' | 'fixed' | 'failed';

export interface RoundRow {
  repoRoot: string;
  slug: string;
  round: number;
  status: RoundStatus;
  kind: 'checks' | 'review' | 'both';
  summary: string;
  prompt: string;
  runId: string | null;
  costBefore: number;
  costUsd: number | null;
  startedAt: number;
  endedAt: number | null;
}

export type PrEventKind = 'opened' | 'checks' | 'review' | 'fix_round' | 'round_done' | 'needs_input' | 'ready' | 'merged' | 'closed' | 'note';

export interface PrEventRow {
  id: number;
  ts: number;
  kind: PrEventKind;
  message: string;
  round: number | null;
  costUsd: number | null;
}

interface RawFollow {
  repo_root: string;
  slug: string;
  number: number;
  url: string;
  branch: string;
  status: string;
  reason: string | null;
  checks_json: string;
  review_state: string | null;
  next_poll_at: number;
  idle_polls: number;
  created_at: number;
  updated_at: number;
}

function checksOf(json: string): PrCheck[] {
  try {
    const v = JSON.parse(json) as unknown;
    return Array.isArray(v) ? (v as PrCheck[]) : [];
  } catch {
    // Written by this module only; a damaged value shows as no checks until the next look rewrites it.
    return [];
  }
}

function toFollow(r: RawFollow): FollowRow {
  return {
    repoRoot: r.repo_root,
    slug: r.slug,
    number: r.number,
    url: r.url,
    branch: r.branch,
    status: ((FOLLOW_STATUSES as readonly string[]).includes(r.status) ? r.status : 'stopped') as FollowStatus,
    reason: r.reason,
    checks: checksOf(r.checks_json),
    reviewState: r.review_state,
    nextPollAt: r.next_poll_at,
    idlePolls: r.idle_polls,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

interface RawRound {
  repo_root: string;
  slug: string;
  round: number;
  status: RoundStatus;
  kind: RoundRow['kind'];
  summary: string;
  prompt: string;
  run_id: string | null;
  cost_before: number;
  cost_usd: number | null;
  started_at: number;
  ended_at: number | null;
}

function toRound(r: RawRound): RoundRow {
  return { repoRoot: r.repo_root, slug: r.slug, round: r.round, status: r.status, kind: r.kind, summary: r.summary, prompt: r.prompt, runId: r.run_id, costBefore: r.cost_before, costUsd: r.cost_usd, startedAt: r.started_at, endedAt: r.ended_at };
}

export class PrRepo {
  constructor(private readonly db: Database) {}

  get(repoRoot: string, slug: string): FollowRow | null {
    const r = this.db.prepare('SELECT * FROM pr_follows WHERE repo_root = ? AND slug = ?').get(repoRoot, slug) as RawFollow | undefined;
    return r ? toFollow(r) : null;
  }

  all(): FollowRow[] {
    return (this.db.prepare('SELECT * FROM pr_follows ORDER BY created_at').all() as RawFollow[]).map(toFollow);
  }

  /** A new follow, or the same PR followed again (a later delivery); a different PR starts afresh. */
  upsert(f: { repoRoot: string; slug: string; number: number; url: string; branch: string }, now: number): { created: boolean } {
    const old = this.get(f.repoRoot, f.slug);
    if (old && old.number === f.number) return { created: false };
    this.db.transaction(() => {
      if (old) this.forget(f.repoRoot, f.slug);
      this.db
        .prepare("INSERT INTO pr_follows (repo_root, slug, number, url, branch, status, created_at, updated_at, next_poll_at) VALUES (?, ?, ?, ?, ?, 'watching', ?, ?, ?)")
        .run(f.repoRoot, f.slug, f.number, f.url, f.branch, now, now, now);
    })();
    return { created: true };
  }

  forget(repoRoot: string, slug: string): void {
    for (const t of ['pr_follows', 'pr_rounds', 'pr_seen', 'pr_events']) this.db.prepare(`DELETE FROM ${t} WHERE repo_root = ? AND slug = ?`).run(repoRoot, slug);
  }

  update(repoRoot: string, slug: string, patch: Partial<Pick<FollowRow, 'status' | 'reason' | 'checks' | 'reviewState' | 'nextPollAt' | 'idlePolls'>>, now: number): void {
    const cols: string[] = ['updated_at = ?'];
    const vals: unknown[] = [now];
    if (patch.status !== undefined) {
      cols.push('status = ?');
      vals.push(patch.status);
    }
    if (patch.reason !== undefined) {
      cols.push('reason = ?');
      vals.push(patch.reason);
    }
    if (patch.checks !== undefined) {
      cols.push('checks_json = ?');
      vals.push(JSON.stringify(patch.checks));
    }
    if (patch.reviewState !== undefined) {
      cols.push('review_state = ?');
      vals.push(patch.reviewState);
    }
    if (patch.nextPollAt !== undefined) {
      cols.push('next_poll_at = ?');
      vals.push(patch.nextPollAt);
    }
    if (patch.idlePolls !== undefined) {
      cols.push('idle_polls = ?');
      vals.push(patch.idlePolls);
    }
    this.db.prepare(`UPDATE pr_follows SET ${cols.join(', ')} WHERE repo_root = ? AND slug = ?`).run(...vals, repoRoot, slug);
  }

  // ---- rounds -----------------------------------------------------------------------------------

  rounds(repoRoot: string, slug: string): RoundRow[] {
    return (this.db.prepare('SELECT * FROM pr_rounds WHERE repo_root = ? AND slug = ? ORDER BY round').all(repoRoot, slug) as RawRound[]).map(toRound);
  }

  /** The round waiting for its run's agent: pending, or sent by a run whose process died. */
  openRound(repoRoot: string, slug: string): RoundRow | null {
    const r = this.db.prepare("SELECT * FROM pr_rounds WHERE repo_root = ? AND slug = ? AND status IN ('pending', 'sent') ORDER BY round DESC LIMIT 1").get(repoRoot, slug) as RawRound | undefined;
    return r ? toRound(r) : null;
  }

  lastRound(repoRoot: string, slug: string): RoundRow | null {
    const r = this.db.prepare('SELECT * FROM pr_rounds WHERE repo_root = ? AND slug = ? ORDER BY round DESC LIMIT 1').get(repoRoot, slug) as RawRound | undefined;
    return r ? toRound(r) : null;
  }

  /**
   * A fix round, the items it feeds back marked seen, the follow set to fixing and the event:
   * one transaction, so the same failure is never fed twice and never lost.
   */
  startRound(o: { repoRoot: string; slug: string; round: number; kind: RoundRow['kind']; summary: string; prompt: string; costBefore: number; seen: ReadonlyArray<{ kind: 'check' | 'review' | 'comment'; id: string }> }, now: number): void {
    this.db.transaction(() => {
      this.db
        .prepare("INSERT INTO pr_rounds (repo_root, slug, round, status, kind, summary, prompt, cost_before, started_at) VALUES (?, ?, ?, 'pending', ?, ?, ?, ?, ?)")
        .run(o.repoRoot, o.slug, o.round, o.kind, o.summary, o.prompt, o.costBefore, now);
      this.markSeen(o.repoRoot, o.slug, o.seen, o.round);
      this.update(o.repoRoot, o.slug, { status: 'fixing', reason: null }, now);
      this.addEvent(o.repoRoot, o.slug, { kind: 'fix_round', message: `Fix round ${o.round}: ${o.summary}`, round: o.round }, now);
    })();
  }

  markSeen(repoRoot: string, slug: string, items: ReadonlyArray<{ kind: 'check' | 'review' | 'comment'; id: string }>, round: number | null): void {
    const ins = this.db.prepare('INSERT OR IGNORE INTO pr_seen (repo_root, slug, kind, item_id, round) VALUES (?, ?, ?, ?, ?)');
    for (const i of items) ins.run(repoRoot, slug, i.kind, i.id, round);
  }

  seen(repoRoot: string, slug: string): Set<string> {
    const rows = this.db.prepare('SELECT kind, item_id FROM pr_seen WHERE repo_root = ? AND slug = ?').all(repoRoot, slug) as Array<{ kind: string; item_id: string }>;
    return new Set(rows.map((r) => `${r.kind}\0${r.item_id}`));
  }

  setRound(repoRoot: string, slug: string, round: number, patch: { status?: RoundStatus; runId?: string; costUsd?: number; endedAt?: number }): void {
    const cols: string[] = [];
    const vals: unknown[] = [];
    if (patch.status !== undefined) {
      cols.push('status = ?');
      vals.push(patch.status);
    }
    if (patch.runId !== undefined) {
      cols.push('run_id = ?');
      vals.push(patch.runId);
    }
    if (patch.costUsd !== undefined) {
      cols.push('cost_usd = ?');
      vals.push(patch.costUsd);
    }
    if (patch.endedAt !== undefined) {
      cols.push('ended_at = ?');
      vals.push(patch.endedAt);
    }
    if (cols.length === 0) return;
    this.db.prepare(`UPDATE pr_rounds SET ${cols.join(', ')} WHERE repo_root = ? AND slug = ? AND round = ?`).run(...vals, repoRoot, slug, round);
  }

  // ---- events -----------------------------------------------------------------------------------

  addEvent(repoRoot: string, slug: string, e: { kind: PrEventKind; message: string; round?: number | null; costUsd?: number | null }, now: number): void {
    this.db.prepare('INSERT INTO pr_events (repo_root, slug, ts, kind, message, round, cost_usd) VALUES (?, ?, ?, ?, ?, ?, ?)').run(repoRoot, slug, now, e.kind, e.message, e.round ?? null, e.costUsd ?? null);
  }

  events(repoRoot: string, slug: string): PrEventRow[] {
    return (this.db.prepare('SELECT id, ts, kind, message, round, cost_usd AS costUsd FROM pr_events WHERE repo_root = ? AND slug = ? ORDER BY id').all(repoRoot, slug) as PrEventRow[]).map((e) => ({ ...e }));
  }

  /** The last event's kind and message (a look that found what the previous one did adds nothing). */
  lastEvent(repoRoot: string, slug: string): PrEventRow | null {
    return (this.db.prepare('SELECT id, ts, kind, message, round, cost_usd AS costUsd FROM pr_events WHERE repo_root = ? AND slug = ? ORDER BY id DESC LIMIT 1').get(repoRoot, slug) as PrEventRow | undefined) ?? null;
  }
}
