/**
 * Issue 23 §4: a worktree's setup runs after the worktree is made. Against the real services,
 * real git, the real sandbox and terminals: the worktree is usable (its files readable, git
 * status works) while a setup command is still blocked; the setup's state goes pending → running
 * → done in events, the worktree listing and the session's status; a failed setup names its
 * command and exit code and can be run again (from the window's contract and the CLI); a restart
 * mid-setup reads as interrupted, not running forever, and can be run again; a running setup can
 * be cancelled. An untrusted repository's setup never runs, not even when asked to run again.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PayloadOf, WorktreeSetup } from '../../../src-preload/contract';
import type { AppServices } from '../../../src-main/app/services';
import { processStartTicks } from '../../../src-main/platform/process-identity';
import { SETUP_STATE_FILE, WorktreeSetupService, worktreeSetupStatus } from '../../../src-main/worktrees/setup-service';
import { WorktreeManager, type WorktreeEntry } from '../../../src-main/worktrees/worktree-manager';
import { cli } from '../../support/cli';
import { startTestApp } from '../../support/app';
import { waitFor } from '../../support/processes';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { trustRepository } from '../../support/trust';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const ctx = { origin: 'test' as const, connectionId: 'setup-test' };
/** A setup step that waits until the test puts a file named `release` in the worktree. */
const BLOCKED = 'while [ ! -f release ]; do sleep 0.05; done';

function repoWithSetup(setup: string[]): string {
  const repo = makeRepo('fd-setup-repo-');
  cleanups.push(repo.cleanup);
  mkdirSync(join(repo.path, '.flightdeck'), { recursive: true });
  writeFileSync(join(repo.path, '.gitignore'), '.trees/\n');
  writeFileSync(join(repo.path, 'notes.txt'), 'tracked file\n');
  writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), `version: 1\nworktree:\n  setup:\n${setup.map((c) => `    - ${JSON.stringify(c)}`).join('\n')}\n`);
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'a config with a setup');
  return repo.path;
}

/** A worktree made by a bare WorktreeManager (no setup), and the path of its setup state file, for a test to write. */
async function worktreeWithStateFile(slug: string): Promise<{ repo: string; entry: WorktreeEntry; file: string }> {
  const repo = repoWithSetup([]);
  const manager = new WorktreeManager();
  manager.start();
  cleanups.push(() => manager.dispose());
  const { entry } = await manager.create(repo, slug);
  return { repo, entry, file: join(repo, '.git', 'worktrees', slug, SETUP_STATE_FILE) };
}

async function appFor(repo: string, dataDir?: string): Promise<{ app: AppServices; dataDir: string; projectId: string; states: PayloadOf<'worktrees.setup.changed'>[] }> {
  const t = await startTestApp(dataDir);
  if (!dataDir) cleanups.push(t.cleanup);
  else cleanups.push(() => t.app.dispose());
  const states: PayloadOf<'worktrees.setup.changed'>[] = [];
  t.app.hub.subscribe((e) => {
    if (e.topic === 'worktrees.setup.changed') states.push(e.payload as PayloadOf<'worktrees.setup.changed'>);
  });
  const project = t.app.projects.list().find((p) => p.path === repo) ?? (await t.app.projects.add(repo));
  await trustRepository(t.app, repo);
  return { app: t.app, dataDir: t.dataDir, projectId: project.id, states };
}

async function dispatch<T>(app: AppServices, channel: string, payload: unknown): Promise<T> {
  const r = (await app.router.dispatch(channel, payload, ctx)) as { ok: boolean; value?: T; error?: { message: string } };
  if (!r.ok) throw new Error(r.error?.message ?? 'refused');
  return r.value as T;
}

