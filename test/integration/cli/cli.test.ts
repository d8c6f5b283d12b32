import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function dataDir() {
  const d = tempDir('fd-cli-');
  cleanups.push(d.cleanup);
  return d.path;
}

describe('flightdeck CLI', () => {
  it('prints help with every command', async () => {
    const r = await cli('--help');
    expect(r.code).toBe(0);
    expect(r.out).toContain('serve');
    expect(r.out).toContain('projects');
  });

  it('fails with exit 2 and one line for an unknown command or flag', async () => {
    const r = await cli('launch-rockets');
    expect(r.code).toBe(2);
    expect(r.err.split('\n')).toHaveLength(1);
    const f = await cli('projects', 'list', '--colour', '--data-dir', dataDir());
    expect(f.code).toBe(2);
    expect(f.err).toMatch(/^error: /);
  });

  it('adds, lists and removes projects, with --json', async () => {
    const data = dataDir();
    const repo = makeRepo();
    cleanups.push(repo.cleanup);
    const added = await cli('projects', 'add', repo.path, '--data-dir', data, '--json');
    expect(added.code).toBe(0);
    const project = JSON.parse(added.out) as { id: string; path: string; git: { branch: string } };
    expect(project.path).toBe(repo.path);
    expect(project.git.branch).toBe('main');

    const list = await cli('projects', 'list', '--data-dir', data);
    expect(list.code).toBe(0);
    expect(list.out).toContain(repo.path);
    expect(list.out).toContain('main, clean');

    const removed = await cli('projects', 'remove', project.id, '--data-dir', data, '--json');
    expect(JSON.parse(removed.out)).toEqual({ removed: true });
    const empty = await cli('projects', 'list', '--data-dir', data, '--json');
    expect(JSON.parse(empty.out)).toEqual([]);
  });

  it('reports a user error as one line and exit 1', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const r = await cli('projects', 'add', d.path, '--data-dir', dataDir());
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error: .*not inside a git repository/);
    expect(r.err.split('\n')).toHaveLength(1);
  });
});
