/**
 * The commit a feature run makes after each phase (DefaultGitOps.commit, all changes, no
 * housekeeping): it holds exactly what was changed in the work tree — new, deleted, renamed,
 * binary and executable-bit changes — and nothing the repository boundary leaves out (what setup
 * created, a nested repository's pointer), nor what it is asked to leave out (the feature's record
 * before a round). Without housekeeping git's automatic maintenance does not start; with it (the
 * run's last commit) it does.
 */
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DefaultGitOps } from '../../../src-main/features/git-ops';
import { recordSetupArtifacts, untrackedEntries } from '../../../src-main/worktrees/setup-artifacts';
import { gitIn, makeRepo, setGitIdentity } from '../../support/temp';

let repo: { path: string; cleanup(): void } | null = null;
afterEach(() => {
  repo?.cleanup();
  repo = null;
});

const identity = (dir: string): void => setGitIdentity(dir, 'Runner Test', 'runner@example.com');

/** `git show --name-status` of HEAD, renames as delete + add, sorted. */
function headChanges(dir: string): string[] {
  return gitIn(dir, 'show', '--no-renames', '--name-status', '--format=', 'HEAD').trim().split('\n').sort();
}

describe('the run commit', () => {
  it('holds exactly the work tree changes (new, deleted, renamed, binary, executable bit) and leaves out setup artifacts and a nested repository', async () => {
    repo = makeRepo('fd-commit-');
    const wt = repo.path;
    identity(wt);
    writeFileSync(join(wt, 'old.txt'), 'old\n');
    writeFileSync(join(wt, 'moved.txt'), 'moved content\n');
    writeFileSync(join(wt, 'tool.sh'), '#!/bin/sh\necho tool\n');
    // A nested repository tracked by a pointer (a submodule without .gitmodules).
    const sub = join(wt, 'sub');
    mkdirSync(sub);
    gitIn(sub, 'init', '-q', '-b', 'main');
    identity(sub);
    writeFileSync(join(sub, 'f.txt'), 'one\n');
    gitIn(sub, 'add', '.');
    gitIn(sub, 'commit', '-q', '-m', 'sub one');
    gitIn(wt, 'add', 'old.txt', 'moved.txt', 'tool.sh', 'sub');
    gitIn(wt, 'commit', '-q', '-m', 'base');
    // What setup made (an npm install) is recorded and stays out of every commit.
    const before = await untrackedEntries(wt);
    mkdirSync(join(wt, 'node_modules', 'dep'), { recursive: true });
    writeFileSync(join(wt, 'node_modules', 'dep', 'index.js'), 'module.exports = 1;\n');
    expect(await recordSetupArtifacts(wt, before)).toEqual(['node_modules/']);

    // The agent's changes.
    writeFileSync(join(wt, 'new.txt'), 'new\n');
    rmSync(join(wt, 'old.txt'));
    renameSync(join(wt, 'moved.txt'), join(wt, 'renamed.txt'));
    writeFileSync(join(wt, 'image.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x00, 0x01]));
    chmodSync(join(wt, 'tool.sh'), 0o755);
    // The nested repository moves on: its new pointer is the user's to stage, never the run's.
    writeFileSync(join(sub, 'f.txt'), 'two\n');
    gitIn(sub, 'commit', '-q', '-am', 'sub two');

    const made = await new DefaultGitOps().commit(wt, 'feat: the phase', undefined, { repository: wt, housekeeping: false });
    expect(made).toBe(true);
    expect(gitIn(wt, 'log', '-1', '--format=%s')).toBe('feat: the phase\n');
    expect(headChanges(wt)).toEqual(['A\timage.bin', 'A\tnew.txt', 'A\trenamed.txt', 'D\tmoved.txt', 'D\told.txt', 'M\ttool.sh']);
    // Byte for byte and bit for bit.
    expect(gitIn(wt, 'ls-tree', 'HEAD', 'tool.sh')).toMatch(/^100755 /);
    expect(gitIn(wt, 'cat-file', '-p', 'HEAD:image.bin')).toBe(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x00, 0x01]).toString('utf8'));
    // Left as they were: the setup's files untracked, the pointer change unstaged.
    expect(gitIn(wt, 'status', '--porcelain')).toBe(' M sub\n?? node_modules/\n');

    // Nothing left to commit: no commit.
    expect(await new DefaultGitOps().commit(wt, 'feat: nothing', undefined, { repository: wt, housekeeping: false })).toBe(false);
  });

  it('leaves out what it is asked to: nothing else changed is no commit, and the next commit takes it', async () => {
    repo = makeRepo('fd-commit-leave-');
    const wt = repo.path;
    identity(wt);
    const record = join(wt, '.flightdeck', 'demo');
    mkdirSync(join(record, 'specs'), { recursive: true });
    writeFileSync(join(record, 'state.yml'), 'status: planned\n');
    writeFileSync(join(wt, '.flightdeck', 'demo-2.txt'), 'another feature\n');
    gitIn(wt, 'add', '.');
    gitIn(wt, 'commit', '-q', '-m', 'base');
    const leaveOut = ['.flightdeck/demo'];
    const git = new DefaultGitOps();

    // Only the record changed (a tracked file and a new one): no commit, both left unstaged.
    writeFileSync(join(record, 'state.yml'), 'status: in_progress\n');
    writeFileSync(join(record, 'specs', 'design.md'), '# Design\n');
    expect(await git.commit(wt, 'feat: round', undefined, { repository: wt, housekeeping: false, leaveOut })).toBe(false);
    expect(gitIn(wt, 'log', '-1', '--format=%s')).toBe('base\n');
    expect(gitIn(wt, 'status', '--porcelain')).toBe(' M .flightdeck/demo/state.yml\n?? .flightdeck/demo/specs/\n');

    // Code and a file beside the record (not inside it) changed as well: they are committed, the record is not.
    writeFileSync(join(wt, 'fix.txt'), 'fixed\n');
    writeFileSync(join(wt, '.flightdeck', 'demo-2.txt'), 'changed\n');
    expect(await git.commit(wt, 'fix: round', undefined, { repository: wt, housekeeping: false, leaveOut })).toBe(true);
    expect(headChanges(wt)).toEqual(['A\tfix.txt', 'M\t.flightdeck/demo-2.txt']);
    expect(gitIn(wt, 'status', '--porcelain')).toBe(' M .flightdeck/demo/state.yml\n?? .flightdeck/demo/specs/\n');

    // The phase's commit takes the record.
    expect(await git.commit(wt, 'feat: phase', undefined, { repository: wt, housekeeping: false })).toBe(true);
    expect(headChanges(wt)).toEqual(['A\t.flightdeck/demo/specs/design.md', 'M\t.flightdeck/demo/state.yml']);
    expect(gitIn(wt, 'status', '--porcelain')).toBe('');
  });

  it('a message made from what the commit holds gets its paths, what was staged before included; nothing staged is no commit', async () => {
    repo = makeRepo('fd-commit-named-');
    const wt = repo.path;
    identity(wt);
    writeFileSync(join(wt, 'old.txt'), 'old\n');
    writeFileSync(join(wt, 'moved.txt'), 'moved\n');
    gitIn(wt, 'add', '.');
    gitIn(wt, 'commit', '-q', '-m', 'base');
    const git = new DefaultGitOps();
    writeFileSync(join(wt, 'we ird.txt'), 'new\n');
    rmSync(join(wt, 'old.txt'));
    // Staged by hand before (an agent's own git mv): the add has nothing to say about it.
    gitIn(wt, 'mv', 'moved.txt', 'renamed.txt');
    let staged: readonly string[] = [];
    expect(await git.commit(wt, (s) => ((staged = s), `feat: ${s.length} paths`), undefined, { repository: wt, housekeeping: false })).toBe(true);
    // A rename is both its paths.
    expect([...staged].sort()).toEqual(['moved.txt', 'old.txt', 'renamed.txt', 'we ird.txt']);
    expect(gitIn(wt, 'log', '-1', '--format=%s')).toBe('feat: 4 paths\n');
    expect(headChanges(wt)).toEqual(['A\trenamed.txt', 'A\twe ird.txt', 'D\tmoved.txt', 'D\told.txt']);

    // Only a staged rename, nothing else changed: still named from what the commit holds.
    gitIn(wt, 'mv', 'renamed.txt', 'again.txt');
    expect(await git.commit(wt, (s) => ((staged = s), 'feat: the rename'), undefined, { repository: wt, housekeeping: false })).toBe(true);
    expect([...staged].sort()).toEqual(['again.txt', 'renamed.txt']);
    let asked = false;
    expect(await git.commit(wt, () => ((asked = true), 'feat: nothing'), undefined, { repository: wt, housekeeping: false })).toBe(false);
    expect(asked).toBe(false);
  });

  it("starts git's automatic maintenance only when housekeeping is on", async () => {
    repo = makeRepo('fd-commit-maint-');
    const wt = repo.path;
    identity(wt);
    // A maintenance task that runs on every automatic maintenance and leaves a file behind.
    gitIn(wt, 'config', 'maintenance.commit-graph.enabled', 'true');
    gitIn(wt, 'config', 'maintenance.commit-graph.auto', '-1');
    const graphs = join(wt, '.git', 'objects', 'info', 'commit-graphs');

    writeFileSync(join(wt, 'a.txt'), 'a\n');
    expect(await new DefaultGitOps().commit(wt, 'feat: a', undefined, { repository: wt, housekeeping: false })).toBe(true);
    writeFileSync(join(wt, 'b.txt'), 'b\n');
    expect(await new DefaultGitOps().commit(wt, 'feat: b', undefined, { repository: wt, housekeeping: false })).toBe(true);
    expect(existsSync(graphs)).toBe(false);

    writeFileSync(join(wt, 'c.txt'), 'c\n');
    expect(await new DefaultGitOps().commit(wt, 'feat: c', undefined, { repository: wt })).toBe(true);
    expect(existsSync(graphs)).toBe(true);
  });
});
