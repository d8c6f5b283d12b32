import { mkdirSync, readFileSync, writeFileSync, existsSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { ChangesService } from '../../../src-main/changes/changes-service';
import { silentLogger } from '../../../src-main/platform/logger';
import type { SessionRecord } from '../../../src-main/agents/store/session-repo';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const BASE = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';

function session(root: string, paths: string[]): SessionRecord {
  return {
    id: 'ses-test000001', title: 't', root, projectId: null, mode: 'auto-edit', profile: 'p', model: 'm', policyPreset: 'balanced',
    disabledTools: [], status: 'idle', todos: [], state: { undo: [{ turnId: 'turn-1', at: 1, files: paths.map((p) => ({ path: p, blob: null })) }] },
    turnCount: 1, lastTurn: null, ownerPid: null, ownerId: null, createdAt: 1, updatedAt: 1,
  } as SessionRecord;
}

function setup(paths: string[], opts: { running?: boolean } = {}) {
  const repo = makeRepo('fd-changes-');
  cleanups.push(repo.cleanup);
  gitIn(repo.path, 'config', 'user.name', 'Test');
  gitIn(repo.path, 'config', 'user.email', 't@example.com');
  writeFileSync(join(repo.path, 'a.txt'), BASE);
  writeFileSync(join(repo.path, 'other.txt'), 'untouched by the session\n');
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'base');
  const hub = new EventHub();
  const svc = new ChangesService({ hub, logger: silentLogger, session: () => session(repo.path, paths), isRunning: () => opts.running ?? false });
  return { root: repo.path, svc };
}

/** Two separate hunks in a.txt: line 2 changed, line 28 changed. */
function editTwoPlaces(root: string): void {
  writeFileSync(join(root, 'a.txt'), BASE.replace('line 2\n', 'line two\n').replace('line 28\n', 'line twenty-eight\n'));
}

