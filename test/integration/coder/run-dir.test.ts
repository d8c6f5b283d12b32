import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coderSecretDirs, createRunDir, removeRunDir, removeStaleRunDirs, runsDir } from '../../../src-main/coder/run-dir';
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

  it('are made in a runs folder of this user that stays, and swept there too; a runs folder someone else made is refused', () => {
    const base = tempDir('fd-run-dirs-');
    cleanups.push(base.cleanup);
    const dir = createRunDir(base.path);
    const runs = runsDir(base.path);
    expect(dirname(dir)).toBe(runs);
    expect(statSync(runs).mode & 0o777).toBe(0o700);
    expect(coderSecretDirs(base.path)).toContain(runs);
    const dead = spawnSync('true').pid!;
    const stale = join(runs, `flightdeck-coder-${dead}@12345-eeeeee`);
    mkdirSync(stale);
    expect(removeStaleRunDirs(base.path)).toEqual([stale]);
    removeRunDir(dir);
    expect(existsSync(dir)).toBe(false);
    expect(existsSync(runs)).toBe(true);
    // A link in its place (someone else's doing in a shared /tmp) is not followed.
    const other = tempDir('fd-run-dirs-');
    cleanups.push(other.cleanup);
    rmSync(runs, { recursive: true });
    symlinkSync(other.path, runs);
    expect(() => createRunDir(base.path)).toThrow(/not a folder of this user/);
  });
});
