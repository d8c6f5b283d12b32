import { existsSync, lstatSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

/**
 * A repository the user cloned decides what its files are, `.trees` and `.gitignore` included.
 * A `.trees` committed as a symbolic link must not put new worktrees (with the .env files copied
 * into them, and an agent's writable sandbox) outside the repository; a `.gitignore` committed
 * as a link must not make the app append to the file it points at.
 */
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

function manager(): WorktreeManager {
  const m = new WorktreeManager({ settleMs: 150 });
  m.start();
  cleanups.push(() => m.dispose());
  return m;
}

function setup(): { repo: string; outside: string } {
  const r = makeRepo('fd-trees-link-');
  const o = tempDir('fd-trees-outside-');
  cleanups.push(r.cleanup, o.cleanup);
  return { repo: r.path, outside: o.path };
}

async function refusal(p: Promise<unknown>): Promise<AppError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(AppError);
  return e as AppError;
}

describe('worktrees in a repository that links .trees or .gitignore elsewhere', () => {
  it('a committed .trees symlink is refused: no worktree, no branch, nothing written where it points', async () => {
    const { repo, outside } = setup();
    symlinkSync(outside, join(repo, '.trees'));
    gitIn(repo, 'add', '.trees');
    gitIn(repo, 'commit', '-q', '-m', 'trees elsewhere');
    const m = manager();
    const e = await refusal(m.create(repo, 'session-1'));
    expect(e.code).toBe('invalid_input');
    expect(e.message).toMatch(/\.trees is not a folder of the repository/);
    expect(readdirSync(outside)).toEqual([]);
    expect(gitIn(repo, 'branch', '--list', 'feature/session-1').trim()).toBe('');
    expect(gitIn(repo, 'worktree', 'list', '--porcelain')).not.toContain(outside);
  });

  it('a .trees symlink made after a worktree was archived is refused on restore too', async () => {
    const { repo, outside } = setup();
    const m = manager();
    await m.create(repo, 'restore-me');
    await m.remove(repo, 'restore-me', { force: true });
    rmSync(join(repo, '.trees'), { recursive: true, force: true });
    symlinkSync(outside, join(repo, '.trees'));
    const e = await refusal(m.restore(repo, 'restore-me'));
    expect(e.message).toMatch(/\.trees is not a folder of the repository/);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('a committed .gitignore symlink is not appended to: .trees/ is ignored through git’s own exclude file instead, the target unchanged', async () => {
    const { repo, outside } = setup();
    const target = join(outside, 'bashrc');
    writeFileSync(target, 'export PS1=x\n');
    symlinkSync(target, join(repo, '.gitignore'));
    gitIn(repo, 'add', '.gitignore');
    gitIn(repo, 'commit', '-q', '-m', 'linked ignore');
    const m = manager();
    const made = await m.create(repo, 'session-2');
    expect(made.gitignoreUpdated).toBe(false);
    expect(readFileSync(target, 'utf8')).toBe('export PS1=x\n');
    expect(lstatSync(join(repo, '.gitignore')).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(repo, '.git', 'info', 'exclude'), 'utf8')).toMatch(/^\.trees\/$/m);
    expect(gitIn(repo, 'status', '--porcelain').trim()).toBe('');
    expect(existsSync(join(repo, '.trees', 'session-2'))).toBe(true);
    // And feature init's way (ignoreTrees) says it did not update .gitignore, without failing.
    expect(await m.ignoreTrees(repo)).toBe(false);
  });
});
