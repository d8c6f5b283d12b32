/**
 * The pull request loop's rules, from what gh reports: its answers parsed (checks, the PR with
 * its reviews, line comments), what to do next (fix, wait, ready, give up, merged, closed), and
 * the fix round's request to the agent with the failed jobs' log tails and the reviewers'
 * comments anchored as diff comments are. Pure; unit-tested with malformed input.
 */
import { linesOf } from '../../review-comments/anchor';

export type CheckBucket = 'pass' | 'fail' | 'pending' | 'skipping' | 'cancel';

export interface PrCheck {
  /** What makes this check run one of its own: its job link (a re-run gets a new one), else name at the head commit. */
  id: string;
  name: string;
  workflow: string;
  bucket: CheckBucket;
  link: string;
}

export type ReviewState = 'APPROVED' | 'CHANGES_REQUESTED' | 'COMMENTED' | 'DISMISSED' | 'PENDING';

export interface PrReview {
  id: string;
  author: string;
  state: ReviewState;
  body: string;
}

export interface PrLineComment {
  id: string;
  /** The review it belongs to (null: a comment outside a review). */
  reviewId: string | null;
  author: string;
  path: string;
  lineStart: number | null;
  lineEnd: number | null;
  body: string;
  /** The diff hunk GitHub shows above it: the quote when the file's lines cannot be read. */
  diffHunk: string;
}

export type PrState = 'OPEN' | 'CLOSED' | 'MERGED';
/** '' when the repository requires no review. */
export type ReviewDecision = 'APPROVED' | 'CHANGES_REQUESTED' | 'REVIEW_REQUIRED' | '';

