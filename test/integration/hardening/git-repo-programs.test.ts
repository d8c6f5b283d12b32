/**
 * Attack (issue: container → host code execution through git): a repository's own config names
 * a program — `[filter "pwn"] clean = …` with `* filter=pwn` in .gitattributes, a merge driver, a
 * signing program, an ssh command, an upload-pack, an `ext::` remote — and the host's next
 * commit (the Changes view, a feature run's commit after a phase, a session's Commit) ran it as
 * the user. And: a worktree's `.git` file rewritten to point at a git folder the attacker made
 * sent the host's commit (and its filter) there. Now the app's git refuses, names the program
 * and how to allow it, and never looks anywhere but the recorded repository's git data.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/bridge/event-hub';
import type { SessionRecord } from '../../../src-main/agents/store/session-repo';
import { ChangesService } from '../../../src-main/changes/changes-service';
import { DefaultGitOps } from '../../../src-main/features/git-ops';
import { localMerge } from '../../../src-main/features/run/run-git';
import { git } from '../../../src-main/git/git';
import { GitProgramAllowList } from '../../../src-main/git/program-allow-list';
import { resetRepoProgramCache, setAllowedGitPrograms } from '../../../src-main/git/repo-programs';
import { silentLogger } from '../../../src-main/platform/logger';
import { cli } from '../../support/cli';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
  setAllowedGitPrograms(() => new Set());
  resetRepoProgramCache();
});
afterAll(() => setAllowedGitPrograms(() => new Set()));

const ops = new DefaultGitOps();

function repoWithMarker(): { repo: string; marker: string } {
  const r = makeRepo('fd-gitprog-');
  const m = tempDir('fd-gitprog-marker-');
  cleanups.push(r.cleanup, m.cleanup);
  gitIn(r.path, 'config', 'user.name', 'Test');
  gitIn(r.path, 'config', 'user.email', 't@example.com');
  return { repo: r.path, marker: join(m.path, 'PWNED') };
}

/** What the container agent wrote: the attribute in the work tree, the driver in the repository's config. */
function plantFilter(repo: string, marker: string, configFile = join(repo, '.git', 'config')): void {
  writeFileSync(join(repo, '.gitattributes'), '* filter=pwn\n');
  execFileSync('git', ['config', '--file', configFile, 'filter.pwn.clean', `touch ${marker}; cat`]);
  writeFileSync(join(repo, 'work.txt'), 'the agent changed this\n');
}

function changes(root: string): ChangesService {
  const session = { id: 'ses-gitprog0001', title: 't', root, projectId: null, mode: 'auto-edit', state: { undo: [] } } as unknown as SessionRecord;
  return new ChangesService({ hub: new EventHub(), logger: silentLogger, session: () => session, isRunning: () => false });
}

