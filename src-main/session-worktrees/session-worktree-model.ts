/**
 * Sessions in worktrees, the pure part: the name proposed for a session's worktree and the merge
 * commit messages (the page where a pull request is opened by hand is git/forge.ts's compareUrl).
 * No I/O here; SessionWorktreeService does the git and gh calls.
 */
import { MAX_SLUG_LENGTH } from '../worktrees/worktree-model';

/** Names a session worktree gets when the user does not pick one: `session-20261123-1142`. */
export const SESSION_SLUG_PREFIX = 'session';

/**
 * A free worktree name for a session started at `now` (UTC, to the minute: readable in a branch
 * list and sorted by age); `-2`, `-3`… when that name is taken by a worktree, a branch or an archive.
 */
export function suggestSessionSlug(now: Date, taken: (slug: string) => boolean): string {
  const iso = now.toISOString();
  const stamp = `${iso.slice(0, 10).replace(/-/g, '')}-${iso.slice(11, 16).replace(':', '')}`;
  const first = `${SESSION_SLUG_PREFIX}-${stamp}`.slice(0, MAX_SLUG_LENGTH);
  if (!taken(first)) return first;
  for (let n = 2; ; n++) {
    const next = `${first}-${n}`;
    if (!taken(next)) return next;
  }
}

/** The message of a merge commit, as `git merge` would write it. */
export function mergeMessage(branch: string, base: string): string {
  return `Merge branch '${branch}' into ${base}`;
}

/** Subjects listed in a squash commit's body; a long session's list is cut here. */
const MAX_SQUASHED_SUBJECTS = 50;

/** The message of a squash commit: one subject, then the squashed commits' subjects (oldest first). */
export function squashMessage(subject: string, branch: string, subjects: readonly string[]): string {
  const shown = subjects.slice(0, MAX_SQUASHED_SUBJECTS).map((s) => `* ${s}`);
  if (subjects.length > MAX_SQUASHED_SUBJECTS) shown.push(`* … and ${subjects.length - MAX_SQUASHED_SUBJECTS} more`);
  return [subject.trim() || `Squashed ${branch}`, '', `Squashed commits of ${branch}:`, '', ...shown, ''].join('\n');
}

/** The title and body of a pull request opened from a session. */
export function pullRequestText(sessionTitle: string, branch: string, subjects: readonly string[]): { title: string; body: string } {
  const title = subjects.length === 1 ? subjects[0]! : sessionTitle.trim() && sessionTitle !== 'New session' ? sessionTitle.trim() : `Changes from ${branch}`;
  const list = subjects.slice(0, MAX_SQUASHED_SUBJECTS).map((s) => `- ${s}`);
  return { title, body: ['Opened from a Flightdeck session.', '', ...(list.length ? ['Commits:', ...list] : [])].join('\n') };
}

/** Git refuses to commit without a name and email; this recognizes its message. */
export function isMissingIdentity(stderr: string): boolean {
  return /Please tell me who you are|unable to auto-detect email address|empty ident name/i.test(stderr);
}

/** Names listed in a message; the rest are counted. */
export function listNames(items: readonly string[], max: number): string {
  const shown = items.slice(0, max).join(', ');
  return items.length > max ? `${shown} and ${items.length - max} more` : shown;
}