describe('ChangesService (real git repositories)', () => {
  it('marks new files git does not track as untracked; a new file already added to the index is not', async () => {
    const { root, svc } = setup(['junk.log', 'staged.ts', 'a.txt']);
    writeFileSync(join(root, 'junk.log'), 'build output\n');
    writeFileSync(join(root, 'staged.ts'), 'export const s = 1;\n');
    gitIn(root, 'add', 'staged.ts');
    editTwoPlaces(root);
    const set = await svc.list('ses-test000001', 'session');
    const by = Object.fromEntries(set.files.map((f) => [f.path, f.untracked === true]));
    expect(by).toEqual({ 'junk.log': true, 'staged.ts': false, 'a.txt': false });
  });

  it('lists the files the session changed with their hunks, not other uncommitted files', async () => {
    const { root, svc } = setup(['a.txt', 'new/b.ts', 'unchanged.txt']);
    editTwoPlaces(root);
    mkdirSync(join(root, 'new'));
    writeFileSync(join(root, 'new/b.ts'), 'export const b = 1;\n');
    writeFileSync(join(root, 'other.txt'), 'changed by the user\n');
    const set = await svc.list('ses-test000001', 'session');
    expect(set.gitRepo).toBe(true);
    expect(set.branch).toBe('main');
    expect(set.files.map((f) => [f.path, f.status])).toEqual([['a.txt', 'modified'], ['new/b.ts', 'added']]);
    const a = set.files[0]!;
    expect(a.hunks).toHaveLength(2);
    expect([a.added, a.removed]).toEqual([2, 2]);
    expect(a.diff).toMatch(/^diff --git a\/a.txt b\/a.txt\n--- a\/a.txt\n\+\+\+ b\/a.txt\n@@ -1,5 \+1,5 @@/);
    expect(set.files[1]!.diff).toContain('--- /dev/null');
    const all = await svc.list('ses-test000001', 'all');
    expect(all.files.map((f) => f.path)).toEqual(['a.txt', 'new/b.ts', 'other.txt']);
  });

  it('reverts one hunk, keeps the other, and saves what it replaced as a git blob', async () => {
    const { root, svc } = setup(['a.txt']);
    editTwoPlaces(root);
    const before = readFileSync(join(root, 'a.txt'), 'utf8');
    const [file] = (await svc.list('ses-test000001', 'session')).files;
    const res = await svc.revertHunk('ses-test000001', 'a.txt', file!.hunks[1]!);
    const now = readFileSync(join(root, 'a.txt'), 'utf8');
    expect(now).toContain('line two\n');
    expect(now).toContain('line 28\n');
    expect(now).not.toContain('twenty-eight');
    expect(gitIn(root, 'cat-file', '-p', res.savedBlob!)).toBe(before);
    expect(res.message).toMatch(/Took back 2 changed lines at lines 25–30 of a.txt/);
  });

  it('refuses a hunk revert when the file changed so the hunk no longer applies', async () => {
    const { root, svc } = setup(['a.txt']);
    editTwoPlaces(root);
    const [file] = (await svc.list('ses-test000001', 'session')).files;
    // The user rewrote the lines the hunk added.
    const edited = readFileSync(join(root, 'a.txt'), 'utf8').replace('line twenty-eight\n', 'line 28 rewritten by hand\n');
    writeFileSync(join(root, 'a.txt'), edited);
    const err = await svc.revertHunk('ses-test000001', 'a.txt', file!.hunks[1]!).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).code).toBe('conflict');
    expect((err as AppError).message).toMatch(/no longer applies: the file changed since/);
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(edited);
  });

  it('reverts whole files: a modified one to HEAD, a new one deleted', async () => {
    const { root, svc } = setup(['a.txt', 'c.txt']);
    editTwoPlaces(root);
    writeFileSync(join(root, 'c.txt'), 'created\n');
    await svc.revertFile('ses-test000001', 'a.txt');
    expect(readFileSync(join(root, 'a.txt'), 'utf8')).toBe(BASE);
    const res = await svc.revertFile('ses-test000001', 'c.txt');
    expect(existsSync(join(root, 'c.txt'))).toBe(false);
    expect(gitIn(root, 'cat-file', '-p', res.savedBlob!)).toBe('created\n');
    expect((await svc.list('ses-test000001', 'session')).files).toEqual([]);
  });

  it('commits exactly the chosen files with the message', async () => {
    const { root, svc } = setup(['a.txt', 'c.txt', 'gone.txt']);
    writeFileSync(join(root, 'gone.txt'), 'x\n');
    gitIn(root, 'add', 'gone.txt');
    gitIn(root, 'commit', '-q', '-m', 'add gone');
    editTwoPlaces(root);
    writeFileSync(join(root, 'c.txt'), 'created\n');
    writeFileSync(join(root, 'other.txt'), 'not to be committed\n');
    gitIn(root, 'rm', '-q', 'gone.txt');
    gitIn(root, 'reset', '-q');
    const res = await svc.commit('ses-test000001', ['a.txt', 'c.txt', 'gone.txt'], 'Session changes');
    expect(res.files).toBe(3);
    expect(gitIn(root, 'log', '-1', '--format=%s').trim()).toBe('Session changes');
    expect(gitIn(root, 'show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(['A\tc.txt', 'D\tgone.txt', 'M\ta.txt']);
    expect(gitIn(root, 'status', '--porcelain')).toBe(' M other.txt\n');
    expect((await svc.list('ses-test000001', 'session')).files).toEqual([]);
  });

  it('says so when the root is not a repository, refuses paths leading outside, and waits for a running turn', async () => {
    const plain = tempDir('fd-changes-plain-');
    cleanups.push(plain.cleanup);
    const svc = new ChangesService({ hub: new EventHub(), logger: silentLogger, session: () => session(plain.path, ['a.txt']), isRunning: () => false });
    const set = await svc.list('ses-test000001', 'session');
    expect(set.gitRepo).toBe(false);
    expect(set.problem).toMatch(/not in a git repository/);

    const { root, svc: svc2 } = setup(['link/x.txt']);
    const outside = tempDir('fd-changes-out-');
    cleanups.push(outside.cleanup);
    writeFileSync(join(outside.path, 'x.txt'), 'secret\n');
    symlinkSync(outside.path, join(root, 'link'));
    expect((await svc2.list('ses-test000001', 'session')).files).toEqual([]);
    await expect(svc2.revertFile('ses-test000001', 'link/x.txt')).rejects.toMatchObject({ code: 'forbidden' });
    await expect(svc2.commit('ses-test000001', ['../outside.txt'], 'm')).rejects.toMatchObject({ code: 'forbidden', message: expect.stringMatching(/outside the session root/) });
    expect(readFileSync(join(outside.path, 'x.txt'), 'utf8')).toBe('secret\n');

    const { svc: busy } = setup(['a.txt'], { running: true });
    await expect(busy.commit('ses-test000001', ['a.txt'], 'm')).rejects.toMatchObject({ code: 'conflict' });
  });
});
