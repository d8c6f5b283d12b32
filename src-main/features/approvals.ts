/**
 * A feature's approved agent settings, kept outside its worktree (issue 20 §1: an agent's change
 * to the repository's executable config is never trusted by itself).
 *
 * A feature's state.yml lives in its worktree, which the run's agent can write (and commit on its
 * own branch). Its `agent` block decides how the next run drives its agent: the executor, the
 * approval mode and where it works (the host, or a container with its image, engine, network,
 * GPUs and limits). So the choice made when the plan was approved is recorded here (table
 * `feature_approvals`, migration 010), and a run uses the record; a state.yml that says otherwise
 * is not used for them, and the run says so once.
 *
 * A feature without a record (planned before this existed, or a state.yml written by hand):
 * executor and mode are taken from state.yml (neither widens what the agent may do: the run's
 * default mode is already the widest one, and both executors work where the placement puts
 * them), and its placement only while the repository is trusted; otherwise the project's
 * placement (itself subject to trust) or the host applies, and the run says why.
 */
import { realpathSync } from 'node:fs';
import type { AgentMode, RunPlacement } from '../../src-preload/contract';
import type { ExecutorName } from '../agents/session-driver';
import type { Database } from '../store/db';
import type { RunAgent } from './state';

export interface ApprovedAgent {
  executor: ExecutorName;
  mode: AgentMode;
  /** Null: none chosen at approval (the project's placement, else the host). */
  placement: RunPlacement | null;
  approvedAt: number;
}

interface ApprovalRow {
  executor: string;
  mode: string;
  placement: string | null;
  approved_at: number;
}

/** The approved settings the runner uses, and the one line a run shows when state.yml's were not used. */
export interface ChosenAgent {
  executor: ExecutorName | undefined;
  mode: AgentMode | undefined;
  placement: RunPlacement | undefined;
  notice: string | null;
}

export const DIFFERS_NOTICE = "state.yml's agent settings differ from what was approved; using the approved ones";

function keyOf(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return root;
  }
}

/** JSON with sorted keys: two placements are the same when they say the same, whatever the key order. */
function canonical(v: unknown): string {
  if (v === undefined || v === null) return 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export class FeatureApprovals {
  constructor(private readonly db: Database) {}

  /** Records (or replaces: a slug planned again) what the user approved for the feature `slug` of `root`. */
  record(root: string, slug: string, agent: Pick<RunAgent, 'executor' | 'mode' | 'placement'>, at = Date.now()): void {
    this.db
      .prepare(
        'INSERT INTO feature_approvals (repo_root, slug, executor, mode, placement, approved_at) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT(repo_root, slug) DO UPDATE SET executor = excluded.executor, mode = excluded.mode, placement = excluded.placement, approved_at = excluded.approved_at',
      )
      .run(keyOf(root), slug, agent.executor, agent.mode, agent.placement ? JSON.stringify(agent.placement) : null, at);
  }

  get(root: string, slug: string): ApprovedAgent | null {
    const row = this.db.prepare('SELECT executor, mode, placement, approved_at FROM feature_approvals WHERE repo_root = ? AND slug = ?').get(keyOf(root), slug) as ApprovalRow | undefined;
    if (!row) return null;
    let placement: RunPlacement | null = null;
    try {
      placement = row.placement ? (JSON.parse(row.placement) as RunPlacement) : null;
    } catch {
      // Only Flightdeck writes this column; a damaged value keeps no placement (the host).
    }
    return { executor: row.executor as ExecutorName, mode: row.mode as AgentMode, placement, approvedAt: row.approved_at };
  }
}

/**
 * What a run uses of state.yml's `agent` block: the approved settings when there is a record
 * (with a notice when the file differs), else the file's executor and mode, and its placement only
 * while `repositoryTrusted`.
 */
export function chooseAgent(fromState: RunAgent | null | undefined, approved: ApprovedAgent | null, repositoryTrusted: boolean, root: string): ChosenAgent {
  if (approved) {
    const differs =
      fromState !== null &&
      fromState !== undefined &&
      (fromState.executor !== approved.executor || fromState.mode !== approved.mode || canonical(fromState.placement) !== canonical(approved.placement));
    // A state.yml without an agent block (older files) is the defaults, not a change: the record stands quietly.
    return { executor: approved.executor, mode: approved.mode, placement: approved.placement ?? undefined, notice: differs ? DIFFERS_NOTICE : null };
  }
  const placement = fromState?.placement;
  if (placement && !repositoryTrusted) {
    return {
      executor: fromState?.executor,
      mode: fromState?.mode,
      placement: undefined,
      notice: `state.yml's agent.placement was not used: this feature has no recorded plan approval (planned before Flightdeck recorded them, or its state.yml was written by hand) and ${root} is not trusted; the project's placement or the host applies. Trust the repository, or choose the placement for this run (Run dialog, feature run --placement).`,
    };
  }
  return { executor: fromState?.executor, mode: fromState?.mode, placement, notice: null };
}
