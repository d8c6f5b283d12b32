import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

async function cli(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (l) => out.push(l), err: (l) => err.push(l) });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

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
});
