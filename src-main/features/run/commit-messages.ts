/**
 * Honest messages for the commits a feature run makes between review rounds and verify attempts.
 * Before each round the run commits what is uncommitted; usually that is nothing, or only the
 * feature's own record — which is no "fix". A commit is called a fix only when a fix round came
 * before it and it changes more than the record. Pure.
 */
import { FEATURES_DIR } from '../config';

export type RoundKind = 'review' | 'verify';

/**
 * `round` is the round about to start (1 = the first, before any fix was asked for); `staged`
 * the paths the commit holds, relative to the worktree.
 */
export function roundCommitMessage(slug: string, kind: RoundKind, round: number, staged: readonly string[]): string {
  const record = `${FEATURES_DIR}/${slug}/`;
  if (staged.length > 0 && staged.every((p) => p.startsWith(record))) return `chore(${slug}): update the feature record before ${kind}`;
  if (round <= 1) return `feat(${slug}): uncommitted changes before ${kind}`;
  const what = kind === 'review' ? 'review round' : 'verify attempt';
  return `fix(${slug}): ${kind} fixes after ${what} ${round - 1}`;
}
