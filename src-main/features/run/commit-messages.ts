/**
 * Honest messages for the commits a feature run makes before review rounds and verify attempts.
 * Before a review round the run commits what a fix round (or a resumed run) left, without the
 * feature's own record; before a verify attempt everything, the record included (the checks run
 * on a clean tree). A commit is called a fix only when a fix round came before it and it holds
 * more than the record; the record alone is bookkeeping. Pure.
 */
import { recordPath } from '../config';

export type RoundKind = 'review' | 'verify';

/**
 * `round` is the round about to start (1 = the first, before any fix was asked for); `staged`,
 * when known, the paths the commit holds, relative to the worktree.
 */
export function roundCommitMessage(slug: string, kind: RoundKind, round: number, staged?: readonly string[]): string {
  const record = `${recordPath(slug)}/`;
  if (staged && staged.length > 0 && staged.every((p) => p.startsWith(record))) return `chore(${slug}): update the feature record before ${kind}`;
  if (round <= 1) return `feat(${slug}): uncommitted changes before ${kind}`;
  const what = kind === 'review' ? 'review round' : 'verify attempt';
  return `fix(${slug}): ${kind} fixes after ${what} ${round - 1}`;
}
