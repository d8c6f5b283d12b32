/**
 * Where a feature's pull request loop puts its card: a PR that needs the user (the most fix
 * rounds reached, a round that failed) under Needs input with the reason; a completed feature's
 * PR ready to merge, or waiting for a review, says so on its card. A live run places the card
 * itself. Pure.
 */
import type { PrBoardEntry } from '../../../src-preload/contract/pull-requests';
import { trimSlash } from '../lib/paths';
import type { Placement } from './board-model';

export type PrBoardStatus = Pick<PrBoardEntry, 'status' | 'reason' | 'number'>;

export function prKey(projectPath: string, slug: string): string {
  return `${trimSlash(projectPath)}/${slug}`;
}

export function placeWithPr(placed: Placement, pr: PrBoardStatus | undefined, live: boolean): Placement {
  if (!pr || live) return placed;
  if (pr.status === 'needs_input') return { column: 'needs_input', reason: `PR #${pr.number}: ${pr.reason ?? 'needs you'}`, resume: false };
  if (placed.column !== 'completed') return placed;
  if (pr.status === 'ready') return { ...placed, reason: `Ready to merge (PR #${pr.number})` };
  if (pr.status === 'needs_review') return { ...placed, reason: `PR #${pr.number} needs your review` };
  if (pr.status === 'watching') return { ...placed, reason: `PR #${pr.number}: ${pr.reason ?? 'waiting for checks and reviews'}` };
  if (pr.status === 'fixing') return { ...placed, reason: `PR #${pr.number}: a fix round is queued` };
  return placed;
}
