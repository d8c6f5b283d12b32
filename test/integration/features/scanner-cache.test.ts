/**
 * The scanner keeps parsed state files while they are unchanged, and never serves a changed one
 * from what it kept: a file changed in place with the same size, replaced atomically, or replaced
 * by a FIFO is read again. A file read again whose text is the one kept is not parsed again.
 * readStateTextSync (the scanner's read) and the parser are wrapped so reads and parses can be counted.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, symlinkSync, truncateSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { activeStatePath, scanFeatures } from '../../../src-main/features/scanner';
import * as stateModule from '../../../src-main/features/state';
import { newFeatureState, writeState } from '../../../src-main/features/state';
import { stateParser } from '../../../src-main/features/state-parser';

vi.mock('../../../src-main/features/state', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../src-main/features/state')>();
  return { ...actual, readStateTextSync: vi.fn(actual.readStateTextSync) };
});
const reads = vi.mocked(stateModule.readStateTextSync);
const parses = vi.spyOn(stateParser, 'parse');

let repo: string;
beforeEach(() => {
  repo = mkdtempSync(join(tmpdir(), 'fd-scan-cache-'));
  reads.mockClear();
  parses.mockClear();
});
afterEach(() => rmSync(repo, { recursive: true, force: true }));

const put = (slug: string, branch: string) => {
  writeState(activeStatePath(repo, slug), newFeatureState({ slug, now: new Date('2026-02-10T10:30:00Z'), worktreePath: `.trees/${slug}`, branch, baseBranch: 'main', devPhases: ['one'] }));
};
const titles = async () => (await scanFeatures(repo)).features.map((f) => f.state.git.branch);
/** The latest modification or change time of anything under the repository (ms). */
function newestChange(dir = repo): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    const st = lstatSync(p);
    newest = Math.max(newest, st.mtimeMs, st.ctimeMs);
    if (e.isDirectory()) newest = Math.max(newest, newestChange(p));
  }
  return newest;
}
/** Past the racy window of a file system with fine times (50 ms): what was written so far has an identity. */
const pastTick = () => new Promise((r) => setTimeout(r, 100));

describe('scanner cache', () => {
  it('reads an unchanged file once, and a changed one again however it changed', async () => {
    put('alpha', 'Title AAAA');
    put('beta', 'Title BBBB');
    // Just written (both scans 10 ms after the last write, whatever the machine's speed): too
    // recent to trust its identity (a second write in the same clock tick could look the same), so
    // read again; its text is the one parsed before, so not parsed again.
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(newestChange() + 10);
    expect(await titles()).toEqual(['Title AAAA', 'Title BBBB']);
    expect(await titles()).toEqual(['Title AAAA', 'Title BBBB']);
    expect(reads).toHaveBeenCalledTimes(4);
    expect(parses).toHaveBeenCalledTimes(2);

    vi.useRealTimers();
    await pastTick();
    reads.mockClear();
    parses.mockClear();
    expect(await titles()).toEqual(['Title AAAA', 'Title BBBB']);
    expect(await titles()).toEqual(['Title AAAA', 'Title BBBB']);
    // Old enough now: read once more to take its identity, then kept; parsed by neither scan.
    expect(reads).toHaveBeenCalledTimes(2);
    expect(parses).not.toHaveBeenCalled();

    // In place, same size, its modification time put back: the change time still differs.
    const path = activeStatePath(repo, 'alpha');
    const before = readFileSync(path, 'utf8');
    writeFileSync(path, before.replace('Title AAAA', 'Title ZZZZ'));
    utimesSync(path, new Date('2026-01-01T00:00:00Z'), new Date('2026-01-01T00:00:00Z'));
    parses.mockClear();
    expect(await titles()).toEqual(['Title ZZZZ', 'Title BBBB']);
    expect(parses.mock.calls.map((c) => c[1])).toEqual([path]);

    // Replaced atomically (a new inode), as Flightdeck writes.
    put('beta', 'Title YYYY');
    expect(await titles()).toEqual(['Title ZZZZ', 'Title YYYY']);

    // A kept result is a copy: changing what a scan returned changes nothing kept.
    await pastTick();
    await scanFeatures(repo);
    (await scanFeatures(repo)).features[0]!.state.git.branch = 'mutated';
    expect(await titles()).toEqual(['Title ZZZZ', 'Title YYYY']);

    // No longer a regular file (a FIFO in its place): reported as a problem, not served from what was kept.
    rmSync(path);
    execFileSync('mkfifo', [path]);
    const scan = await scanFeatures(repo);
    expect(scan.features.map((f) => f.slug)).toEqual(['beta']);
    expect(scan.problems).toHaveLength(1);
  }, 30_000);

  it('never serves a kept state through a folder swapped for a link to where the same files now lie (their identities unchanged)', async () => {
    put('alpha', 'Title AAAA');
    await pastTick();
    expect(await titles()).toEqual(['Title AAAA']);
    expect(await titles()).toEqual(['Title AAAA']);
    // Kept: the second scan read nothing.
    expect(reads).toHaveBeenCalledTimes(1);
    // The worktree's .flightdeck moved out of the repository and a link put in its place: a rename moves no file's times.
    const folder = join(repo, '.trees', 'alpha', '.flightdeck');
    const away = mkdtempSync(join(tmpdir(), 'fd-scan-away-'));
    try {
      renameSync(folder, join(away, 'flightdeck'));
      symlinkSync(join(away, 'flightdeck'), folder);
      const scan = await scanFeatures(repo);
      expect(scan.features).toEqual([]);
      expect(scan.problems.map((p) => p.message).join('\n')).toMatch(/symbolic link/);
    } finally {
      rmSync(away, { recursive: true, force: true });
    }
  });

  it('an oversized or malformed state file is read once and its error kept until it changes (never retried at each list)', async () => {
    put('good', 'Title GOOD');
    const huge = activeStatePath(repo, 'huge');
    const broken = activeStatePath(repo, 'broken');
    put('huge', 'x');
    put('broken', 'x');
    truncateSync(huge, 60 * 1024 * 1024);
    writeFileSync(broken, 'feature: [unclosed\n');
    await pastTick();
    reads.mockClear();
    for (let i = 0; i < 3; i++) {
      const scan = await scanFeatures(repo);
      expect(scan.features.map((f) => f.slug)).toEqual(['good']);
      expect(scan.problems.map((p) => p.path).sort()).toEqual([broken, huge].sort());
      expect(scan.problems.find((p) => p.path === huge)!.message).toContain("over the 1 MiB a feature's state may take; it is not read");
    }
    // Each file read once, by the first scan; the two after it were answered from what was kept.
    expect(reads).toHaveBeenCalledTimes(3);
    // Fixed: read again and listed.
    put('huge', 'Title HUGE');
    expect(await titles()).toEqual(['Title GOOD', 'Title HUGE']);
  }, 30_000);
});
