/**
 * Where a finished feature goes: the PR's URL as the agent reported it (its text, else the output
 * of its commands). Without gh, the remote's compare page comes from git/forge.ts. Pure.
 */

// The PR/MR page forms: GitHub /pull/N, GitLab /-/merge_requests/N, Bitbucket /pull-requests/N, Gitea /pulls/N.
const PR_URL = /https?:\/\/[^\s"'<>()`\]]+?\/(?:pull|pulls|pull-requests|-\/merge_requests)\/(\d+)(?![\d/])/g;

/** The last PR URL in a text (a summary usually ends with the result), with its number. */
export function findPrUrl(text: string): { url: string; number: number } | null {
  let last: { url: string; number: number } | null = null;
  for (const m of text.matchAll(PR_URL)) last = { url: m[0], number: Number(m[1]) };
  return last;
}
