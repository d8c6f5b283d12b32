/**
 * The two seams through which feature workflows reach git and GitHub (`GitOps`, `GhOps`), with
 * their real implementations. Git goes through the app's hardened git helper (argument arrays,
 * allow-listed environment, bounded queue); `gh` is started the same way (clean environment,
 * descriptor prelude) and never prompts.
 */
import { runInOwnGroup } from '../platform/own-group';
import { git, GitError, gitThen } from '../git/git';
import { childEnv, cleanExec, resolveOnPath } from '../platform/child-process';
import { excludePathspecs, setupExcludes } from '../worktrees/setup-artifacts';
import { detectMerged, type MergeVerdict } from './merge-detect';
import type { ForgeIssue, ForgeIssueDetail } from '../../src-preload/contract/issues';

// ---- git ------------------------------------------------------------------------------------

export interface GitOps {
  currentBranch(cwd: string): Promise<string | null>;
  branchExists(repo: string, branch: string): Promise<boolean>;
  addWorktree(repo: string, path: string, branch: string, base: string): Promise<void>;
  removeWorktree(repo: string, path: string, opts?: { force?: boolean }): Promise<void>;
  pruneWorktrees(repo: string): Promise<void>;
  deleteBranch(repo: string, branch: string, opts?: { force?: boolean }): Promise<void>;
  /** Stages `paths` (all changes when omitted) and commits; false when there was nothing to commit. */
  /** `repository`: the repository Flightdeck recorded; the commit is refused unless cwd's git data is its. */
  /** `housekeeping: false`: git's automatic maintenance does not start after this commit (see NO_AUTO_MAINTENANCE). */
  /** `leaveOut`: with all changes, paths (relative to cwd) this commit does not stage (what an agent staged itself still goes with it). */
  /** `message` as a function (all changes only): made from the paths the commit holds (what was staged before included). */
  commit(cwd: string, message: string | ((staged: readonly string[]) => string), paths?: readonly string[], o?: CommitOptions): Promise<boolean>;
  /** Pushes `branch` to `remote` from the main checkout Flightdeck recorded (`repository`). */
  push(cwd: string, remote: string, branch: string, o: { repository: string }): Promise<void>;
  isMerged(repo: string, branch: string, base: string): Promise<MergeVerdict>;
}

export interface CommitOptions {
  repository?: string;
  /** Default true (git's own rule): `git maintenance run --auto` after the commit. */
  housekeeping?: boolean;
  /** Pathspecs (forward slashes) an all-changes commit does not stage: a feature's record before a round; ignored with `paths`. */
  leaveOut?: readonly string[];
}

/**
 * Every `git commit` starts `git maintenance run --auto` when it is done: a second git, which
 * almost always finds nothing to do (it packs once thousands of loose objects piled up). A
 * feature run commits after every phase and before every review round and verify attempt, and
 * that second git was a fifth of a phase's overhead; the run's last commit (its record) keeps it,
 * so the repository is still looked after once per run, as are the user's own commits and
 * fetches. Given in the environment: `-c` would have to precede the subcommand, which the app's
 * git reads first (git ≥ 2.31 reads these variables; an older one ignores them and maintains).
 */
const NO_AUTO_MAINTENANCE: Record<string, string> = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'maintenance.auto', GIT_CONFIG_VALUE_0: 'false' };

export class DefaultGitOps implements GitOps {
  async currentBranch(cwd: string): Promise<string | null> {
    const name = (await git(['rev-parse', '--abbrev-ref', 'HEAD'], { cwd })).trim();
    // A detached HEAD is reported as the literal "HEAD": there is no branch.
    return name === 'HEAD' ? null : name;
  }

  async branchExists(repo: string, branch: string): Promise<boolean> {
    try {
      await git(['show-ref', '--verify', '--quiet', `refs/heads/${branch}`], { cwd: repo });
      return true;
    } catch (e) {
      // show-ref --quiet answers "no such ref" with exit 1 and nothing else.
      if (e instanceof GitError && e.exitCode === 1) return false;
      throw e;
    }
  }

  async addWorktree(repo: string, path: string, branch: string, base: string): Promise<void> {
    await git(['worktree', 'add', '-b', branch, '--', path, base], { cwd: repo });
  }

  async removeWorktree(repo: string, path: string, opts: { force?: boolean } = {}): Promise<void> {
    await git(['worktree', 'remove', ...(opts.force ? ['--force'] : []), '--', path], { cwd: repo });
  }

  async pruneWorktrees(repo: string): Promise<void> {
    await git(['worktree', 'prune'], { cwd: repo });
  }

  async deleteBranch(repo: string, branch: string, opts: { force?: boolean } = {}): Promise<void> {
    await git(['branch', opts.force ? '-D' : '-d', '--', branch], { cwd: repo });
  }