export interface PrView {
  number: number;
  url: string;
  state: PrState;
  reviewDecision: ReviewDecision;
  headSha: string;
  /** The branch the PR merges: the feature's, or the PR is not the feature's. */
  headRef: string;
  /** The head branch lives in another repository (a fork): a branch of that name there is not the feature's. */
  crossRepository: boolean;
  reviews: PrReview[];
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const BUCKETS: ReadonlySet<string> = new Set(['pass', 'fail', 'pending', 'skipping', 'cancel']);
const REVIEW_STATES: ReadonlySet<string> = new Set(['APPROVED', 'CHANGES_REQUESTED', 'COMMENTED', 'DISMISSED', 'PENDING']);
const DECISIONS: ReadonlySet<string> = new Set(['APPROVED', 'CHANGES_REQUESTED', 'REVIEW_REQUIRED', '']);
/**
 * Who may ask the agent for changes: the repository's owner, its organisation's members and its
 * collaborators. On a public repository anyone can submit a "changes requested" review; fed to
 * the agent, a stranger would direct the code pushed to the PR (then green and auto-merged).
 */
const MAY_REQUEST_CHANGES: ReadonlySet<string> = new Set(['OWNER', 'MEMBER', 'COLLABORATOR']);

/** `gh pr checks N --json name,state,bucket,link,workflow`; throws on anything that is not a list of checks. */
export function parseChecks(raw: unknown, headSha: string): PrCheck[] {
  if (!Array.isArray(raw)) throw new Error('expected a list of checks');
  return raw.map((c) => {
    const o = c as Record<string, unknown> | null;
    const name = str(o?.name);
    const bucket = str(o?.bucket).toLowerCase();
    if (!o || name === '' || !BUCKETS.has(bucket)) throw new Error(`unexpected check from gh: ${JSON.stringify(c)?.slice(0, 200)}`);
    const link = str(o.link);
    return { id: link || `${name}@${headSha}`, name, workflow: str(o.workflow), bucket: bucket as CheckBucket, link };
  });
}

/** `gh pr view N --json number,url,state,reviewDecision,headRefOid,headRefName,isCrossRepository,reviews`. */
export function parsePrView(raw: unknown): PrView {
  const o = raw as Record<string, unknown> | null;
  const state = str(o?.state).toUpperCase();
  if (!o || typeof o.number !== 'number' || !Number.isInteger(o.number) || (state !== 'OPEN' && state !== 'CLOSED' && state !== 'MERGED')) {
    throw new Error(`unexpected pull request from gh: ${JSON.stringify(raw)?.slice(0, 200)}`);
  }
  const decision = str(o.reviewDecision).toUpperCase();
  const reviews = Array.isArray(o.reviews) ? o.reviews : [];
  return {
    number: o.number,
    url: str(o.url),
    state,
    reviewDecision: (DECISIONS.has(decision) ? decision : '') as ReviewDecision,
    headSha: str(o.headRefOid),
    headRef: str(o.headRefName),
    // Anything but an explicit false is taken as a fork's: only our own branch is fixed or merged.
    crossRepository: o.isCrossRepository !== false,
    reviews: reviews.flatMap((r) => {
      const x = r as Record<string, unknown> | null;
      const s = str(x?.state).toUpperCase();
      const id = typeof x?.id === 'string' || typeof x?.id === 'number' ? String(x.id) : '';
      if (!x || id === '' || !REVIEW_STATES.has(s)) return [];
      // Anyone else's request for changes is a comment to the loop: shown, never a fix round.
      const state = s === 'CHANGES_REQUESTED' && !MAY_REQUEST_CHANGES.has(str(x.authorAssociation).toUpperCase()) ? 'COMMENTED' : s;
      return [{ id, author: str((x.author as { login?: unknown } | null)?.login) || 'someone', state: state as ReviewState, body: str(x.body) }];
    }),
  };
}

const posInt = (v: unknown): number | null => (typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : null);

/** `gh api repos/{owner}/{repo}/pulls/N/comments` (GitHub's REST shape); entries that are not comments are left out. */
export function parseLineComments(raw: unknown): PrLineComment[] {
  if (!Array.isArray(raw)) throw new Error('expected a list of review comments');
  return raw.flatMap((c) => {
    const o = c as Record<string, unknown> | null;
    const id = posInt(o?.id);
    if (!o || id === null || str(o.path) === '') return [];
    // `line` is null on an outdated comment (its lines are gone from the head): no anchor to quote.
    const end = posInt(o.line);
    const start = posInt(o.start_line) ?? end;
    const review = posInt(o.pull_request_review_id);
    return [
      {
        id: String(id),
        reviewId: review === null ? null : String(review),
        author: str((o.user as { login?: unknown } | null)?.login) || 'someone',
        path: str(o.path),
        lineStart: end === null ? null : Math.min(start ?? end, end),
        lineEnd: end,
        body: str(o.body),
        diffHunk: str(o.diff_hunk),
      },
    ];
  });
}

/** The Actions run of a check's link (`…/actions/runs/123/job/456`), whose failed log gh can show. */
export function runIdOf(link: string): string | null {
  const m = /\/actions\/runs\/(\d+)(?:\/|$)/.exec(link);
  return m ? m[1]! : null;
}

// ---- what to do next -----------------------------------------------------------------------

export interface PrSnapshot {
  pr: PrView;
  checks: PrCheck[];
  comments: PrLineComment[];
}

export interface Seen {
  has(kind: 'check' | 'review' | 'comment', id: string): boolean;
}

export type PrDecision =
  | { kind: 'merged' }
  | { kind: 'closed' }
  | { kind: 'wait'; why: string }
  | { kind: 'needs_review'; why: string }
  | { kind: 'ready' }
  | { kind: 'fix'; checks: PrCheck[]; reviews: PrReview[]; comments: PrLineComment[] }
  | { kind: 'give_up'; reason: string; checks: PrCheck[]; reviews: PrReview[]; comments: PrLineComment[] };

const plural = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

/**
 * The next step of the loop. Fix rounds wait until every check has ended, so one round carries
 * every failure; a check run or review already fed back is never fed again (a failing check
 * still reported after the fix was pushed is the old head's, until the new checks start).
 */
export function decide(s: PrSnapshot, seen: Seen, roundsDone: number, maxRounds: number): PrDecision {
  if (s.pr.state === 'MERGED') return { kind: 'merged' };
  if (s.pr.state === 'CLOSED') return { kind: 'closed' };
  const pending = s.checks.filter((c) => c.bucket === 'pending');
  if (pending.length > 0) return { kind: 'wait', why: `${plural(pending.length, 'check')} running` };
  const failing = s.checks.filter((c) => c.bucket === 'fail');
  const newChecks = failing.filter((c) => !seen.has('check', c.id));
  const newReviews = s.pr.reviews.filter((r) => r.state === 'CHANGES_REQUESTED' && !seen.has('review', r.id));
  // gh names reviews by GraphQL node ids and the REST comments name theirs by number: a review's
  // line comments are its author's not fed back yet.
  const reviewers = new Set(newReviews.map((r) => r.author));
  const newComments = s.comments.filter((c) => !seen.has('comment', c.id) && reviewers.has(c.author));
  if (newChecks.length > 0 || newReviews.length > 0) {
    const what = { checks: newChecks, reviews: newReviews, comments: newComments };
    if (roundsDone >= maxRounds) {
      const why = [newChecks.length > 0 ? `${plural(newChecks.length, 'check')} failed (${newChecks.map((c) => c.name).join(', ')})` : '', newReviews.length > 0 ? `changes requested by ${newReviews.map((r) => r.author).join(', ')}` : ''].filter(Boolean).join(' and ');
      return { kind: 'give_up', reason: `${why} after ${plural(roundsDone, 'fix round')}, the most pr.max_fix_rounds allows (${maxRounds}): look at the pull request, then fix it by hand or raise the limit.`, ...what };
    }
    return { kind: 'fix', ...what };
  }
  if (failing.length > 0) return { kind: 'wait', why: `${plural(failing.length, 'check')} failed on a commit already fixed; waiting for the checks of the new one` };
  if (s.pr.reviewDecision === 'CHANGES_REQUESTED') return { kind: 'needs_review', why: 'The requested changes were made; the reviewer is asked to look again.' };
  if (s.pr.reviewDecision === 'REVIEW_REQUIRED') return { kind: 'needs_review', why: 'The checks pass; the pull request needs an approving review.' };
  return { kind: 'ready' };
}

// ---- the fix round's request ---------------------------------------------------------------

/** How much of a failed job's log goes to the agent: the end, where the failure is. */
export const LOG_TAIL_CHARS = 6_000;
/** A reviewer's text is bounded so one long review cannot crowd out the rest. */
const REVIEW_BODY_CHARS = 4_000;
/** A comment's quoted lines too: a comment can span a whole file (lines 1-50000), a diff hunk can be huge. */
const QUOTE_CHARS = 4_000;

export function logTail(log: string, chars = LOG_TAIL_CHARS): string {
  // gh prefixes each line with "job\tstep\t"; the timestamp and the ANSI colours say nothing to the agent.
  // eslint-disable-next-line no-control-regex
  const clean = log.replace(/\x1b\[[0-9;]*m/g, '');
  return clean.length > chars ? `… ${clean.slice(-chars)}` : clean;
}

function fence(code: string): string {
  const longest = Math.max(2, ...[...code.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}\n${code}\n${f}`;
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… (${text.length - max} more characters)` : text;
}

/** The quoted lines of a line comment: the file's lines at the head, else the end of GitHub's diff hunk. */
export function quoteOf(c: PrLineComment, fileText: string | null): string {
  if (fileText !== null && c.lineStart !== null && c.lineEnd !== null) {
    const q = linesOf(fileText, c.lineStart, c.lineEnd);
    if (q !== null) return cut(q, QUOTE_CHARS);
  }
  const hunk = c.diffHunk.split('\n').filter((l) => !l.startsWith('@@'));
  const n = c.lineStart !== null && c.lineEnd !== null ? c.lineEnd - c.lineStart + 1 : 3;
  return cut(hunk.slice(-Math.max(1, n)).map((l) => l.replace(/^[+ -]/, '')).join('\n'), QUOTE_CHARS);
}

export interface RoundInput {
  number: number;
  url: string;
  round: number;
  maxRounds: number;
  checks: ReadonlyArray<{ check: PrCheck; log: string | null }>;
  reviews: readonly PrReview[];
  comments: ReadonlyArray<{ comment: PrLineComment; quote: string }>;
}

/** The fix round's request: the failed checks with their log tails, then each review and its line comments anchored as file, lines, quote and text. */
export function prFixRoundText(r: RoundInput): string {
  const out: string[] = [`The pull request #${r.number} (${r.url}) got feedback on GitHub (fix round ${r.round} of at most ${r.maxRounds}). Fix what it reports in the code; the branch is pushed again when you are done. Say in one line per item what you did.`, ''];
  if (r.checks.length > 0) {
    out.push(`## Failed checks (${r.checks.length})`, '');
    r.checks.forEach(({ check, log }, i) => {
      out.push(`### ${i + 1}. ${check.workflow ? `${check.workflow} / ` : ''}${check.name}`, check.link, '');
      out.push(log && log.trim() !== '' ? `The end of the failed job's log:\n\n${fence(logTail(log))}` : 'Its log could not be read; run the check locally to see why it fails.', '');
    });
  }
  if (r.reviews.length > 0) {
    out.push(`## Changes requested (${r.reviews.length} review${r.reviews.length === 1 ? '' : 's'})`, '');
    for (const rv of r.reviews) {
      out.push(`**${rv.author}:**`, '', rv.body.trim() === '' ? '(no summary; see the line comments)' : cut(rv.body.trim(), REVIEW_BODY_CHARS), '');
    }
    r.comments.forEach(({ comment: c, quote }, i) => {
      const where = c.lineStart === null || c.lineEnd === null ? 'outdated lines' : c.lineStart === c.lineEnd ? `line ${c.lineStart}` : `lines ${c.lineStart}-${c.lineEnd}`;
      out.push(`### ${i + 1}. ${c.path}, ${where} (${c.author})`, '', fence(quote), '', cut(c.body.trim(), REVIEW_BODY_CHARS), '');
    });
  }
  return out.join('\n');
}

/** One line for the timeline and the inbox: what a round is about. */
export function roundSummary(checks: readonly PrCheck[], reviews: readonly PrReview[], comments: number): string {
  const parts: string[] = [];
  if (checks.length > 0) parts.push(`${plural(checks.length, 'failed check')} (${checks.map((c) => c.name).join(', ')})`);
  if (reviews.length > 0) parts.push(`changes requested by ${reviews.map((r) => r.author).join(', ')}${comments > 0 ? ` with ${plural(comments, 'line comment')}` : ''}`);
  return parts.join('; ');
}

// ---- polling -------------------------------------------------------------------------------

/** The wait before the next look: doubled after each look that changed nothing, from `min` up to `max`. */
export function nextPollDelay(idlePolls: number, min: number, max: number): number {
  return Math.min(max, min * 2 ** Math.min(idlePolls, 20));
}
