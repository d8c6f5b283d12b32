import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import type { AppServices } from '../../../src-main/app/services';
import { startTestApp } from '../../support/app';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

let app: AppServices;
let cleanupApp: () => void;
const cleanups: Array<() => void> = [];
beforeAll(async () => {
  ({ app, cleanup: cleanupApp } = await startTestApp());
});
afterAll(() => cleanupApp());
afterEach(() => {
  for (const p of app.projects.list()) app.projects.remove(p.id);
  cleanups.splice(0).forEach((c) => c());
});

function repo() {
  const r = makeRepo();
  cleanups.push(r.cleanup);
  return r.path;
}

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'no error';
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    return (e as AppError).code;
  }
}

describe('adding a project', () => {
  it('says when the path does not exist', async () => {
    expect(await codeOf(app.projects.add('/no/such/folder/anywhere'))).toBe('path_not_found');
  });

  it('says when the path is a file', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, 'f.txt'), 'x');
    expect(await codeOf(app.projects.add(join(d.path, 'f.txt')))).toBe('not_a_directory');
  });

  it('says when the folder is not a git repository', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    expect(await codeOf(app.projects.add(d.path))).toBe('not_a_git_repo');
  });

  it('refuses relative paths with an explanation', async () => {
    await expect(app.projects.add('code/app')).rejects.toThrow(/absolute path/);
  });

  it('says when git is not installed', async () => {
    const path = repo();
    const emptyBin = tempDir();
    cleanups.push(emptyBin.cleanup);
    const saved = process.env.PATH;
    process.env.PATH = emptyBin.path;
    try {
      expect(await codeOf(app.projects.add(path))).toBe('git_not_installed');
    } finally {
      process.env.PATH = saved;
    }
  });

  it('adds a repository with its branch, dirty state and worktree count', async () => {
    const path = repo();
    const p = await app.projects.add(path);
    expect(p.path).toBe(path);
    expect(p.name).toBe(path.split('/').pop());
    expect(p.git).toEqual({ branch: 'main', detached: false, dirty: false, changedFiles: 0, worktreeCount: 0 });

    writeFileSync(join(path, 'new.txt'), 'hello');
    writeFileSync(join(path, 'README.md'), 'changed');
    gitIn(path, 'worktree', 'add', '-q', '-b', 'feature', join(path, '..', `${p.name}-wt`));
    cleanups.push(() => rmSync(join(path, '..', `${p.name}-wt`), { recursive: true, force: true }));
    const [fresh] = await app.projects.refresh(p.id);
    expect(fresh!.git).toMatchObject({ branch: 'main', dirty: true, changedFiles: 2, worktreeCount: 1 });
  });

  it('resolves a subfolder or a symlink to the repository top level and refuses duplicates', async () => {
    const path = repo();
    mkdirSync(join(path, 'src'));
    const p = await app.projects.add(join(path, 'src'));
    expect(p.path).toBe(path);
    expect(await codeOf(app.projects.add(path))).toBe('already_added');
    const link = tempDir();
    cleanups.push(link.cleanup);
    symlinkSync(path, join(link.path, 'alias'));
    expect(await codeOf(app.projects.add(join(link.path, 'alias')))).toBe('already_added');
    expect(app.projects.list()).toHaveLength(1);
  });

  it('shows a detached HEAD as the short commit', async () => {
    const path = repo();
    const sha = gitIn(path, 'rev-parse', '--short', 'HEAD').trim();
    gitIn(path, 'checkout', '-q', '--detach');
    const p = await app.projects.add(path);
    expect(p.git).toMatchObject({ branch: sha, detached: true });
  });

  it('validates paths inline without adding them', async () => {
    const path = repo();
    expect(await app.projects.validate(path)).toEqual({ ok: true, message: null, root: path });
    expect((await app.projects.validate('/nope/nope')).ok).toBe(false);
    await app.projects.add(path);
    expect(await app.projects.validate(path)).toMatchObject({ ok: false, message: expect.stringContaining('Already added') });
  });
});

describe('removing and refreshing', () => {
  it('removing forgets the project and never touches the repository', async () => {
    const path = repo();
    const p = await app.projects.add(path);
    expect(app.projects.remove(p.id)).toBe(true);
    expect(app.projects.list()).toHaveLength(0);
    expect(gitIn(path, 'status', '--porcelain')).toBe('');
    expect(gitIn(path, 'log', '--oneline').trim().split('\n')).toHaveLength(1);
    expect(app.projects.remove(p.id)).toBe(false);
  });

  it('reports a repository that disappeared instead of failing', async () => {
    const r = makeRepo();
    const p = await app.projects.add(r.path);
    r.cleanup();
    const [fresh] = await app.projects.refresh(p.id);
    expect(fresh!.git).toBeNull();
    expect(fresh!.problem).toMatch(/no longer exists/);
  });

  it('publishes the list when it changes', async () => {
    const seen: number[] = [];
    const off = app.hub.subscribe((e) => {
      if (e.topic === 'projects.changed') seen.push((e.payload as { projects: unknown[] }).projects.length);
    });
    const p = await app.projects.add(repo());
    app.projects.remove(p.id);
    off();
    expect(seen).toEqual([1, 0]);
  });

  it('survives a restart of the services', async () => {
    const path = repo();
    const first = await startTestApp();
    await first.app.projects.add(path);
    first.app.dispose();
    const second = await startTestApp(first.dataDir);
    expect(second.app.projects.list().map((p) => p.path)).toEqual([path]);
    // Start-up does not wait for git: the state is unknown until a refresh reads it.
    expect(second.app.projects.list()[0]!.git).toBeNull();
    await second.app.projects.refresh();
    expect(second.app.projects.list()[0]!.git?.branch).toBe('main');
    second.cleanup();
    first.cleanup();
  });
});