  async commit(cwd: string, message: string | ((staged: readonly string[]) => string), paths?: readonly string[], o: CommitOptions = {}): Promise<boolean> {
    const at = { cwd, ...(o.repository !== undefined ? { repository: o.repository } : {}) };
    // All changes, except what the worktree's setup created (node_modules of an `npm install`): never committed.
    const add = paths ? ['add', '--', ...paths] : ['add', '--all', '--', '.', ...(await setupExcludes(cwd)), ...excludePathspecs(o.leaveOut ?? [])];
    // The add and the commit (or the look at what is staged) go as one call: a process start fewer each time (git.ts, gitThen).
    // The add prints nothing on stdout, so what the call prints is the second command's.
    const commitAt = o.housekeeping === false ? { ...at, env: NO_AUTO_MAINTENANCE } : at;
    if (typeof message === 'string') return commitUnlessNothing(message, commitAt, add);
    // What the commit holds, what was staged before this add included (an agent's own `git mv`);
    // --no-renames: a rename is both its paths (one of them may be the feature's record).
    const staged = (await gitThen(add, ['diff', '--cached', '--name-only', '--no-renames'], at)).split('\n').filter(Boolean);
    if (staged.length === 0) return false;
    return commitUnlessNothing(message(staged), commitAt);
  }

  async push(_cwd: string, remote: string, branch: string, o: { repository: string }): Promise<void> {
    // git resolves a remote given as a relative path (`../origin.git`) against the folder it
    // runs in, and the user wrote it against the main checkout: from a worktree it names
    // nothing. Branches are shared by every worktree, so the push runs from the main checkout
    // as Flightdeck recorded it (never as a worktree's .git file says).
    // A network push may take longer than a local git call.
    await git(['push', '--no-verify', remote, `refs/heads/${branch}:refs/heads/${branch}`], { cwd: o.repository, timeoutMs: PUSH_TIMEOUT_MS });
  }

  isMerged(repo: string, branch: string, base: string): Promise<MergeVerdict> {
    return detectMerged(repo, branch, base);
  }
}

/**
 * Commits what is staged (after `add`, in the same call, when given); false when nothing is. One
 * git fewer than asking first: git answers "nothing to commit" itself (exit 1, on stdout, in
 * English: the app's git runs with LC_ALL=C). A failed add is thrown as it is (the commit never ran).
 */
async function commitUnlessNothing(message: string, at: { cwd: string; repository?: string; env?: Record<string, string> }, add?: readonly string[]): Promise<boolean> {
  try {
    // --quiet: no summary of the new commit (a diff of it with rename detection) that nobody reads.
    const commit = ['commit', '--no-verify', '--quiet', '-m', message];
    await (add ? gitThen(add, commit, at) : git(commit, at));
    return true;
  } catch (e) {
    if (e instanceof GitError && e.exitCode === 1 && /\b(nothing (added )?to commit|no changes added to commit)\b/.test(e.stdout)) return false;
    throw e;
  }
}

/** A push over a slow network; beyond this it is hung (a credential prompt nobody can answer). */
const PUSH_TIMEOUT_MS = 120_000;

// ---- gh ---------------------------------------------------------------------------------------

export type PrState = 'OPEN' | 'CLOSED' | 'MERGED';

export interface PrInfo {
  number: number;
  state: PrState;
  url: string;
  title: string;
}

/** What a `gh` call gave: its answer, or why there is none (never a crash for a missing gh). */
export type GhResult<T> = { ok: true; value: T } | { ok: false; reason: 'not_installed' | 'failed'; message: string };

export interface GhOps {
  /** Whether `gh` can be started at all (the caller picks the local merge check when not). */
  available(): boolean;
  prView(cwd: string, number: number): Promise<GhResult<PrInfo>>;
  /** Every PR (open, closed, merged) whose head is `branch`, newest first as gh lists them. */
  prList(cwd: string, branch: string): Promise<GhResult<PrInfo[]>>;
  prCreate(cwd: string, pr: { title: string; body: string; base: string; head: string }): Promise<GhResult<{ url: string; number: number | null }>>;
  /** Whether gh is logged in to the host of `cwd`'s repository (`gh auth status`). */
  authStatus(cwd: string): Promise<GhResult<true>>;
  /** One issue with its body and comments; `ref` is its number or URL. */
  issueView(cwd: string, ref: string): Promise<GhResult<ForgeIssueDetail>>;
  /** Open issues, newest first, filtered by label or assignee. */
  issueList(cwd: string, filter: { label?: string; assignee?: string; limit?: number }): Promise<GhResult<ForgeIssue[]>>;
}

/** gh talks to GitHub over the network; a call that takes longer than this is hung. */
const GH_TIMEOUT_MS = 60_000;
/** A PR list for one branch is a few hundred bytes per entry. */
const GH_MAX_OUTPUT_BYTES = 8 * 1024 * 1024;
const PR_FIELDS = 'state,url,title,number';

