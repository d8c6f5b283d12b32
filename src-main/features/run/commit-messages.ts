/**
 * Honest messages for the commits a feature run makes before review rounds and verify attempts.
 * Before each round the run commits what is uncommitted, leaving out the feature's own record
 * (it goes with the phase's commit): usually that is nothing. A commit is called a fix only when
 * a fix round came before it. Pure.
 */

export type RoundKind = 'review' | 'verify';

/** `round` is the round about to start (1 = the first, before any fix was asked for). */
export function roundCommitMessage(slug: string, kind: RoundKind, round: number): string {
  if (round <= 1) return `feat(${slug}): uncommitted changes before ${kind}`;
  const what = kind === 'review' ? 'review round' : 'verify attempt';
  return `fix(${slug}): ${kind} fixes after ${what} ${round - 1}`;
}
