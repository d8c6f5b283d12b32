import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedPaths, snapshotWorkspace } from '../../../src-main/coder/workspace-state';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('workspace snapshots (what a run changed)', () => {
  it('sees edits of already-dirty files, new untracked files, deletions and renames in a git repo', async () => {
    const repo = makeRepo('fd-ws-');
    dirs.push(repo);
    writeFileSync(join(repo.path, 'README.md'), 'dirty before the run\n');
    writeFileSync(join(repo.path, 'keep.txt'), 'k');
    gitIn(repo.path, 'add', 'keep.txt');
    gitIn(repo.path, 'commit', '-q', '-m', 'keep');
    const before = await snapshotWorkspace(repo.path);
    expect(await changedPaths(before, await snapshotWorkspace(repo.path))).toEqual([]);

    writeFileSync(join(repo.path, 'README.md'), 'dirty, then changed again\n');
    mkdirSync(join(repo.path, 'src'));
    writeFileSync(join(repo.path, 'src/new.ts'), 'x');
    renameSync(join(repo.path, 'keep.txt'), join(repo.path, 'kept.txt'));
    expect(await changedPaths(before, await snapshotWorkspace(repo.path))).toEqual(['README.md', 'keep.txt', 'kept.txt', 'src/new.ts']);
  });

  it('sees files changed by commits the run made, with paths relative to a cd below the top level', async () => {
    const repo = makeRepo('fd-ws-');
    dirs.push(repo);
    mkdirSync(join(repo.path, 'pkg'));
    writeFileSync(join(repo.path, 'pkg/a.ts'), '1');
    gitIn(repo.path, 'add', '.');
    gitIn(repo.path, 'commit', '-q', '-m', 'pkg');
    const cd = join(repo.path, 'pkg');
    const before = await snapshotWorkspace(cd);
    writeFileSync(join(repo.path, 'pkg/a.ts'), '2');
    writeFileSync(join(repo.path, 'top.txt'), 't');
    gitIn(repo.path, 'add', '.');
    gitIn(repo.path, 'commit', '-q', '-m', 'agent commit');
    expect(await changedPaths(before, await snapshotWorkspace(cd))).toEqual(['../top.txt', 'a.ts']);
  });

  it('walks a folder that is not a repository', async () => {
    const dir = tempDir('fd-ws-plain-');
    dirs.push(dir);
    writeFileSync(join(dir.path, 'a.txt'), 'a');
    mkdirSync(join(dir.path, 'node_modules'));
    const before = await snapshotWorkspace(dir.path);
    expect(before.kind).toBe('tree');
    writeFileSync(join(dir.path, 'node_modules/ignored.js'), 'x');
    expect(await changedPaths(before, await snapshotWorkspace(dir.path))).toEqual([]);
    writeFileSync(join(dir.path, 'a.txt'), 'b');
    writeFileSync(join(dir.path, 'b.txt'), 'b');
    expect(await changedPaths(before, await snapshotWorkspace(dir.path))).toEqual(['a.txt', 'b.txt']);
  });
});