describe("the app's git never runs a program the repository configures", () => {
  it('a planted filter: status reads without it, the Changes view and a phase commit refuse and name it, nothing ran', async () => {
    const { repo, marker } = repoWithMarker();
    plantFilter(repo, marker);
    expect(await git(['status', '--porcelain'], { cwd: repo })).toContain('work.txt');
    await expect(changes(repo).commit('ses-gitprog0001', ['work.txt', '.gitattributes'], 'agent work')).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringMatching(/filter\.pwn\.clean = touch .*PWNED; cat .*allow-git-programs/s),
    });
    await expect(ops.commit(repo, 'feat: phase 1')).rejects.toMatchObject({ code: 'forbidden', details: { reason: 'repository_program' } });
    expect(existsSync(marker)).toBe(false);
    expect(gitIn(repo, 'log', '--format=%s').trim()).toBe('initial');

    // (control) git started the old way runs it.
    execFileSync('git', ['add', 'work.txt'], { cwd: repo });
    expect(existsSync(marker)).toBe(true);
  });

  it('a filter from a file the repository config includes is refused too; allowing exactly it lets it run, a changed value is refused again', async () => {
    const { repo, marker } = repoWithMarker();
    const inc = tempDir('fd-gitprog-inc-');
    cleanups.push(inc.cleanup);
    gitIn(repo, 'config', 'include.path', join(inc.path, 'extra'));
    plantFilter(repo, marker, join(inc.path, 'extra'));
    await expect(ops.commit(repo, 'm')).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining(join(inc.path, 'extra')) });
    expect(existsSync(marker)).toBe(false);

    const data = tempDir('fd-gitprog-data-');
    cleanups.push(data.cleanup);
    const list = new GitProgramAllowList(data.path);
    setAllowedGitPrograms((c) => list.allowed(c));
    list.allow(join(repo, '.git'), [{ key: 'filter.pwn.clean', value: `touch ${marker}; cat` }]);
    expect(await ops.commit(repo, 'allowed')).toBe(true);
    expect(existsSync(marker)).toBe(true);

    execFileSync('git', ['config', '--file', join(inc.path, 'extra'), 'filter.pwn.clean', `touch ${marker}2; cat`]);
    writeFileSync(join(repo, 'work.txt'), 'again\n');
    await expect(ops.commit(repo, 'changed program')).rejects.toMatchObject({ code: 'forbidden' });
    expect(existsSync(`${marker}2`)).toBe(false);
  });

  it('CLI: projects allow-git-programs lists the programs, asks (--yes without a terminal), records exactly them; disallow takes it back', async () => {
    const { repo, marker } = repoWithMarker();
    plantFilter(repo, marker);
    const data = tempDir('fd-gitprog-cli-');
    cleanups.push(data.cleanup);
    const asked = await cli('projects', 'allow-git-programs', repo, '--data-dir', data.path);
    expect(asked.code).toBe(1);
    expect(asked.out).toContain(`refused  filter.pwn.clean = touch ${marker}; cat`);
    expect(asked.err).toContain('--yes');
    const list = new GitProgramAllowList(data.path);
    setAllowedGitPrograms((c) => list.allowed(c));
    await expect(ops.commit(repo, 'still refused')).rejects.toMatchObject({ code: 'forbidden' });

    const yes = await cli('projects', 'allow-git-programs', repo, '--yes', '--data-dir', data.path);
    expect(yes.code).toBe(0);
    expect(yes.out).toContain('Allowed 1 program');
    expect(await ops.commit(repo, 'allowed by the user')).toBe(true);
    expect(existsSync(marker)).toBe(true);

    expect((await cli('projects', 'disallow-git-programs', repo, '--data-dir', data.path)).code).toBe(0);
    writeFileSync(join(repo, 'work.txt'), 'more\n');
    await expect(ops.commit(repo, 'refused again')).rejects.toMatchObject({ code: 'forbidden' });
  }, 60_000);

  it("a nested repository's own filter (a submodule an agent added, .gitmodules asking to look inside) never runs for status, diff or a commit", async () => {
    const { repo, marker } = repoWithMarker();
    const sub = join(repo, 'sub');
    mkdirSync(sub);
    gitIn(sub, 'init', '-q', '-b', 'main');
    writeFileSync(join(sub, 'f.txt'), 'a\n');
    gitIn(sub, 'add', 'f.txt');
    gitIn(sub, 'commit', '-q', '-m', 'nested');
    // Planted after the commit: git must hash f.txt again (same size, new time) to know it is unchanged.
    gitIn(sub, 'config', 'filter.pwn.clean', `sh -c 'touch ${marker}-nested; cat'`);
    writeFileSync(join(sub, '.gitattributes'), '* filter=pwn\n');
    writeFileSync(join(repo, '.gitmodules'), '[submodule "sub"]\n\tpath = sub\n\turl = ./sub\n\tignore = none\n');
    gitIn(repo, 'add', 'sub', '.gitmodules');
    gitIn(repo, 'commit', '-q', '-m', 'a nested repository');
    const touch = () => {
      const t = new Date(Date.now() + 60_000 * (1 + Math.random()));
      utimesSync(join(sub, 'f.txt'), t, t);
    };
    for (const args of [['status', '--porcelain'], ['status', '--porcelain', '--ignore-submodules=none'], ['diff'], ['diff-files']]) {
      touch();
      await git(args, { cwd: repo });
      expect(existsSync(`${marker}-nested`), args.join(' ')).toBe(false);
    }
    touch();
    writeFileSync(join(repo, 'top.txt'), 'top\n');
    expect(await ops.commit(repo, 'top file', undefined, { repository: repo })).toBe(true);
    expect(existsSync(`${marker}-nested`)).toBe(false);
    // The user's own git (no hardening) does run it: the plant is real.
    touch();
    gitIn(repo, 'status', '--porcelain');
    expect(existsSync(`${marker}-nested`)).toBe(true);
  });

  it('merge drivers, signing programs, ssh commands, upload-pack and ext:: remotes are refused or off', async () => {
    const { repo, marker } = repoWithMarker();
    const origin = tempDir('fd-gitprog-origin-');
    cleanups.push(origin.cleanup);
    execFileSync('git', ['init', '-q', '--bare', origin.path]);
    gitIn(repo, 'remote', 'add', 'origin', origin.path);
    gitIn(repo, 'push', '-q', 'origin', 'main');

    // Merge driver on a feature merge.
    gitIn(repo, 'checkout', '-q', '-b', 'feature/x');
    writeFileSync(join(repo, 'README.md'), 'feature side\n');
    gitIn(repo, 'commit', '-qam', 'feature');
    gitIn(repo, 'checkout', '-q', 'main');
    writeFileSync(join(repo, 'README.md'), 'main side\n');
    gitIn(repo, 'commit', '-qam', 'main');
    writeFileSync(join(repo, '.git', 'info', 'attributes'), '* merge=pwn\n');
    gitIn(repo, 'config', 'merge.pwn.driver', `touch ${marker}-merge; true`);
    await expect(localMerge(repo, 'main', 'feature/x', { squash: false, message: 'merge' })).rejects.toMatchObject({ message: expect.stringMatching(/merge\.pwn\.driver/) });
    gitIn(repo, 'config', '--unset', 'merge.pwn.driver');

    // Signing program.
    gitIn(repo, 'config', 'gpg.program', `${join(repo, 'sign.sh')}`);
    gitIn(repo, 'config', 'commit.gpgSign', 'true');
    writeFileSync(join(repo, 'sign.sh'), `#!/bin/sh\ntouch ${marker}-gpg\n`, { mode: 0o755 });
    await expect(ops.commit(repo, 'signed')).rejects.toMatchObject({ message: expect.stringMatching(/gpg\.program/) });
    gitIn(repo, 'config', '--unset', 'gpg.program');
    gitIn(repo, 'config', '--unset', 'commit.gpgSign');

    // Transport programs: ssh command, upload-pack (runs locally for a path remote), ext:: remote.
    gitIn(repo, 'config', 'remote.origin.uploadpack', `touch ${marker}-upload; git-upload-pack`);
    await expect(git(['fetch', 'origin'], { cwd: repo })).rejects.toMatchObject({ message: expect.stringMatching(/remote\.origin\.uploadpack/) });
    gitIn(repo, 'config', '--unset', 'remote.origin.uploadpack');
    // An ssh remote, so git would really start the ssh command (a path remote never does).
    gitIn(repo, 'remote', 'add', 'overssh', 'ssh://127.0.0.1/never.git');
    gitIn(repo, 'config', 'core.sshCommand', `touch ${marker}-ssh;`);
    await expect(ops.push(repo, 'overssh', 'main', { repository: repo })).rejects.toMatchObject({ message: expect.stringMatching(/core\.sshcommand/i) });
    gitIn(repo, 'config', '--unset', 'core.sshCommand');
    gitIn(repo, 'remote', 'remove', 'overssh');
    gitIn(repo, 'config', 'protocol.ext.allow', 'always');
    gitIn(repo, 'remote', 'add', 'evil', `ext::sh -c touch% ${marker}-ext`);
    await expect(git(['fetch', 'evil'], { cwd: repo })).rejects.toThrow();

    for (const what of ['merge', 'gpg', 'upload', 'ssh', 'ext']) expect(existsSync(`${marker}-${what}`), what).toBe(false);
    // Nothing is left refused once the programs are gone: a plain fetch works.
    await git(['fetch', 'origin'], { cwd: repo });
  });
});