describe('a worktree is usable before its setup ends', () => {
  it('a session starts in the worktree while setup is blocked: files readable, git status works, the state shows running, then done', async () => {
    const repo = repoWithSetup([BLOCKED, 'echo installed > installed.txt']);
    const { app, projectId, states } = await appFor(repo);
    const { session, worktree } = await app.sessionWorktrees.startSession({ projectId, placement: 'worktree' });
    const tree = worktree!.path;
    // create returned with the setup not finished: its first command still waits for the release file.
    await waitFor(() => app.worktreeSetups.status(tree)?.state === 'running', 'the setup to run');
    expect(readFileSync(join(tree, 'notes.txt'), 'utf8')).toBe('tracked file\n');
    expect(gitIn(tree, 'status', '--porcelain', '--untracked-files=no')).toBe('');
    expect(gitIn(tree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(worktree!.branch);
    expect(existsSync(join(tree, 'installed.txt'))).toBe(false);
    const running = app.worktreeSetups.status(tree)!;
    expect(running).toMatchObject({ state: 'running', step: 0, commands: [BLOCKED, 'echo installed > installed.txt'], failed: null, endedAt: null });
    // Where the window shows worktrees: the session's bar and the project's list.
    expect((await app.sessionWorktrees.status(session.id))?.setup?.state).toBe('running');
    const listed = await dispatch<{ worktrees: Array<{ slug: string; setup: WorktreeSetup | null }> }>(app, 'worktrees.list', { projectId });
    expect(listed.worktrees.find((w) => w.slug === worktree!.slug)?.setup?.state).toBe('running');
    // Its command's terminal streams live, owned by the worktree's setup.
    expect(app.terminals.list().filter((x) => x.owner.worktreePath === tree && x.owner.phase === 'setup' && x.status === 'running').map((x) => x.title)).toEqual([`setup: ${BLOCKED}`]);

    writeFileSync(join(tree, 'release'), '');
    const end = await app.worktreeSetups.wait(tree);
    expect(end).toMatchObject({ state: 'done', step: 1, failed: null });
    expect(readFileSync(join(tree, 'installed.txt'), 'utf8')).toBe('installed\n');
    const seen = states.filter((s) => s.path === tree).map((s) => `${s.setup.state}:${s.setup.step}`);
    expect(seen).toEqual(['pending:0', 'running:0', 'running:1', 'done:1']);
    expect(states.every((s) => s.projectId === projectId && s.root === repo)).toBe(true);
  }, 120_000);

  it('a failed setup names its command and exit code, in the listing and the CLI, and runs again once fixed', async () => {
    const repo = repoWithSetup(['echo first', 'test -f fixed || exit 7', 'echo after > after.txt']);
    const data = tempDir('fd-setup-data-');
    cleanups.push(data.cleanup);
    const { app, projectId } = await appFor(repo, data.path);
    const { worktree } = await app.sessionWorktrees.startSession({ projectId, placement: 'worktree' });
    const tree = worktree!.path;
    const failed = await app.worktreeSetups.wait(tree);
    expect(failed).toMatchObject({ state: 'failed', step: 1, failed: { command: 'test -f fixed || exit 7', exitCode: 7, reason: 'exited with code 7' } });
    expect(existsSync(join(tree, 'after.txt'))).toBe(false);
    const listed = await cli('worktree', 'list', '--repo', repo);
    expect(listed.code).toBe(0);
    expect(listed.out).toContain(`setup failed at \`test -f fixed || exit 7\`: exited with code 7 — "worktree setup ${worktree!.slug}" runs it again`);

    // Run again from the window (the project's worktree list): refused while it runs, done once fixed.
    writeFileSync(join(tree, 'fixed'), '');
    const again = await dispatch<{ setup: WorktreeSetup }>(app, 'worktrees.setup.rerun', { projectId, slug: worktree!.slug });
    expect(again.setup.state).toBe('pending');
    await expect(dispatch(app, 'worktrees.setup.rerun', { projectId, slug: worktree!.slug })).rejects.toThrow(/still running|running already/);
    expect(await app.worktreeSetups.wait(tree)).toMatchObject({ state: 'done', failed: null });
    expect(readFileSync(join(tree, 'after.txt'), 'utf8')).toBe('after\n');

    // And from the CLI, with its progress on stderr.
    const r = await cli('worktree', 'setup', worktree!.slug, '--repo', repo, '--data-dir', data.path);
    expect(r.code, r.err).toBe(0);
    expect(r.err).toContain('setup running `echo first` (1/3)');
    expect(r.out).toContain(`The setup of ${worktree!.slug} is done (3 commands).`);
  }, 120_000);

  it('a restart mid-setup reads as interrupted (not running), in the app and the CLI, and runs again', async () => {
    const repo = repoWithSetup([BLOCKED]);
    const data = tempDir('fd-setup-data-');
    cleanups.push(data.cleanup);
    const first = await appFor(repo, data.path);
    const { session, worktree } = await first.app.sessionWorktrees.startSession({ projectId: first.projectId, placement: 'worktree' });
    const tree = worktree!.path;
    await waitFor(() => first.app.worktreeSetups.status(tree)?.state === 'running', 'the setup to run');
    first.app.dispose();

    const second = await appFor(repo, data.path);
    const interrupted = second.app.worktreeSetups.status(tree);
    expect(interrupted).toMatchObject({ state: 'interrupted', step: 0, failed: { command: BLOCKED, exitCode: null } });
    expect((await second.app.sessionWorktrees.status(session.id))?.setup?.state).toBe('interrupted');
    expect((await cli('worktree', 'list', '--repo', repo)).out).toContain(`setup was interrupted at \`${BLOCKED}\``);
    // A wait for it does not hang: it is over.
    expect((await second.app.worktreeSetups.wait(tree))?.state).toBe('interrupted');

    writeFileSync(join(tree, 'release'), '');
    await dispatch(second.app, 'worktrees.setup.rerun', { sessionId: session.id });
    expect((await second.app.worktreeSetups.wait(tree))?.state).toBe('done');
  }, 120_000);

  it('a running setup can be cancelled: its terminal ends, the state says cancelled at which command', async () => {
    const repo = repoWithSetup([BLOCKED, 'echo never > never.txt']);
    const { app, projectId } = await appFor(repo);
    const { session, worktree } = await app.sessionWorktrees.startSession({ projectId, placement: 'worktree' });
    const tree = worktree!.path;
    await waitFor(() => app.worktreeSetups.status(tree)?.state === 'running', 'the setup to run');
    expect(await dispatch(app, 'worktrees.setup.cancel', { sessionId: session.id })).toEqual({ cancelled: true });
    expect(await app.worktreeSetups.wait(tree)).toMatchObject({ state: 'cancelled', step: 0, failed: { command: BLOCKED } });
    expect(existsSync(join(tree, 'never.txt'))).toBe(false);
    expect(await dispatch(app, 'worktrees.setup.cancel', { sessionId: session.id })).toEqual({ cancelled: false });
  }, 120_000);

  it('removing a worktree whose setup runs stops the setup first: no command is left running in a deleted folder', async () => {
    const repo = repoWithSetup([BLOCKED]);
    const { app, projectId } = await appFor(repo);
    const { worktree } = await app.sessionWorktrees.startSession({ projectId, placement: 'worktree' });
    const tree = worktree!.path;
    await waitFor(() => app.worktreeSetups.status(tree)?.state === 'running', 'the setup to run');
    const terminal = app.terminals.list().find((x) => x.owner.worktreePath === tree && x.owner.phase === 'setup')!;
    await dispatch(app, 'worktrees.remove', { projectId, slug: worktree!.slug, force: true });
    expect(existsSync(tree)).toBe(false);
    await waitFor(() => app.terminals.list().find((x) => x.id === terminal.id)?.status === 'exited', "the setup's terminal to end");
    expect(app.worktreeSetups.status(tree)).toBeNull();
  }, 120_000);

  it('an untrusted repository: no setup runs at create, and running it again is refused', async () => {
    const repo = repoWithSetup(['echo ran > ran.txt']);
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const project = await t.app.projects.add(repo);
    const { worktree } = await t.app.sessionWorktrees.startSession({ projectId: project.id, placement: 'worktree' });
    expect(t.app.worktreeSetups.status(worktree!.path)).toBeNull();
    await expect(t.app.worktreeSetups.rerun(repo, worktree!.path)).rejects.toThrow(/is untrusted: worktree.setup \(1 command\) was not run/);
    expect(existsSync(join(worktree!.path, 'ran.txt'))).toBe(false);
  }, 60_000);

  it('a state file Flightdeck did not write is not believed: broken JSON, a wrong shape, a FIFO, an oversized file read as no setup', async () => {
    const { repo, entry, file } = await worktreeWithStateFile('odd');
    expect(worktreeSetupStatus(entry.path)).toBeNull();
    const valid = { version: 1, ownerPid: 1, ownerId: '1@1', state: 'done', commands: ['npm ci'], step: 0, terminalId: null, failed: null, startedAt: 1, endedAt: 2 };
    writeFileSync(file, JSON.stringify(valid));
    expect(worktreeSetupStatus(entry.path)?.state).toBe('done');
    for (const bad of ['{"version": 1, "state": "do', JSON.stringify({ ...valid, state: 'exploded' }), JSON.stringify({ ...valid, version: 2 }), JSON.stringify({ ...valid, step: -1 }), JSON.stringify({ ...valid, commands: 'npm ci' })]) {
      writeFileSync(file, bad);
      expect(worktreeSetupStatus(entry.path)).toBeNull();
    }
    writeFileSync(file, `${JSON.stringify(valid)}${' '.repeat(5 * 1024 * 1024)}`);
    expect(worktreeSetupStatus(entry.path)).toBeNull();
    rmSync(file);
    // A FIFO is never opened (reading it would wait for a writer forever).
    execFileSync('mkfifo', [file]);
    expect(worktreeSetupStatus(entry.path)).toBeNull();
    // What the CLI prints of it carries no escape sequence (the folder is an agent's to write).
    rmSync(file);
    writeFileSync(file, JSON.stringify({ ...valid, state: 'failed', failed: { command: 'npm ci\u001b]0;pwned\u0007', exitCode: 1, reason: 'exited with code 1' } }));
    const listed = await cli('worktree', 'list', '--repo', repo);
    expect(listed.out).toContain('setup failed at `npm ci?]0;pwned?`: exited with code 1');
    expect([...listed.out].filter((c) => c !== '\n' && c < ' ')).toEqual([]);
    // A running state whose process is gone is over: interrupted.
    rmSync(file);
    writeFileSync(file, JSON.stringify({ ...valid, state: 'running', endedAt: null, ownerPid: 2 ** 22 + 1 }));
    expect(worktreeSetupStatus(entry.path)).toMatchObject({ state: 'interrupted', failed: { command: 'npm ci', exitCode: null } });
  }, 60_000);

  it('a forged running state cannot make Flightdeck wait forever: a live pid counts only as its exact pid@start, pid 0 is no owner, and a wait ends when the state stays unchanged', async () => {
    const { entry, file } = await worktreeWithStateFile('forged');
    const running = { version: 1, state: 'running', commands: ['npm ci'], step: 0, terminalId: null, failed: null, startedAt: 1, endedAt: null };
    const service = new WorktreeSetupService({ runner: { runCommand: () => Promise.reject(new Error('no command runs here')) }, owner: () => ({ worktreePath: entry.path, phase: 'setup' }), commandsOf: () => Promise.resolve({ commands: [], refused: null }), foreignStallMs: 300 });
    // pid 1 is alive, but the identity is not its pid@start: no owner, interrupted, and the wait is over at once.
    writeFileSync(file, JSON.stringify({ ...running, ownerPid: 1, ownerId: 'forged' }));
    expect(worktreeSetupStatus(entry.path)).toMatchObject({ state: 'interrupted', failed: { command: 'npm ci', exitCode: null } });
    expect((await service.wait(entry.path))?.state).toBe('interrupted');
    // pid 0 (or below) names a process group, which signal 0 always reaches: not a state Flightdeck wrote.
    for (const ownerPid of [0, -1]) {
      writeFileSync(file, JSON.stringify({ ...running, ownerPid, ownerId: `${ownerPid}@1` }));
      expect(worktreeSetupStatus(entry.path)).toBeNull();
    }
    // Another live process named exactly (as another Flightdeck's would be) runs it; a wait for it
    // ends, interrupted, once its state has stayed unchanged past the stall limit.
    const other = spawn('sleep', ['30'], { stdio: 'ignore' });
    cleanups.push(() => other.kill());
    const pid = other.pid!;
    writeFileSync(file, JSON.stringify({ ...running, ownerPid: pid, ownerId: `${pid}@${processStartTicks(pid)}` }));
    expect(worktreeSetupStatus(entry.path)?.state).toBe('running');
    expect(await service.wait(entry.path)).toMatchObject({ state: 'interrupted', failed: { command: 'npm ci', reason: expect.stringMatching(/left its state unchanged/) } });
  }, 60_000);
});
