/**
 * What the app's git (and a feature run) keeps or reads without starting a git, and that each
 * answer follows the repository as it is now: the config scan kept between calls sees a config
 * rewritten in place (same size, modification time set back); HEAD and refs read from git's
 * files agree with git through commits, packing and a detached HEAD; a state file's update
 * skips parsing only while the file holds exactly what was written; a commit looks for nested
 * repositories whenever the index may hold one, also one tracked since the last commit.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DefaultGitOps } from '../../../src-main/features/git-ops';
import { headCommit } from '../../../src-main/features/run/run-git';
import { newFeatureState, readState, updateState, writeState } from '../../../src-main/features/state';
import { repositoryPrograms } from '../../../src-main/git/git';
import { readHead, readRef } from '../../../src-main/git/ref-read';
import { locateRepository } from '../../../src-main/git/repo-location';
import { repoProgramScans, resetRepoProgramCache } from '../../../src-main/git/repo-programs';
import { gitIn, makeRepo, setGitIdentity, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
  resetRepoProgramCache();
});

function repo(): string {
  const r = makeRepo('fd-gitcache-');
  cleanups.push(r.cleanup);
  setGitIdentity(r.path);
  return r.path;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the repository config scan kept between git calls', () => {
  it('is reused while the config is unchanged, and a config rewritten in place with its old size and time is seen', async () => {
    const path = repo();
    const config = join(path, '.git', 'config');
    // A harmless key exactly as long as the program key that replaces it.
    writeFileSync(config, `${readFileSync(config, 'utf8')}[filter "pwn"]\n\tcleam = touch PWNED\n`);
    // A whole second, so setting it back later restores it exactly.
    const old = Math.floor(Date.now() / 1000) - 3600;
    utimesSync(config, old, old);
    // Past the window in which a just-changed file is never trusted to stay as read.
    await sleep(200);
    expect((await repositoryPrograms(path))!.programs).toEqual([]);
    const scans = repoProgramScans();
    expect((await repositoryPrograms(path))!.programs).toEqual([]);
    expect(repoProgramScans()).toBe(scans); // kept: no second scan

    const before = statSync(config);
    const text = readFileSync(config, 'utf8').replace('cleam', 'clean');
    writeFileSync(config, text, { flag: 'r+' }); // the same file (inode), the same size
    utimesSync(config, old, old); // and its modification time set back
    expect(statSync(config).ino).toBe(before.ino);
    expect(statSync(config).size).toBe(before.size);
    expect(statSync(config).mtimeMs).toBe(before.mtimeMs);
    const programs = (await repositoryPrograms(path))!.programs;
    expect(programs.map((p) => `${p.key}=${p.value}`)).toEqual(['filter.pwn.clean=touch PWNED']);
  });

  it('a config written just now is read again at the next call (its times cannot tell a second change yet)', async () => {
    const path = repo();
    const config = join(path, '.git', 'config');
    writeFileSync(config, `${readFileSync(config, 'utf8')}[core]\n\tbare = false\n`);
    const scans = repoProgramScans();
    await repositoryPrograms(path);
    await repositoryPrograms(path);
    expect(repoProgramScans()).toBe(scans + 2);
  });
});

describe("HEAD and refs read from git's files", () => {
  it('agree with git through commits, a branch packed and moved again, a detached HEAD and an unborn branch', async () => {
    const path = repo();
    const loc = () => locateRepository(path)!;
    const rev = (what: string) => gitIn(path, 'rev-parse', what).trim();
    expect(readHead(loc())).toBe(rev('HEAD'));
    expect(await headCommit(path)).toBe(rev('HEAD'));

    writeFileSync(join(path, 'a.txt'), 'a\n');
    gitIn(path, 'add', 'a.txt');
    gitIn(path, 'commit', '-q', '-m', 'a');
    expect(await headCommit(path)).toBe(rev('HEAD'));

    gitIn(path, 'branch', 'feature/x');
    gitIn(path, 'pack-refs', '--all', '--prune');
    expect(existsSync(join(path, '.git', 'refs', 'heads', 'main'))).toBe(false);
    expect(readRef(loc(), 'refs/heads/main')).toBe(rev('main'));
    expect(readRef(loc(), 'refs/heads/feature/x')).toBe(rev('feature/x'));
    expect(readRef(loc(), 'refs/heads/feature')).toBeNull(); // a prefix of a packed ref is not that ref
    expect(readRef(loc(), 'refs/heads/nope')).toBeNull();

    // A loose ref written after packing wins over the packed line.
    writeFileSync(join(path, 'b.txt'), 'b\n');
    gitIn(path, 'add', 'b.txt');
    gitIn(path, 'commit', '-q', '-m', 'b');
    expect(readHead(loc())).toBe(rev('HEAD'));
    expect(readRef(loc(), 'refs/heads/main')).toBe(rev('main'));

    gitIn(path, 'checkout', '-q', '--detach', 'HEAD~1');
    expect(await headCommit(path)).toBe(rev('HEAD'));

    gitIn(path, 'checkout', '-q', '--orphan', 'empty');
    expect(await headCommit(path)).toBeNull();

    // Not a name git writes as a file: git is asked.
    expect(readRef(loc(), 'refs/heads/../../config')).toBeUndefined();
  });

  it("in a linked worktree: its own HEAD, the shared branch files", async () => {
    const path = repo();
    const wt = join(path, '.trees', 'w');
    gitIn(path, 'worktree', 'add', '-q', '-b', 'feature/w', wt);
    writeFileSync(join(wt, 'w.txt'), 'w\n');
    gitIn(wt, 'add', 'w.txt');
    gitIn(wt, 'commit', '-q', '-m', 'w');
    expect(await headCommit(wt)).toBe(gitIn(wt, 'rev-parse', 'HEAD').trim());
    expect(await headCommit(path)).toBe(gitIn(path, 'rev-parse', 'HEAD').trim());
    expect(await headCommit(wt)).not.toBe(await headCommit(path));
  });
});

describe("a feature's state file updated again and again", () => {
  it('keeps an edit made between two updates, and refuses a file broken between them', async () => {
    const path = repo();
    const file = join(path, '.flightdeck', 'demo', 'state.yml');
    mkdirSync(join(path, '.flightdeck', 'demo'), { recursive: true });
    const state = newFeatureState({ slug: 'demo', now: new Date(), worktreePath: '.trees/demo', branch: 'feature/demo', baseBranch: 'main', devPhases: ['one'], devPhaseTitles: ['Demo'] });
    writeState(file, state);
    await updateState(file, new Date(), (s) => ({ ...s, status: 'in_progress' }));
    // Edited by hand (or by an agent) between two updates: the next update starts from the edit.
    writeFileSync(file, readFileSync(file, 'utf8').replace('title: Demo', 'title: Edited by hand'));
    const next = await updateState(file, new Date(), (s) => ({ ...s, current_phase: 1 }));
    expect(next.phases[0]!.details.title).toBe('Edited by hand');
    expect((await readState(file)).phases[0]!.details.title).toBe('Edited by hand');
    expect((await readState(file)).current_phase).toBe(1);

    writeFileSync(file, `${readFileSync(file, 'utf8')}\n  : [broken\n`);
    await expect(updateState(file, new Date(), (s) => s)).rejects.toMatchObject({ kind: expect.stringMatching(/yaml|state/) });
  });
});

describe('a commit with a message given', () => {
  it('says false when nothing is staged — a clean tree, only untracked files beside the paths, changes outside them — and true once something is', async () => {
    const path = repo();
    const ops = new DefaultGitOps();
    const head = gitIn(path, 'rev-parse', 'HEAD').trim();
    expect(await ops.commit(path, 'nothing', undefined, { repository: path })).toBe(false);
    mkdirSync(join(path, 'docs'));
    writeFileSync(join(path, 'stray.txt'), 'untracked\n');
    expect(await ops.commit(path, 'nothing in docs', ['docs'], { repository: path })).toBe(false);
    writeFileSync(join(path, 'README.md'), 'changed\n');
    expect(await ops.commit(path, 'still nothing in docs', ['docs'], { repository: path })).toBe(false);
    expect(gitIn(path, 'rev-parse', 'HEAD').trim()).toBe(head);
    writeFileSync(join(path, 'docs', 'a.md'), 'a\n');
    expect(await ops.commit(path, 'docs', ['docs'], { repository: path })).toBe(true);
    expect(gitIn(path, 'log', '-1', '--format=%s').trim()).toBe('docs');
    // A failure that is not "nothing to commit" is reported, not taken for one.
    writeFileSync(join(path, '.git', 'index.lock'), '');
    writeFileSync(join(path, 'more.txt'), 'm\n');
    await expect(ops.commit(path, 'locked', undefined, { repository: path })).rejects.toThrow(/index\.lock/);
  });
});

describe('a commit and nested repositories', () => {
  it("a nested repository tracked since the last commit is left out of the next one, its filter never run", async () => {
    const path = repo();
    const marker = join(tempDir('fd-gitcache-marker-').path, 'PWNED');
    const ops = new DefaultGitOps();
    writeFileSync(join(path, 'one.txt'), '1\n');
    // The index tracks no nested repository: this commit needs no listing of it.
    expect(await ops.commit(path, 'one', undefined, { repository: path })).toBe(true);

    const sub = join(path, 'sub');
    mkdirSync(sub);
    gitIn(sub, 'init', '-q', '-b', 'main');
    writeFileSync(join(sub, 'f.txt'), 'a\n');
    gitIn(sub, 'add', 'f.txt');
    gitIn(sub, 'commit', '-q', '-m', 'nested');
    gitIn(sub, 'config', 'filter.pwn.clean', `sh -c 'touch ${marker}; cat'`);
    writeFileSync(join(sub, '.gitattributes'), '* filter=pwn\n');
    // Tracked by a git the app did not run (an agent's own `git add sub`).
    execFileSync('git', ['update-index', '--add', '--cacheinfo', `160000,${gitIn(sub, 'rev-parse', 'HEAD').trim()},sub`], { cwd: path });
    const t = new Date(Date.now() + 120_000);
    utimesSync(join(sub, 'f.txt'), t, t);
    writeFileSync(join(path, 'two.txt'), '2\n');
    expect(await ops.commit(path, 'two', undefined, { repository: path })).toBe(true);
    expect(existsSync(marker)).toBe(false);
    expect(gitIn(path, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n')).toContain('two.txt');
  });
});
