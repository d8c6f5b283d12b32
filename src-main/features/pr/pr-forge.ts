/**
 * What the pull request loop asks GitHub, through gh started as every gh call is
 * (../git-ops.ts: allow-listed environment, descriptor prelude, never prompting): the PR with its
 * reviews, its checks, a failed run's log, the line comments, and the merge. Each answer is
 * parsed by ./pr-model; a failure is a result with gh's own words, never a throw.
 */
import type { GhResult } from '../git-ops';
import { DefaultGhOps } from '../git-ops';
import { parseChecks, parseLineComments, parsePrView, type PrCheck, type PrLineComment, type PrView } from './pr-model';

export type MergeMethod = 'squash' | 'merge' | 'rebase';

export interface PrForge {
  available(): boolean;
  authStatus(cwd: string): Promise<GhResult<true>>;
  view(cwd: string, number: number): Promise<GhResult<PrView>>;
  checks(cwd: string, number: number, headSha: string): Promise<GhResult<PrCheck[]>>;
  failedLog(cwd: string, runId: string): Promise<GhResult<string>>;
  lineComments(cwd: string, number: number): Promise<GhResult<PrLineComment[]>>;
  /** `matchHead`: merged only while the PR's head is still this commit (the one whose checks were seen green). */
  merge(cwd: string, number: number, method: MergeMethod, matchHead?: string): Promise<GhResult<true>>;
}

const VIEW_FIELDS = 'number,url,state,reviewDecision,headRefOid,headRefName,isCrossRepository,reviews';
const CHECK_FIELDS = 'name,state,bucket,link,workflow';
/** `gh pr checks` exits 8 while a check runs and 1 when one failed; the JSON is on stdout in both. */
const CHECKS_EXIT_PENDING = 8;
const CHECKS_EXIT_FAILED = 1;
/** The comments of one PR in one page: GitHub's largest; a PR with more is reviewed by a crowd, not a fix round. */
const COMMENTS_PER_PAGE = 100;

function parsed<T>(what: string, text: string, parse: (raw: unknown) => T): GhResult<T> {
  try {
    return { ok: true, value: parse(JSON.parse(text)) };
  } catch (e) {
    return { ok: false, reason: 'failed', message: `gh ${what} gave an unreadable answer: ${(e as Error).message}` };
  }
}

function failure(what: string, r: { stderr: string; code: number | null }): GhResult<never> {
  return { ok: false, reason: 'failed', message: `gh ${what} failed: ${r.stderr.trim().split('\n')[0] || `exit ${r.code}`}` };
}

export class GhPrForge implements PrForge {
  constructor(private readonly gh = new DefaultGhOps()) {}

  available(): boolean {
    return this.gh.available();
  }

  authStatus(cwd: string): Promise<GhResult<true>> {
    return this.gh.authStatus(cwd);
  }

  async view(cwd: string, number: number): Promise<GhResult<PrView>> {
    const r = await this.gh.exec(['pr', 'view', String(number), '--json', VIEW_FIELDS], cwd);
    if (!r.ok) return r;
    return r.value.code === 0 ? parsed('pr view', r.value.stdout, parsePrView) : failure('pr view', r.value);
  }

  async checks(cwd: string, number: number, headSha: string): Promise<GhResult<PrCheck[]>> {
    const r = await this.gh.exec(['pr', 'checks', String(number), '--json', CHECK_FIELDS], cwd);
    if (!r.ok) return r;
    const { code, stdout, stderr } = r.value;
    // A branch no workflow runs on: gh says so on stderr and exits 1 with nothing on stdout.
    if (code === CHECKS_EXIT_FAILED && stdout.trim() === '' && /no checks reported/i.test(stderr)) return { ok: true, value: [] };
    if (code !== 0 && code !== CHECKS_EXIT_PENDING && code !== CHECKS_EXIT_FAILED) return failure('pr checks', r.value);
    return parsed('pr checks', stdout, (raw) => parseChecks(raw, headSha));
  }

  async failedLog(cwd: string, runId: string): Promise<GhResult<string>> {
    if (!/^\d{1,20}$/.test(runId)) return { ok: false, reason: 'failed', message: `not a run id: ${runId}` };
    const r = await this.gh.exec(['run', 'view', runId, '--log-failed'], cwd);
    if (!r.ok) return r;
    return r.value.code === 0 ? { ok: true, value: r.value.stdout } : failure('run view', r.value);
  }

  async lineComments(cwd: string, number: number): Promise<GhResult<PrLineComment[]>> {
    // {owner}/{repo} are filled in by gh from the repository of cwd.
    const r = await this.gh.exec(['api', `repos/{owner}/{repo}/pulls/${number}/comments?per_page=${COMMENTS_PER_PAGE}`], cwd);
    if (!r.ok) return r;
    return r.value.code === 0 ? parsed('api', r.value.stdout, parseLineComments) : failure('api', r.value);
  }

  async merge(cwd: string, number: number, method: MergeMethod, matchHead?: string): Promise<GhResult<true>> {
    const r = await this.gh.exec(['pr', 'merge', String(number), `--${method}`, ...(matchHead !== undefined ? ['--match-head-commit', matchHead] : [])], cwd);
    if (!r.ok) return r;
    return r.value.code === 0 ? { ok: true, value: true } : failure('pr merge', r.value);
  }
}
