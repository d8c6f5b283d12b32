/**
 * A Claude Code turn's working-tree capture (tree-snapshot.ts) on repository content an agent
 * controls: it runs none of the repository's programs and never waits on a special file.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { captureWorkingTree, snapshotBetween } from '../../../src-main/agents/orchestrator/tree-snapshot';
import { gitIn, makeRepo } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function repo(): string {
  const r = makeRepo('fd-treesnap-');
  cleanups.push(r.cleanup);
  return r.path;
}

describe.skipIf(process.platform === 'win32')('captureWorkingTree', () => {
  it('captures the tree when the repository index was replaced by a FIFO, without waiting on it', async () => {
    const root = repo();
    writeFileSync(join(root, 'new.txt'), 'new\n');
    const index = join(root, '.git', 'index');
    rmSync(index);
    execFileSync('mkfifo', [index]);
    const tree = await captureWorkingTree(root);
    expect(gitIn(root, 'ls-tree', '--name-only', tree).split('\n').filter(Boolean).sort()).toEqual(['README.md', 'new.txt']);
  });

  it('runs no clean filter the repository configures: the capture is refused instead', async () => {
    const root = repo();
    const marker = join(root, '..', `${root.split('/').pop()}-filter-ran`);
    cleanups.push(() => rmSync(marker, { force: true }));
    gitIn(root, 'config', 'filter.evil.clean', `touch ${marker}; cat`);
    writeFileSync(join(root, '.gitattributes'), '* filter=evil\n');
    writeFileSync(join(root, 'a.txt'), 'a\n');
    await expect(captureWorkingTree(root)).rejects.toThrow(/filter\.evil\.clean/);
    expect(existsSync(marker)).toBe(false);
  });

  it('records a file whose name holds a newline and a leading dash', async () => {
    const root = repo();
    const before = await captureWorkingTree(root);
    writeFileSync(join(root, '-odd\nname.txt'), 'x\n');
    const snap = await snapshotBetween(root, before, await captureWorkingTree(root), 't1');
    expect(snap?.files).toEqual([{ path: '-odd\nname.txt', blob: null, post: expect.stringMatching(/^[0-9a-f]{40}$/) }]);
  });
});
