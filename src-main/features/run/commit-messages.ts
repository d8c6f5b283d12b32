/**
 * Honest messages for the commits a feature run makes before review rounds and verify attempts.
 * Before a round the run commits what a fix round (or a resumed run) left uncommitted, leaving
 * out the feature's own record: a commit is called a fix only when a fix round came before it.
 * Before a verify attempt the record is committed on its own, as what it is. Pure.
 */

export type RoundKind = 'review' | 'verify';

/** `round` is the round about to start (1 = the first, before any fix was asked for). */
export function roundCommitMessage(slug: string, kind: RoundKind, round: number): string {
  if (round <= 1) return `feat(${slug}): uncommitted changes before ${kind}`;
  const what = kind === 'review' ? 'review round' : 'verify attempt';
  return `fix(${slug}): ${kind} fixes after ${what} ${round - 1}`;
}

/** The feature's record committed on its own before `kind` (its checks run on a clean tree). */
export function recordCommitMessage(slug: string, kind: RoundKind): string {
  return `chore(${slug}): update the feature record before ${kind}`;
}
