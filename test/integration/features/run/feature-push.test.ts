import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { readState, writeState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { startTestApp } from '../../../support/app';
import { makeRunRepo, planFeature, type RunRepo } from './support';

let repo: RunRepo | null = null;
let stop: (() => void) | null = null;
afterEach(() => {
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
    const r = await app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' });
    expect(r).toMatchObject({ remote: 'origin', branch: 'feature/shipped' });
    expect(git(repo.origin!, 'rev-parse', 'refs/heads/feature/shipped')).toBe(git(wt, 'rev-parse', 'HEAD'));
    // Nothing opened a PR without gh: the result says so instead of pretending.
    if (!r.pr) expect(r.note).toBeTruthy();

    git(repo.repo, 'remote', 'remove', 'origin');
    await expect(app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' })).rejects.toThrow(/no remote to push feature\/shipped/);
    const path = activeStatePath(repo.repo, 'shipped');
    await writeState(path, { ...(await readState(path)), status: 'merged' });
    await expect(app.featureRuns.push({ projectPath: repo.repo, slug: 'shipped' })).rejects.toThrow(/merged already/);
  }, 60_000);
});
