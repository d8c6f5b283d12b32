/**
 * A remote given as a relative path (`git remote add origin ../origin.git` in the checkout):
 * git resolves it against the folder it runs in, so a push from a feature's worktree named a
 * folder that does not exist and delivery failed at push time.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DefaultGitOps } from '../../../src-main/features/git-ops';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

function repoWithRelativeOrigin(): { repo: string; origin: string; worktree: string } {
  const parent = tempDir('fd-relremote-');
  cleanups.push(parent.cleanup);
  const origin = join(parent.path, 'origin.git');
  mkdirSync(origin);
  gitIn(origin, 'init', '-q', '--bare', '-b', 'main');
  const made = makeRepo('fd-relremote-repo-');
  cleanups.push(made.cleanup);
  // The checkout sits beside origin.git, so ../origin.git is right from the checkout only.
  const repo = join(parent.path, 'repo');
  gitIn(parent.path, 'clone', '-q', made.path, repo);
  gitIn(repo, 'remote', 'remove', 'origin');
  gitIn(repo, 'remote', 'add', 'origin', '../origin.git');
  gitIn(repo, 'push', '-q', 'origin', 'main');
  const worktree = join(repo, '.trees', 'x');
  gitIn(repo, 'worktree', 'add', '-q', '-b', 'feature/x', worktree);
  gitIn(worktree, 'commit', '-q', '--allow-empty', '-m', 'work');
  return { repo, origin, worktree };
}

describe('pushing a feature branch to a remote given as a relative path', () => {
  it('pushes from a worktree through the recorded main checkout', async () => {
    const ops = new DefaultGitOps();
    const b = repoWithRelativeOrigin();
    await ops.push(b.worktree, 'origin', 'feature/x', { repository: b.repo });
    expect(gitIn(b.origin, 'rev-parse', 'refs/heads/feature/x').trim()).toBe(gitIn(b.worktree, 'rev-parse', 'HEAD').trim());
  }, 60_000);
});
