/**
 * Where a finished feature goes: the PR's URL as the agent reported it (its text, else the output
 * of its commands), and, without gh, the remote's compare page for the pushed branch in the forms
 * of GitHub, GitLab, Bitbucket and Gitea. Pure.
 */

// The PR/MR page forms: GitHub /pull/N, GitLab /-/merge_requests/N, Bitbucket /pull-requests/N, Gitea /pulls/N.
const PR_URL = /https?:\/\/[^\s"'<>()`\]]+?\/(?:pull|pulls|pull-requests|-\/merge_requests)\/(\d+)(?![\d/])/g;

/** The last PR URL in a text (a summary usually ends with the result), with its number. */
export function findPrUrl(text: string): { url: string; number: number } | null {
  let last: { url: string; number: number } | null = null;
  for (const m of text.matchAll(PR_URL)) last = { url: m[0], number: Number(m[1]) };
  return last;
}

export type ForgeKind = 'github' | 'gitlab' | 'bitbucket' | 'gitea';

export interface RemoteRepo {
  host: string;
  /** owner/name, or a GitLab group path. */
  path: string;
  forge: ForgeKind | null;
}

/** The host and repository path of a remote URL (https, ssh://, scp-like git@host:path); null for a local path. */
export function parseRemoteUrl(url: string): RemoteRepo | null {
  const u = url.trim();
  let host: string;
  let path: string;
  const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(.+)$/.exec(u);
  if (/^(https?|ssh|git):\/\//i.test(u)) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      // Not a URL after all: nothing to build a web page from.
      return null;
    }
    host = parsed.hostname;
    path = decodeURIComponent(parsed.pathname);
  } else if (scp && !u.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(u)) {
    host = scp[1]!;
    path = scp[2]!;
  } else {
    return null;
  }
  path = path.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  // Bitbucket Server style ssh paths carry a leading scm/ segment only on http; keep it simple.
  if (!host || !path.includes('/')) return null;
  return { host: host.toLowerCase(), path, forge: forgeOf(host.toLowerCase()) };
}

function forgeOf(host: string): ForgeKind | null {
  if (host.includes('github')) return 'github';
  if (host.includes('gitlab')) return 'gitlab';
  if (host.includes('bitbucket')) return 'bitbucket';
  if (host.includes('gitea') || host.includes('codeberg') || host.includes('forgejo')) return 'gitea';
  return null;
}

/** The web page comparing `branch` with `base` (where a PR is opened), or null when the forge is unknown. */
export function compareUrl(remoteUrl: string, base: string, branch: string): string | null {
  const r = parseRemoteUrl(remoteUrl);
  if (!r || !r.forge) return null;
  const web = `https://${r.host}/${r.path}`;
  const b = encodeURIComponent(base);
  const h = encodeURIComponent(branch);
  switch (r.forge) {
    case 'github':
      return `${web}/compare/${b}...${h}?expand=1`;
    case 'gitlab':
      return `${web}/-/compare/${b}...${h}`;
    case 'bitbucket':
      return `${web}/pull-requests/new?source=${h}&dest=${b}`;
    case 'gitea':
      return `${web}/compare/${b}...${h}`;
  }
}