export const GH_ISSUES_MESSAGE = 'Features from issues read them with the GitHub CLI (gh), which is not installed or not on PATH. Install it from https://cli.github.com and run "gh auth login" in a terminal, then try again.';

export const GH_NOT_INSTALLED_MESSAGE = 'The GitHub CLI (gh) is not installed or not on PATH. Install it from https://cli.github.com and run "gh auth login", or clean by local merge detection.';

export function parsePr(raw: unknown): PrInfo {
  const o = raw as Record<string, unknown> | null;
  const state = typeof o?.state === 'string' ? o.state.toUpperCase() : '';
  if (!o || typeof o.number !== 'number' || (state !== 'OPEN' && state !== 'CLOSED' && state !== 'MERGED')) {
    throw new Error(`unexpected PR from gh: ${JSON.stringify(raw)?.slice(0, 200)}`);
  }
  return { number: o.number, state, url: typeof o.url === 'string' ? o.url : '', title: typeof o.title === 'string' ? o.title : '' };
}

const ISSUE_FIELDS = 'number,title,url,state,labels,assignees,author';
/** An issue list is for picking one; more than this is a search, not a list. */
const ISSUE_LIST_LIMIT = 100;

function login(raw: unknown): string | null {
  const o = raw as { login?: unknown } | null;
  return o && typeof o.login === 'string' ? o.login : null;
}

/** An issue as gh prints it with --json; throws on anything that is not one. */
export function parseIssue(raw: unknown): ForgeIssue {
  const o = raw as Record<string, unknown> | null;
  if (!o || typeof o.number !== 'number' || !Number.isInteger(o.number) || o.number <= 0 || typeof o.title !== 'string') {
    throw new Error(`unexpected issue from gh: ${JSON.stringify(raw)?.slice(0, 200)}`);
  }
  const names = (list: unknown, key: 'name' | 'login') =>
    Array.isArray(list) ? list.map((l) => (l as Record<string, unknown> | null)?.[key]).filter((n): n is string => typeof n === 'string') : [];
  return {
    number: o.number,
    title: o.title,
    url: typeof o.url === 'string' ? o.url : '',
    state: typeof o.state === 'string' ? o.state.toUpperCase() : 'OPEN',
    labels: names(o.labels, 'name'),
    assignees: names(o.assignees, 'login'),
    author: login(o.author),
  };
}

export function parseIssueDetail(raw: unknown): ForgeIssueDetail {
  const o = raw as Record<string, unknown>;
  const comments = Array.isArray(o.comments) ? o.comments : [];
  return {
    ...parseIssue(raw),
    body: typeof o.body === 'string' ? o.body : '',
    comments: comments.map((c) => {
      const x = c as Record<string, unknown> | null;
      return { author: login(x?.author), body: typeof x?.body === 'string' ? x.body : '' };
    }),
  };
}

/** The PR number at the end of a URL gh prints after `pr create` (…/pull/42). */
export function prNumberFromUrl(url: string): number | null {
  const m = /\/pull\/(\d+)\s*$/.exec(url.trim());
  return m ? Number(m[1]) : null;
}

export class DefaultGhOps implements GhOps {
  constructor(
    private readonly env: NodeJS.ProcessEnv = process.env,
    /** A gh call's time limit (tests shorten it). */
    private readonly timeoutMs: number = GH_TIMEOUT_MS,
  ) {}

