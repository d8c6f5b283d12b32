/**
 * Issue 20, 2.2: a repository's `worktree.setup` never runs unasked. Against the real CLI, the
 * real services, real git and the real bubblewrap sandbox: a hostile setup (`touch` of a marker
 * outside the repository, standing for `touch $HOME/pwned`) in an untrusted repository runs
 * nothing at New session in a worktree; once trusted it runs in the workspace sandbox (its write
 * inside the worktree lands, the one outside fails) with its output in a terminal; a commit that
 * changes the setup makes the repository untrusted again, with the difference shown.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startTestApp } from '../../support/app';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { trustRepository } from '../../support/trust';
import { DESIGN_SPEC, VERIFICATION_PLAN } from '../features/support';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function hostileRepo(marker: string): string {
  const repo = makeRepo('fd-trust-repo-');
  cleanups.push(repo.cleanup);
  mkdirSync(join(repo.path, '.flightdeck'), { recursive: true });
  writeFileSync(join(repo.path, '.gitignore'), '.trees/\n');
  writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), `version: 1\nworktree:\n  setup:\n    - echo setup-ran > setup-ran.txt\n    - touch ${marker}\n`);
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'a config with a hostile setup');
  return repo.path;
}

describe('worktree.setup and workspace trust', () => {
  it('untrusted: New session in a worktree (CLI) runs nothing and says why; trust needs --yes without a terminal; a changed setup is asked again', async () => {
    const outside = tempDir('fd-trust-outside-');
    const data = tempDir('fd-trust-data-');
    cleanups.push(outside.cleanup, data.cleanup);
    const marker = join(outside.path, 'pwned');
    const repo = hostileRepo(marker);

    const r = await cli('chat', '--worktree', '--cwd', repo, '--data-dir', data.path, '/help');
    expect(r.code).toBe(0);
    expect(r.err).toContain(`warning: ${repo} is untrusted: worktree.setup (2 commands) was not run`);
    expect(r.err).toContain(`flightdeck projects trust ${repo}`);
    const tree = /^worktree: (.+)$/m.exec(r.out)![1]!;
    expect(existsSync(join(tree, 'setup-ran.txt'))).toBe(false);
    expect(existsSync(marker)).toBe(false);

    // Without a terminal and without --yes nothing is trusted: the list is shown, the refusal says what to run.
    const asked = await cli('projects', 'trust', repo, '--data-dir', data.path);
    expect(asked.code).toBe(1);
    expect(asked.out).toContain(`${repo} is untrusted`);
    expect(asked.out).toContain(`[runs] touch ${marker}`);
    expect(asked.err).toContain(`flightdeck projects trust ${repo} --yes`);
    const yes = await cli('projects', 'trust', repo, '--yes', '--data-dir', data.path);
    expect(yes.code).toBe(0);
    expect(yes.out).toContain(`Trusted ${repo}`);

    // A commit changes the setup: untrusted again, the difference shown, and nothing runs.
    writeFileSync(join(repo, '.flightdeck', 'config.yml'), `version: 1\nworktree:\n  setup:\n    - touch ${marker}-2\n`);
    gitIn(repo, 'commit', '-q', '-am', 'change the setup');
    const again = await cli('chat', '--worktree', '--cwd', repo, '--data-dir', data.path, '/help');
    expect(again.code).toBe(0);
    expect(again.err).toContain('worktree.setup (1 command) was not run');
    expect(existsSync(`${marker}-2`)).toBe(false);
    const review = await cli('projects', 'trust', repo, '--data-dir', data.path);
    expect(review.code).toBe(1);
    expect(review.out).toContain('changed since it was trusted');
    expect(review.out).toContain(`changed worktree.setup[0]: echo setup-ran > setup-ran.txt → touch ${marker}-2`);
    expect(review.out).toContain(`removed worktree.setup[1]: touch ${marker}`);

    const untrust = await cli('projects', 'untrust', repo, '--data-dir', data.path);
    expect(untrust.code).toBe(0);
    expect(untrust.out).toContain('is untrusted');
  }, 120_000);

  it('feature plan (CLI) in an untrusted repository: the feature worktree is made, its setup skipped with a warning', async () => {
    const outside = tempDir('fd-trust-outside-');
    const data = tempDir('fd-trust-data-');
    const files = tempDir('fd-trust-files-');
    cleanups.push(outside.cleanup, data.cleanup, files.cleanup);
    const marker = join(outside.path, 'pwned');
    const repo = hostileRepo(marker);
    writeFileSync(join(files.path, 'design.md'), DESIGN_SPEC);
    writeFileSync(join(files.path, 'verification.md'), VERIFICATION_PLAN);
    const r = await cli('feature', 'plan', 'add-login', '--repo', repo, '--spec', join(files.path, 'design.md'), '--verification', join(files.path, 'verification.md'), '--data-dir', data.path);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain(`warning: ${repo} is untrusted: worktree.setup (2 commands) was not run`);
    expect(existsSync(join(repo, '.trees', 'add-login'))).toBe(true);
    expect(existsSync(join(repo, '.trees', 'add-login', 'setup-ran.txt'))).toBe(false);
    expect(existsSync(marker)).toBe(false);
  }, 120_000);

  it('trusted: the setup runs in the workspace sandbox (a write outside the worktree fails) with its output in a terminal of the worktree', async () => {
    // Not under /tmp, which the sandbox replaces with an empty one: the write must meet the read-only file system itself.
    const outside = mkdtempSync(join('/var/tmp', 'fd-trust-outside-'));
    cleanups.push(() => rmSync(outside, { recursive: true, force: true }));
    const marker = join(outside, 'pwned');
    const repo = hostileRepo(marker);
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const project = await t.app.projects.add(repo);
    expect((await t.app.trust.status(repo)).state).toBe('untrusted');
    await trustRepository(t.app, repo);

    const { worktree } = await t.app.sessionWorktrees.startSession({ projectId: project.id, placement: 'worktree' });
    const tree = worktree!.path;
    // The setup runs after the worktree is made: its end is waited for.
    expect((await t.app.worktreeSetups.wait(tree))?.state).toBe('failed');
    expect(existsSync(join(tree, 'setup-ran.txt'))).toBe(true);
    expect(existsSync(marker)).toBe(false);
    const terminals = t.app.terminals.list().filter((x) => x.owner.worktreePath === tree && x.owner.phase === 'setup');
    expect(terminals.map((x) => x.title)).toEqual(['setup: echo setup-ran > setup-ran.txt', `setup: touch ${marker}`]);
    expect(terminals.every((x) => x.owner.projectId === project.id)).toBe(true);
    const failed = await t.app.terminals.attach(terminals[1]!.id, 'test-connection');
    expect(failed.data).toMatch(/Read-only file system/);
    expect(failed.terminal.exitCode).not.toBe(0);
  }, 120_000);
});
