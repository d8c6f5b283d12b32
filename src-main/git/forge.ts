/**
 * The web side of a git remote: which forge hosts it (GitHub or GitHub Enterprise, GitLab,
 * Bitbucket, Gitea/Forgejo/Codeberg) and the page where a pull request from a pushed branch is
 * opened by hand. The one parser of remote URLs for every capability (a feature run's delivery,
 * a session worktree's push). Pure.
 */

export type ForgeKind = 'github' | 'gitlab' | 'bitbucket' | 'gitea';

export interface RemoteRepo {
  /** Lower-case host name, without the port (an ssh port says nothing about the web one). */
  host: string;
  /** owner/name, or a GitLab group path (group/sub/name). */
  path: string;
  /** Null for a host whose name does not say which forge it is. */
  forge: ForgeKind | null;
}

/**
 * The host and repository path of a remote URL in the forms git accepts (https, ssh://, git://,
 * scp-like `git@host:owner/name.git`); null for a local path, a file URL, a Windows drive path or
 * a URL with no owner/name path.
 */
export function parseRemoteUrl(url: string): RemoteRepo | null {
  const u = url.trim();
  let host: string;
  let path: string;
  if (/^(https?|ssh|git):\/\//i.test(u)) {
    let parsed: URL;
    try {
      parsed = new URL(u);
    } catch {
      // Not a URL after all: nothing to build a web page from.
      return null;
    }
    host = parsed.hostname;
    try {
      path = decodeURIComponent(parsed.pathname);
    } catch {
      // A malformed escape: the path as written is still the best guess.
      path = parsed.pathname;
    }
  } else {
    // scp-like: [user@]host:path, never "C:\…" (a Windows drive) nor anything with a scheme.
    const scp = /^(?:[^@/\s]+@)?([^:/\s]+):(?!\/)(\S+)$/.exec(u);
    if (!scp || /^[A-Za-z]:[\\/]/.test(u) || scp[1]!.length < 2) return null;
    host = scp[1]!;
    path = scp[2]!;
  }
  path = path.replace(/^\/+/, '').replace(/\/+$/, '').replace(/\.git$/, '');
  if (!host || !path.includes('/')) return null;
  const h = host.toLowerCase();
  return { host: h, path, forge: forgeOf(h) };
}

/** The forge a host name says it is; GitHub Enterprise and self-hosted forges usually carry its name. */
function forgeOf(host: string): ForgeKind | null {
  if (host.includes('github')) return 'github';
  if (host.includes('gitlab')) return 'gitlab';
  if (host.includes('bitbucket')) return 'bitbucket';
  if (host.includes('gitea') || host.includes('codeberg') || host.includes('forgejo')) return 'gitea';
  return null;
}

/** A branch in a URL path: its slashes kept readable (GitHub and Gitea accept them there), the rest escaped. */
function pathRef(branch: string): string {
  return branch.split('/').map(encodeURIComponent).join('/');
}

/**
 * Where a pull request from `branch` into `base` is opened in a browser: GitHub's compare page,
 * GitLab's new merge request page, Bitbucket's new pull request page, Gitea's compare page.
 * Null for a local remote or a host whose forge is unknown (a guessed page would be a 404).
 */
export function compareUrl(remoteUrl: string, base: string, branch: string): string | null {
  const r = parseRemoteUrl(remoteUrl);
  if (!r || !r.forge) return null;
  const web = `https://${r.host}/${r.path}`;
  switch (r.forge) {
    case 'github':
      return `${web}/compare/${pathRef(base)}...${pathRef(branch)}?expand=1`;
    case 'gitlab':
      return `${web}/-/merge_requests/new?merge_request%5Bsource_branch%5D=${encodeURIComponent(branch)}&merge_request%5Btarget_branch%5D=${encodeURIComponent(base)}`;
    case 'bitbucket':
      return `${web}/pull-requests/new?source=${encodeURIComponent(branch)}&dest=${encodeURIComponent(base)}`;
    case 'gitea':
      return `${web}/compare/${pathRef(base)}...${pathRef(branch)}`;
  }
}
