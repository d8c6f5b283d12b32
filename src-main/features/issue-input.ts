/**
 * A forge issue as the start of a feature: the slug made from its title, the Planner's first
 * message (title, body, discussion), the record kept in the feature's folder and the line the
 * pull request closes it with. Pure.
 */
import { parse, stringify } from 'yaml';
import { FeatureIssueRef, type ForgeIssueDetail } from '../../src-preload/contract/issues';
import { MAX_SLUG_LENGTH } from '../worktrees/worktree-model';

/** The record's file name in `.flightdeck/<slug>/`, committed with the specs. */
export const ISSUE_FILE = 'issue.yml';

/**
 * The issue's text in the Planner's message is bounded so a long thread cannot crowd out the
 * discussion (the planning chat takes 100,000 characters a message).
 */
export const MAX_ISSUE_BODY_CHARS = 30_000;
export const MAX_ISSUE_COMMENTS_CHARS = 30_000;
/** A record is three short fields; anything larger is not one. */
export const MAX_ISSUE_RECORD_BYTES = 16 * 1024;
/** Slugs from titles stay short enough to read in a branch name. */
const ISSUE_SLUG_WORDS_CHARS = 40;

/** `fix-login-redirect-12` from issue 12 "Fix: login redirect!" — always a valid slug. */
export function slugFromIssue(issue: { number: number; title: string }): string {
  const words = issue.title
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, ISSUE_SLUG_WORDS_CHARS)
    .replace(/-+$/, '');
  const slug = words ? `${words}-${issue.number}` : `issue-${issue.number}`;
  return slug.slice(0, MAX_SLUG_LENGTH);
}

function cut(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n\n… (${text.length - max} more characters in the issue)` : text;
}

/** The Planner's first message: the issue is the request to plan. */
export function issuePlanningInput(issue: ForgeIssueDetail): string {
  const comments = issue.comments.filter((c) => c.body.trim() !== '');
  const thread = comments.map((c) => `**${c.author ?? 'someone'}:**\n${c.body.trim()}`).join('\n\n---\n\n');
  return [
    `Plan this feature from issue #${issue.number}: ${issue.title}`,
    issue.url,
    '',
    `## The issue${issue.author ? ` (opened by ${issue.author})` : ''}`,
    '',
    issue.body.trim() === '' ? '(no description)' : cut(issue.body.trim(), MAX_ISSUE_BODY_CHARS),
    ...(issue.labels.length > 0 ? ['', `Labels: ${issue.labels.join(', ')}`] : []),
    ...(thread ? ['', `## Discussion (${comments.length} comment${comments.length === 1 ? '' : 's'})`, '', cut(thread, MAX_ISSUE_COMMENTS_CHARS)] : []),
  ].join('\n');
}

export function formatIssueRecord(ref: FeatureIssueRef): string {
  return stringify({ number: ref.number, url: ref.url, title: ref.title });
}

/** The record read back; null for anything that is not one (the feature simply has no issue). */
export function parseIssueRecord(text: string): FeatureIssueRef | null {
  try {
    const r = FeatureIssueRef.safeParse(parse(text, { maxAliasCount: 0 }));
    // The record sits in the agent's worktree: its link must be the issue it names, on the web.
    return r.success && issueUrlMatches(r.data) ? r.data : null;
  } catch {
    // Not YAML: no issue to link, as for a feature planned without one.
    return null;
  }
}

/** An https issue page whose number is the record's (`…/issues/12` for #12). */
function issueUrlMatches(ref: FeatureIssueRef): boolean {
  const m = /^https:\/\/[^\s/]+\/\S+\/issues\/(\d+)\/?$/.exec(ref.url);
  return m !== null && Number(m[1]) === ref.number;
}

/** The pull request body, closing the issue the feature came from. */
export function prBody(slug: string, issue: FeatureIssueRef | null): string {
  const base = `Feature ${slug}, implemented and verified by Flightdeck.`;
  return issue ? `${base}\n\nCloses #${issue.number}` : base;
}
