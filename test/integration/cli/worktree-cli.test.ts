import { execFile } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

function setup() {
  const repo = makeRepo('fd-wtcli-');
  const data = tempDir('fd-wtcli-data-');
  const origin = tempDir('fd-wtcli-origin-');
  cleanups.push(repo.cleanup, data.cleanup, origin.cleanup);
  gitIn(origin.path, 'init', '-q', '--bare', '-b', 'main');
  gitIn(repo.path, 'remote', 'add', 'origin', origin.path);
  gitIn(repo.path, 'push', '-q', '-u', 'origin', 'main');
  return { repo: repo.path, data: data.path };
}

describe('flightdeck worktree', () => {
  it('lists, refuses to remove unsaved work (exit 1, names it), removes with --force and restores; exit 2 on usage errors', async () => {
    const { repo, data } = setup();
    const m = new WorktreeManager();
    await m.create(repo, 'cli-feat');
    const wt = join(repo, '.trees/cli-feat');
    writeFileSync(join(wt, 'wip.txt'), 'work in progress\n');
    const common = ['--repo', repo, '--data-dir', data];

    const list = await cli('worktree', 'list', ...common);
    expect(list.code).toBe(0);
    expect(list.out).toContain('cli-feat  feature/cli-feat  .trees/cli-feat');
    const json = await cli('worktree', 'list', ...common, '--json');
    expect(JSON.parse(json.out)).toEqual([expect.objectContaining({ slug: 'cli-feat', branch: 'feature/cli-feat', managed: true, missing: false })]);

    const refused = await cli('worktree', 'remove', 'cli-feat', ...common);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain('1 untracked file: wip.txt');
    expect(existsSync(join(wt, 'wip.txt'))).toBe(true);

    const removed = await cli('worktree', 'remove', 'cli-feat', '--force', ...common, '--json');
    expect(removed.code).toBe(0);
    const r = JSON.parse(removed.out) as { archive: { ref: string } };
    expect(r.archive.ref).toMatch(/^refs\/flightdeck\/archive\/cli-feat\/\d{8}T\d{6}Z$/);
    expect(existsSync(wt)).toBe(false);

    const restored = await cli('worktree', 'restore', 'cli-feat', ...common);
    expect(restored.code).toBe(0);
    expect(restored.out).toContain('uncommitted changes');
    expect(readFileSync(join(wt, 'wip.txt'), 'utf8')).toBe('work in progress\n');

    expect((await cli('worktree', 'restore', 'never-was', ...common)).code).toBe(1);
    expect((await cli('worktree', 'remove', 'Not_A_Slug', ...common)).code).toBe(1);
    const usage = await cli('worktree', 'remove', ...common);
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^error: worktree remove needs the SLUG/);
    expect((await cli('worktree', 'frobnicate', ...common)).code).toBe(2);
    expect((await cli('worktree', 'list', '--force', ...common)).code).toBe(2);
    expect((await cli('worktree', 'list', '--repo', join(data, 'nowhere'), '--data-dir', data)).code).toBe(1);
  });

  it('runs as `npm run -s cli -- worktree …` with exit codes 0 and 1, and prunes a vanished folder on remove', async () => {
    const { repo, data } = setup();
    await new WorktreeManager().create(repo, 'gone');
    rmSync(join(repo, '.trees/gone'), { recursive: true, force: true });
    const npm = (...args: string[]) =>
      new Promise<{ code: number; out: string; err: string }>((resolve) => {
        execFile('npm', ['run', '-s', 'cli', '--', 'worktree', ...args, '--data-dir', data], { cwd: process.cwd(), timeout: 120_000 }, (e, out, err) =>
          resolve({ code: e ? (typeof e.code === 'number' ? e.code : -1) : 0, out: String(out), err: String(err) }),
        );
      });
    const listed = await npm('list', '--repo', repo);
    expect(listed.code).toBe(0);
    expect(listed.out).toMatch(/gone {2}feature\/gone {2}\.trees\/gone {2}\[folder missing/);
    const removed = await npm('remove', 'gone', '--repo', repo);
    expect(removed.code).toBe(0);
    expect(removed.out).toContain('Archived as refs/flightdeck/archive/gone/');
    expect(gitIn(repo, 'worktree', 'list', '--porcelain')).not.toContain('.trees/gone');
    const failed = await npm('restore', 'never-archived', '--repo', repo);
    expect(failed.code).toBe(1);
    expect(failed.err).toContain('There is no archive of the worktree "never-archived"');
  }, 180_000);
});
