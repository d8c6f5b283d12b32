import { AppError } from '../../../src-preload/contract';
import { git } from '../../git/git';
import { compareUrl } from '../../git/forge';
import type { GhOps, GitOps } from '../git-ops';
import { activeStatePath } from '../scanner';
import { readState } from '../state';
import { pushRemote } from './run-git';
import { join } from 'node:path';
import { FEATURES_DIR } from '../config';
import { ISSUE_FILE } from '../issue-input';
import { readIssueRecord } from '../issue-links';
import { TREES_DIR } from '../../worktrees/worktree-manager';

export interface FeaturePushResult {
  remote: string;
  branch: string;
  pr: { url: string; number: number | null; existing: boolean } | null;
  compareUrl: string | null;
  note: string | null;
}

/**
 * Push & PR from a feature's page, as the session header does for a session's worktree: the
 * feature's branch goes to its remote, then the pull request is found or opened with gh, else
 * the compare page is given. The PR text is the feature's commits, written by no model.
 */
export async function pushFeature(o: { projectPath: string; slug: string; git: GitOps; gh: GhOps; running: boolean }): Promise<FeaturePushResult> {
  if (o.running) throw new AppError('conflict', `The feature "${o.slug}" is running; push it when its run has ended.`);
  const state = await readState(activeStatePath(o.projectPath, o.slug));
  if (state.status === 'merged') throw new AppError('conflict', `The feature "${o.slug}" is merged already.`);
  const { branch, base_branch: base } = state.git;
  // Where Flightdeck put the feature's worktree, never where its state.yml (the agent's to write) says.
  const worktree = join(o.projectPath, TREES_DIR, o.slug);
  const remote = await pushRemote(worktree);
  if (!remote) throw new AppError('not_found', `This repository has no remote to push ${branch} to: add one (git remote add origin URL), or merge into ${base} locally.`);
  await o.git.push(worktree, remote.name, branch, { repository: o.projectPath }).catch((e: unknown) => {
    throw new AppError('unavailable', `Could not push ${branch} to ${remote.name}: ${e instanceof Error ? e.message : String(e)}`);
  });
  const compare = compareUrl(remote.url, base, branch);
  if (!o.gh.available()) return { remote: remote.name, branch, pr: null, compareUrl: compare, note: `The GitHub CLI (gh) is not installed, so no pull request was opened${compare ? ': open it at the compare page' : ''}.` };
  const existing = await o.gh.prList(worktree, branch);
  const open = existing.ok ? existing.value.find((p) => p.state === 'OPEN') : undefined;
  if (open) return { remote: remote.name, branch, pr: { url: open.url, number: open.number, existing: true }, compareUrl: compare, note: null };
  // The commits of the branch, oldest first, say what the feature did (a base that is unknown here leaves only the title).
  const subjects = (await git(['log', '--reverse', '--format=%s', `${remote.name}/${base}..${branch}`], { cwd: worktree }).catch(() => '')).split('\n').filter((l) => l !== '');
  const issue = await readIssueRecord(worktree, join(worktree, FEATURES_DIR, o.slug, ISSUE_FILE));
  const body = [`Feature \`${o.slug}\` (branch \`${branch}\`), made with Flightdeck.`, '', ...(subjects.length > 0 ? ['Commits:', ...subjects.map((s) => `- ${s}`)] : []), ...(issue ? ['', `Closes #${issue.number}`] : [])].join('\n');
  const created = await o.gh.prCreate(worktree, { title: `feat(${o.slug}): ${subjects.find((s) => !s.startsWith('chore(')) ?? o.slug}`.slice(0, 200), body, base, head: branch });
  if (!created.ok) return { remote: remote.name, branch, pr: null, compareUrl: compare, note: created.message };
  return { remote: remote.name, branch, pr: { url: created.value.url, number: created.value.number, existing: false }, compareUrl: compare, note: null };
}