describe("a worktree's .git file cannot send the host's git elsewhere", () => {
  function worktree(): { repo: string; wt: string; marker: string } {
    const { repo, marker } = repoWithMarker();
    const wt = join(repo, '.trees', 'session-1');
    gitIn(repo, 'worktree', 'add', '-q', '-b', 'feature/session-1', wt);
    return { repo, wt, marker };
  }

  /** What the container did: a git folder of its own with a filter, and the .git file pointing at it. */
  function fakeGitFolder(at: string, marker: string, wt: string): string {
    mkdirSync(at, { recursive: true });
    execFileSync('git', ['init', '-q', '--bare', join(at, 'fake.git')]);
    const admin = join(at, 'fake.git', 'worktrees', 'session-1');
    mkdirSync(admin, { recursive: true });
    writeFileSync(join(admin, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(admin, 'commondir'), '../..\n');
    // Even git's back-pointer is forged (possible only where the attacker can write outside the work tree).
    writeFileSync(join(admin, 'gitdir'), `${join(wt, '.git')}\n`);
    execFileSync('git', ['config', '--file', join(at, 'fake.git', 'config'), 'filter.pwn.clean', `touch ${marker}; cat`]);
    writeFileSync(join(wt, '.gitattributes'), '* filter=pwn\n');
    writeFileSync(join(wt, '.git'), `gitdir: ${admin}\n`);
    return join(at, 'fake.git');
  }

  it('a fake git folder inside the work tree: refused, with or without the recorded repository', async () => {
    const { repo, wt, marker } = worktree();
    const fake = fakeGitFolder(join(wt, 'evil'), marker, wt);
    writeFileSync(join(wt, 'work.txt'), 'x\n');
    await expect(ops.commit(wt, 'phase')).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/inside the work tree/) });
    await expect(changes(wt).commit('ses-gitprog0001', ['work.txt'], 'm')).rejects.toMatchObject({ code: 'forbidden' });
    expect(existsSync(marker)).toBe(false);
    expect(execFileSync('git', ['--git-dir', fake, 'rev-list', '--all'], { encoding: 'utf8' })).toBe('');
    expect(gitIn(repo, 'log', '--format=%s', 'feature/session-1').trim()).toBe('initial');
  });

  it("a .git folder put in place of a worktree's .git file, naming the real common dir: refused, the branch is not its to choose", async () => {
    const { repo, wt } = worktree();
    rmSync(join(wt, '.git'));
    const fake = join(wt, '.git');
    for (const d of ['objects', 'refs']) mkdirSync(join(fake, d), { recursive: true });
    // Its HEAD would pick the branch the host's commit lands on: main, not the session's.
    writeFileSync(join(fake, 'HEAD'), 'ref: refs/heads/main\n');
    writeFileSync(join(fake, 'commondir'), `${join(repo, '.git')}\n`);
    writeFileSync(join(wt, 'work.txt'), 'x\n');
    await expect(ops.commit(wt, 'phase', undefined, { repository: repo })).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/commondir/) });
    expect(gitIn(repo, 'log', '--format=%s', 'main').trim()).toBe('initial');
  });

  it('a fake git folder outside the work tree with forged records: the commit names the recorded repository and is refused', async () => {
    const { repo, wt, marker } = worktree();
    const outside = tempDir('fd-gitprog-fake-');
    cleanups.push(outside.cleanup);
    const fake = fakeGitFolder(outside.path, marker, wt);
    writeFileSync(join(wt, 'work.txt'), 'x\n');
    await expect(ops.commit(wt, 'phase', undefined, { repository: repo })).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining(`not the recorded repository's ${join(repo, '.git')}`) });
    expect(existsSync(marker)).toBe(false);
    expect(execFileSync('git', ['--git-dir', fake, 'rev-list', '--all'], { encoding: 'utf8' })).toBe('');

    // Restored, the same commit goes to the real repository's branch.
    writeFileSync(join(wt, '.git'), `gitdir: ${join(repo, '.git', 'worktrees', 'session-1')}\n`);
    writeFileSync(join(wt, '.gitattributes'), '');
    expect(await ops.commit(wt, 'phase', undefined, { repository: repo })).toBe(true);
    expect(gitIn(repo, 'log', '--format=%s', '-1', 'feature/session-1').trim()).toBe('phase');
    expect(readFileSync(join(repo, '.git', 'worktrees', 'session-1', 'HEAD'), 'utf8')).toBe('ref: refs/heads/feature/session-1\n');
  });
});
