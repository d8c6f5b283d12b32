import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { removeStaleRunDirs } from '../../../src-main/coder/run-dir';
import { processStartTicks } from '../../../src-main/platform/process-identity';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('Claude Code run folders left behind', () => {
  it('are removed when their owner no longer runs (pid gone, or the pid reused by another process); live owners keep theirs', () => {
    const base = tempDir('fd-run-dirs-');
    cleanups.push(base.cleanup);
    const dead = spawnSync('true').pid!;
    // The parent of this test runs, and so does this process: their start times identify them.
    const live = process.ppid;
    const liveTicks = processStartTicks(live) ?? 'r0';
    const names = {
      dead: `flightdeck-coder-${dead}@12345-aaaaaa`,
      reused: `flightdeck-coder-${live}@1-bbbbbb`,
      live: `flightdeck-coder-${live}@${liveTicks}-cccccc`,
      mine: `flightdeck-coder-${process.pid}@${processStartTicks(process.pid) ?? 'r0'}-dddddd`,
      other: 'flightdeck-coder-legacy',
    };
    for (const n of Object.values(names)) {
      mkdirSync(join(base.path, n));
      writeFileSync(join(base.path, n, 'settings.json'), '{}');
    }
    const removed = removeStaleRunDirs(base.path).map((p) => p.split('/').pop());
    const expected = processStartTicks(live) === null ? [names.dead] : [names.dead, names.reused];
    expect(removed.sort()).toEqual(expected.sort());
    for (const n of expected) expect(existsSync(join(base.path, n))).toBe(false);
    for (const n of [names.live, names.mine, names.other]) expect(existsSync(join(base.path, n))).toBe(true);
  });
});
