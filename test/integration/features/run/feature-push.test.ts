import { execFileSync } from 'node:child_process';
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatIssueRecord } from '../../../../src-main/features/issue-input';
import { tempDir } from '../../../support/temp';
import { readState, writeState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { startTestApp } from '../../../support/app';
import { makeRunRepo, planFeature, withFakeGh, type RunRepo } from './support';

let repo: RunRepo | null = null;
let stop: (() => void) | null = null;
const saved = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };
const more: Array<() => void> = [];
afterEach(() => {
  process.env.PATH = saved.PATH;
  if (saved.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
  else process.env.GH_CONFIG_DIR = saved.GH_CONFIG_DIR;
  for (const c of more.splice(0)) c();
  stop?.();
  repo?.cleanup();
  stop = null;
  repo = null;
});
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

describe('Push & PR from a feature page', () => {
  it("pushes the feature's branch to its remote and says where the pull request goes; refused without a remote or once merged", async () => {
    repo = makeRunRepo({ remote: 'bare' });
    const wt = await planFeature(repo.repo, 'shipped', ['library']);
    const { app, cleanup } = await startTestApp();
    stop = cleanup;
    // A PATH with git and without gh: no PR, and the result says so instead of pretending.
    const bin = tempDir('fd-push-nogh-');
    more.push(bin.cleanup);
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin.path, 'git'));
    process.env.PATH = bin.path;
    const r = await app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' });
    expect(r).toMatchObject({ remote: 'origin', branch: 'feature/shipped', pr: null, note: expect.stringMatching(/gh\) is not installed/) });
    expect(git(repo.origin!, 'rev-parse', 'refs/heads/feature/shipped')).toBe(git(wt, 'rev-parse', 'HEAD'));

    // With gh, a feature planned from an issue opens a PR that closes it.
    writeFileSync(join(wt, '.flightdeck', 'shipped', 'issue.yml'), formatIssueRecord({ number: 12, url: 'https://github.com/acme/widgets/issues/12', title: 'Ship it' }));
    git(wt, 'add', '.');
    git(wt, '-c', 'user.name=t', '-c', 'user.email=t@example.com', 'commit', '-q', '-m', 'issue');
    process.env.PATH = saved.PATH;
    const gh = withFakeGh({ prs: [], createUrl: 'https://github.com/acme/widgets/pull/40' });
    more.push(gh.cleanup);
    process.env.PATH = gh.env.PATH;
    process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
    const withPr = await app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' });
    expect(withPr.pr).toEqual({ url: 'https://github.com/acme/widgets/pull/40', number: 40, existing: false });
    const create = readFileSync(join(gh.dir, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { argv: string[] }).argv).find((a) => a[0] === 'pr' && a[1] === 'create')!;
    expect(create[create.indexOf('--body') + 1]).toMatch(/\n\nCloses #12$/);
    process.env.PATH = saved.PATH;

    git(repo.repo, 'remote', 'remove', 'origin');
    await expect(app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' })).rejects.toThrow(/no remote to push feature\/shipped/);
    const path = activeStatePath(repo.repo, 'shipped');
    await writeState(path, { ...(await readState(path)), status: 'merged' });
    await expect(app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' })).rejects.toThrow(/merged already/);
  }, 60_000);
});
