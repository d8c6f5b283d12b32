/**
 * git inside a worktree session's command sandbox, through the real CLI and bubblewrap: a New
 * session works in `.trees/<slug>`, whose git data is the main repository's (under /tmp here,
 * which the sandbox replaces with its own). `!git status`, log, diff, show, blame and a commit on
 * the session's own branch work; the repository's config, hooks, another branch, another
 * worktree's admin dir, the worktree's HEAD and its `.git` file cannot be written.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startModelServer } from '../../fixtures/model-server/index.js';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const KEY = 'sk-cli-wt-git-0123456789abcdef';

describe('git in a worktree session sandbox', () => {
  it('reads and commits on its own branch; config, hooks, other branches and worktrees stay untouched', async () => {
    const server = await startModelServer({ script: [] });
    const data = tempDir('fd-wtgit-data-');
    const repo = makeRepo('fd-wtgit-repo-');
    cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
    process.env.FD_TEST_KEY = KEY;
    cleanups.push(() => delete process.env.FD_TEST_KEY);
    expect((await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_TEST_KEY', '--default', '--data-dir', data.path)).code).toBe(0);
    // Another branch in the session's branch folder, and another worktree session.
    gitIn(repo.path, 'branch', 'feature/other');
    const other = await cli('chat', '--worktree', '--cwd', repo.path, '--data-dir', data.path, '!true');
    expect(other.code).toBe(0);
    const otherPath = /^worktree: (.+)$/m.exec(other.out)![1]!;
    const otherSlug = otherPath.split('/').pop()!;

    const read = await cli(
      'chat', '--worktree', '--cwd', repo.path, '--data-dir', data.path, '--approve', 'allow',
      '!echo changed >> README.md; git status --short; git log --oneline -1; git diff --stat; git show --stat HEAD | head -1; git blame README.md | head -1; git commit -qam "session work" && echo COMMITTED; git log --format=%s -1',
    );
    expect(read.code).toBe(0);
    const path = /^worktree: (.+)$/m.exec(read.out)![1]!;
    const branch = /^branch: (\S+)/m.exec(read.out)![1]!;
    expect(read.out).not.toContain('not a git repository');
    expect(read.out).toContain(' M README.md');
    expect(read.out).toMatch(/README\.md \| 1 \+/);
    expect(read.out).toContain('COMMITTED');
    // The commit is on the session's branch in the real repository.
    expect(gitIn(repo.path, 'log', '--format=%s', '-1', branch).trim()).toBe('session work');
    expect(gitIn(path, 'status', '--porcelain')).toBe('');

    const git = join(repo.path, '.git');
    // Other branches kept only in packed-refs (after a gc): a loose ref made in the session's branch folder must not override one.
    gitIn(repo.path, 'pack-refs', '--all', '--prune');
    const before = {
      config: readFileSync(join(git, 'config'), 'utf8'),
      hooks: readdirSync(join(git, 'hooks')).sort(),
      main: gitIn(repo.path, 'rev-parse', 'main').trim(),
      other: gitIn(repo.path, 'rev-parse', 'feature/other').trim(),
      otherHead: readFileSync(join(git, 'worktrees', otherSlug, 'HEAD'), 'utf8'),
      ownHead: readFileSync(join(git, 'worktrees', path.split('/').pop()!, 'HEAD'), 'utf8'),
      dotGit: readFileSync(join(path, '.git'), 'utf8'),
    };
    const attack = await cli(
      'chat', '--cwd', path, '--data-dir', data.path, '--approve', 'allow',
      [
        `!printf '[filter "pwn"]\\n\\tclean = touch PWNED\\n' >> ${git}/config`,
        `printf '#!/bin/sh\\ntouch PWNED\\n' > ${git}/hooks/post-commit`,
        'git update-ref refs/heads/main HEAD',
        'git update-ref refs/heads/feature/other HEAD',
        `git rev-parse HEAD > ${git}/refs/heads/feature/other`,
        `echo "ref: refs/heads/main" > ${git}/worktrees/${otherSlug}/HEAD`,
        `echo "ref: refs/heads/main" > ${git}/worktrees/${path.split('/').pop()}/HEAD`,
        'echo "gitdir: /tmp" > .git',
        'git config core.fsmonitor "touch PWNED"',
        'git commit --allow-empty -qm "after gc" && echo COMMITTED-AFTER-GC',
        'echo DONE',
      ].join('; '),
    );
    expect(attack.out).toContain('DONE');
    expect(attack.out).toContain('COMMITTED-AFTER-GC');
    expect(attack.out).toMatch(/Read-only file system/);
    expect(readFileSync(join(git, 'config'), 'utf8')).toBe(before.config);
    expect(readdirSync(join(git, 'hooks')).sort()).toEqual(before.hooks);
    expect(gitIn(repo.path, 'rev-parse', 'main').trim()).toBe(before.main);
    expect(gitIn(repo.path, 'rev-parse', 'feature/other').trim()).toBe(before.other);
    expect(readFileSync(join(git, 'worktrees', otherSlug, 'HEAD'), 'utf8')).toBe(before.otherHead);
    expect(readFileSync(join(git, 'worktrees', path.split('/').pop()!, 'HEAD'), 'utf8')).toBe(before.ownHead);
    expect(readFileSync(join(path, '.git'), 'utf8')).toBe(before.dotGit);
  }, 120_000);
});