  private ghEnv(): Record<string, string> {
    // gh needs its own config and token variables (GH_TOKEN, GH_HOST, GH_CONFIG_DIR) on top of the
    // minimal allow-list; never prompting, never paging, no colour in what we parse.
    const extra: Record<string, string> = { GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1', GH_PAGER: 'cat' };
    for (const k of ['GH_TOKEN', 'GITHUB_TOKEN', 'GH_HOST', 'GH_CONFIG_DIR', 'GH_ENTERPRISE_TOKEN']) {
      const v = this.env[k];
      if (v !== undefined) extra[k] = v;
    }
    return childEnv('minimal', this.env, extra);
  }

  available(): boolean {
    return resolveOnPath('gh', this.env.PATH) !== null;
  }

  /** A gh call that succeeds only on exit 0: its stdout, else gh's first line of complaint. */
  private async run(args: readonly string[], cwd: string): Promise<GhResult<string>> {
    const r = await this.exec(args, cwd);
    if (!r.ok) return r;
    const { code, stdout, stderr } = r.value;
    if (code === 0) return { ok: true, value: stdout };
    return { ok: false, reason: 'failed', message: `gh ${args.slice(0, 2).join(' ')} failed: ${stderr.trim().split('\n')[0] || `exit ${code}`}` };
  }

  /**
   * A gh call whose exit code is part of its answer (`gh pr checks` exits 8 while checks run and
   * 1 when one failed, with the JSON on stdout either way): stdout, stderr and the code.
   */
  exec(args: readonly string[], cwd: string): Promise<GhResult<{ code: number | null; stdout: string; stderr: string }>> {
    const env = this.ghEnv();
    // Resolved first: the descriptor prelude would turn a missing gh into exit 127.
    const ghPath = resolveOnPath('gh', env.PATH);
    if (!ghPath) return Promise.resolve({ ok: false, reason: 'not_installed', message: GH_NOT_INSTALLED_MESSAGE });
    const { file, args: argv } = cleanExec(ghPath, args);
    // In a group of its own (platform/own-group.ts): its time limit stops the git it runs too.
    return runInOwnGroup(file, argv, { cwd, env, timeoutMs: this.timeoutMs, maxOutputBytes: GH_MAX_OUTPUT_BYTES }).then(({ error, stdout: out, stderr: err, stoppedFor }) => {
      const stdout = out.toString('utf8');
      const stderr = err.toString('utf8');
      const what = `gh ${args.slice(0, 2).join(' ')}`;
      if (stoppedFor === 'timeout') return { ok: false, reason: 'failed', message: `${what} did not finish within ${this.timeoutMs >= 1000 ? `${Math.round(this.timeoutMs / 1000)} s` : `${this.timeoutMs} ms`} and was stopped.` };
      if (stoppedFor) return { ok: false, reason: 'failed', message: `${what} printed more than ${GH_MAX_OUTPUT_BYTES / 1024 / 1024} MB and was stopped.` };
      if (error && typeof error.code !== 'number') return { ok: false, reason: 'failed', message: `${what} failed: ${(stderr.trim() || error.message).split('\n')[0]}` };
      return { ok: true, value: { code: error ? (error.code as number) : 0, stdout, stderr } };
    });
  }

  private async json<T>(args: readonly string[], cwd: string, parse: (raw: unknown) => T): Promise<GhResult<T>> {
    const out = await this.run(args, cwd);
    if (!out.ok) return out;
    try {
      return { ok: true, value: parse(JSON.parse(out.value)) };
    } catch (e) {
      return { ok: false, reason: 'failed', message: `gh ${args.slice(0, 2).join(' ')} gave an unreadable answer: ${(e as Error).message}` };
    }
  }

  prView(cwd: string, number: number): Promise<GhResult<PrInfo>> {
    return this.json(['pr', 'view', String(number), '--json', PR_FIELDS], cwd, parsePr);
  }

  prList(cwd: string, branch: string): Promise<GhResult<PrInfo[]>> {
    return this.json(['pr', 'list', '--head', branch, '--state', 'all', '--json', `${PR_FIELDS},isCrossRepository`], cwd, (raw) => {
      if (!Array.isArray(raw)) throw new Error('expected a list');
      // --head matches the branch name in any repository: a fork's PR from a branch named like ours is not ours.
      return raw.filter((p) => (p as { isCrossRepository?: unknown } | null)?.isCrossRepository !== true).map(parsePr);
    });
  }

  async authStatus(cwd: string): Promise<GhResult<true>> {
    const out = await this.run(['auth', 'status'], cwd);
    return out.ok ? { ok: true, value: true } : out;
  }

  issueView(cwd: string, ref: string): Promise<GhResult<ForgeIssueDetail>> {
    return this.json(['issue', 'view', ref.replace(/^#/, ''), '--json', `${ISSUE_FIELDS},body,comments`], cwd, parseIssueDetail);
  }

  issueList(cwd: string, filter: { label?: string; assignee?: string; limit?: number }): Promise<GhResult<ForgeIssue[]>> {
    const args = ['issue', 'list', '--state', 'open', '--limit', String(Math.min(filter.limit ?? ISSUE_LIST_LIMIT, ISSUE_LIST_LIMIT)), '--json', ISSUE_FIELDS];
    // `--flag=value`: a label or login starting with "-" stays a value.
    if (filter.label) args.push(`--label=${filter.label}`);
    if (filter.assignee) args.push(`--assignee=${filter.assignee}`);
    return this.json(args, cwd, (raw) => {
      if (!Array.isArray(raw)) throw new Error('expected a list');
      return raw.map(parseIssue);
    });
  }

  async prCreate(cwd: string, pr: { title: string; body: string; base: string; head: string }): Promise<GhResult<{ url: string; number: number | null }>> {
    // `gh pr create` has no --json: it prints the new PR's URL as its last line.
    const out = await this.run(['pr', 'create', '--title', pr.title, '--body', pr.body, '--base', pr.base, '--head', pr.head], cwd);
    if (!out.ok) return out;
    const url = out.value.trim().split('\n').pop()?.trim() ?? '';
    return { ok: true, value: { url, number: prNumberFromUrl(url) } };
  }
}
