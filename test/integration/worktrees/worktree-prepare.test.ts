import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src-main/features/config';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { WorktreeSetupService, worktreeSetupStatus } from '../../../src-main/worktrees/setup-service';
import { assignPort, copyIgnoredFiles, prepareNewWorktree, prepareWorktree, runSetup, segmentMatcher, worktreeEnv, worktreePortOf } from '../../../src-main/worktrees/worktree-prepare';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { silentLogger } from '../../../src-main/platform/logger';
import { TerminalService } from '../../../src-main/terminals/terminal-service';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

let repo: { path: string; cleanup(): void };
let outside: { path: string; cleanup(): void };
let manager: WorktreeManager;
let terminals: TerminalService;

beforeAll(async () => {
  repo = makeRepo('fd-prep-');
  outside = tempDir('fd-prep-outside-');
  writeFileSync(join(repo.path, '.gitignore'), '.env*\n!.env.example\n.envrc\nconfig/secret.env\n');
  writeFileSync(join(repo.path, '.env.example'), 'TRACKED=1\n');
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'ignore env files');
  writeFileSync(join(repo.path, '.env'), 'A=1\n', { mode: 0o600 });
  writeFileSync(join(repo.path, '.env.local'), 'B=2\n');
  writeFileSync(join(repo.path, '.env.dev.local'), 'C=3\n');
  writeFileSync(join(repo.path, '.envrc'), 'export D=4\n');
  writeFileSync(join(repo.path, '.env.production'), 'NOT=matched\n');
  mkdirSync(join(repo.path, 'config'));
  writeFileSync(join(repo.path, 'config', 'secret.env'), 'INNER=5\n');
  // Matching names that must not be copied: a FIFO, a link leading out of the repository.
  execFileSync('mkfifo', [join(repo.path, '.env.pipe.local')]);
  writeFileSync(join(outside.path, 'stolen'), 'outside\n');
  symlinkSync(join(outside.path, 'stolen'), join(repo.path, '.env.link.local'));
  // A link to a file inside the repository is copied as that file.
  symlinkSync(join(repo.path, 'config', 'secret.env'), join(repo.path, '.env.inner.local'));
  manager = new WorktreeManager({ settleMs: 20 });
  // The terminals as the app builds them: a worktree's PORT comes from envFor.
  terminals = new TerminalService({ hub: new EventHub(), projects: { get: () => { throw new Error('no projects here'); } }, log: silentLogger, envFor: worktreeEnv });
  terminals.start();
}, 30_000);

afterAll(async () => {
  await terminals.shutdown();
  repo.cleanup();
  outside.cleanup();
});

describe('worktree.copy', () => {
  it('matches like a shell within one segment, dot-files only by a dotted pattern', () => {
    expect(segmentMatcher('.env.*.local')('.env.dev.local')).toBe(true);
    expect(segmentMatcher('.env.*.local')('.env.local')).toBe(false);
    expect(segmentMatcher('*.env')('.secret.env')).toBe(false);
    expect(segmentMatcher('*.env')('a.env')).toBe(true);
  });

  it('copies the ignored files that are absent, refuses FIFOs and links leaving the repository', async () => {
    const { entry } = await manager.create(repo.path, 'copy-target');
    writeFileSync(join(entry.path, '.envrc'), 'mine\n');
    const r = await copyIgnoredFiles(repo.path, entry.path, [...defaultConfig().worktree.copy, 'config/secret.env', 'README.md', '../escape', '**/x']);
    expect(r.copied.sort()).toEqual(['.env', '.env.dev.local', '.env.inner.local', '.env.local', 'config/secret.env']);
    expect(readFileSync(join(entry.path, '.env'), 'utf8')).toBe('A=1\n');
    // Mode kept: an env file readable only by its owner stays so.
    expect(execFileSync('stat', ['-c', '%a', join(entry.path, '.env')], { encoding: 'utf8' }).trim()).toBe('600');
    expect(readFileSync(join(entry.path, '.env.inner.local'), 'utf8')).toBe('INNER=5\n');
    expect(readFileSync(join(entry.path, '.envrc'), 'utf8')).toBe('mine\n');
    expect(existsSync(join(entry.path, '.env.production'))).toBe(false);
    expect(existsSync(join(entry.path, '.env.link.local'))).toBe(false);
    expect(existsSync(join(entry.path, '.env.pipe.local'))).toBe(false);
    const why = Object.fromEntries(r.skipped.map((s) => [s.path, s.reason]));
    expect(why['.envrc']).toBe('already in the worktree');
    expect(why['.env.pipe.local']).toContain('a FIFO');
    expect(why['.env.link.local']).toContain('outside the repository');
    expect(why['README.md']).toContain('not ignored by git');
    expect(why['../escape']).toContain('must not leave the repository');
    expect(why['**/x']).toContain('not supported');
  });
});

describe('worktree.ports', () => {
  it('gives each worktree its own port from the range, keeps it, frees it with the worktree', async () => {
    const range = { start: 41000, end: 41002 };
    const paths: string[] = [];
    for (const slug of ['port-a', 'port-b', 'port-c', 'port-d']) paths.push((await manager.create(repo.path, slug)).entry.path);
    const ports = await Promise.all(paths.slice(0, 3).map((p) => assignPort(p, range)));
    expect(ports.sort()).toEqual([41000, 41001, 41002]);
    await expect(assignPort(paths[3]!, range)).rejects.toThrow(/All 3 ports of worktree.ports \(41000-41002\) are held/);
    const a = await assignPort(paths[0]!, range);
    expect(await assignPort(paths[0]!, range)).toBe(a);
    mkdirSync(join(paths[0]!, 'deep', 'er'), { recursive: true });
    expect(worktreePortOf(join(paths[0]!, 'deep', 'er'))).toBe(a);
    expect(worktreePortOf(repo.path)).toBeNull();
    await manager.remove(repo.path, 'port-a');
    expect(await assignPort(paths[3]!, range)).toBe(a);
  });
});

describe('worktree.setup', () => {
  it('runs the commands in terminals with PORT, stops at the first failure', async () => {
    const { entry } = await manager.create(repo.path, 'setup-run');
    const titles: string[] = [];
    const r = await prepareWorktree({
      root: repo.path,
      worktree: entry.path,
      config: { copy: ['.env'], ports: { start: 42000, end: 42010 }, setup: ['echo one > one.txt', 'echo "port=$PORT" > port.txt; test -f .env', 'exit 3', 'echo never > never.txt'] },
      runner: terminals,
      onSetupStart: (command, id) => titles.push(`${command}@${id}`),
    });
    expect(r.copy.copied).toEqual(['.env']);
    expect(r.port).toBe(42000);
    expect(r.setup?.ok).toBe(false);
    expect(r.setup?.steps.map((s) => s.exitCode)).toEqual([0, 0, 3]);
    expect(r.setup?.failed).toEqual({ command: 'exit 3', reason: 'exited with code 3', notRun: ['echo never > never.txt'] });
    expect(readFileSync(join(entry.path, 'port.txt'), 'utf8').trim()).toBe('port=42000');
    expect(existsSync(join(entry.path, 'never.txt'))).toBe(false);
    // Each step was a terminal the user could watch.
    const listed = terminals.list().filter((t) => t.title.startsWith('setup: '));
    expect(listed.map((t) => t.title)).toEqual(expect.arrayContaining(['setup: echo one > one.txt', 'setup: exit 3']));
    expect(titles).toHaveLength(3);
  }, 60_000);

  it('a terminal opened in the worktree gets its PORT', async () => {
    const { entry } = await manager.create(repo.path, 'setup-env');
    const port = await assignPort(entry.path, { start: 43000, end: 43000 });
    const r = await terminals.runCommand({ cwd: entry.path, command: 'echo "PORT is $PORT"', stdinClosed: true });
    expect(r.output).toContain(`PORT is ${port}`);
    const main = await terminals.runCommand({ cwd: repo.path, command: 'echo "PORT is [${PORT:-none}]"', stdinClosed: true });
    expect(main.output).toContain('PORT is [none]');
  }, 60_000);

  it('is cancellable: the running step ends, the rest does not run', async () => {
    const { entry } = await manager.create(repo.path, 'setup-cancel');
    const stop = new AbortController();
    const r = await runSetup({
      worktree: entry.path,
      commands: ['sleep 30', 'echo after > after.txt'],
      runner: terminals,
      signal: stop.signal,
      onStart: () => setTimeout(() => stop.abort(), 200),
    });
    expect(r.ok).toBe(false);
    expect(r.failed).toMatchObject({ command: 'sleep 30', reason: 'cancelled', notRun: ['echo after > after.txt'] });
    expect(r.steps[0]!.durationMs).toBeLessThan(20_000);
    expect(existsSync(join(entry.path, 'after.txt'))).toBe(false);
  }, 60_000);
});

describe('every new worktree is prepared from the project config', () => {
  it('create runs the hook with .flightdeck/config.yml; a broken config prepares nothing and says where', async () => {
    const prepared = new WorktreeManager({ settleMs: 20, prepare: (root, e) => prepareNewWorktree({ root, worktree: e.path, runner: terminals, trusted: async (config) => ({ config, skipped: [] }) }) });
    mkdirSync(join(repo.path, '.flightdeck'), { recursive: true });
    const config = join(repo.path, '.flightdeck', 'config.yml');
    writeFileSync(config, 'version: 1\nworktree:\n  setup:\n    - echo "ran on $PORT" > setup-ran.txt\n  copy: [".envrc"]\n  ports: { start: 44000, end: 44001 }\n');
    const r = await prepared.create(repo.path, 'hooked');
    expect(r.prepared).toMatchObject({ port: 44000, problem: null, copy: { copied: ['.envrc'] }, setup: { ok: true } });
    expect(readFileSync(join(r.entry.path, 'setup-ran.txt'), 'utf8').trim()).toBe('ran on 44000');

    const broken = 'version: 1\nworktree:\n  setupp: []\n';
    writeFileSync(config, broken);
    const b = await prepared.create(repo.path, 'hooked-broken');
    expect(existsSync(b.entry.path)).toBe(true);
    expect(b.prepared?.problem).toBe(`config error: ${config}:3: unknown key "worktree.setupp"`);
    expect(b.prepared?.copy.copied).toEqual([]);
    expect(readFileSync(config, 'utf8')).toBe(broken);

    // Without a config the defaults apply: the usual env files are copied.
    rmSync(join(repo.path, '.flightdeck'), { recursive: true });
    const d = await prepared.create(repo.path, 'hooked-default');
    expect(d.prepared?.copy.copied).toEqual(expect.arrayContaining(['.env', '.env.local', '.envrc']));
    expect(d.prepared?.port).toBeNull();
  }, 60_000);
});

describe('a setup handed to startSetup (the app: it runs after create returns)', () => {
  const config = { setup: ['npm ci'], copy: ['.envrc'], ports: { start: 45000, end: 45000 } };
  const setups = () =>
    new WorktreeSetupService({
      runner: { runCommand: async () => ({ terminalId: 't', exitCode: 0, signal: null, cancelled: false, timedOut: false, durationMs: 0, output: '', truncated: false }) },
      owner: () => ({}),
      commandsOf: async () => ({ commands: [], refused: null }),
    });

  it('is recorded while the copies and the port are made; its commands get PORT once both are done', async () => {
    const { entry } = await manager.create(repo.path, 'setup-early');
    const service = setups();
    const seen: { copiedAtStart?: boolean; stateAtStart?: string | undefined; env?: Record<string, string>; copiedAtEnv?: boolean } = {};
    const r = await prepareWorktree({
      root: repo.path,
      worktree: entry.path,
      config,
      startSetup: (commands, env) => {
        seen.copiedAtStart = existsSync(join(entry.path, '.envrc'));
        service.begin(repo.path, entry.path, commands, env);
        seen.stateAtStart = worktreeSetupStatus(entry.path)?.state;
        void env.then((e) => ((seen.env = e), (seen.copiedAtEnv = existsSync(join(entry.path, '.envrc')))));
      },
    });
    // Begun (and its pending state written) before the copy had landed; what it runs with comes after.
    expect(seen).toMatchObject({ copiedAtStart: false, stateAtStart: 'pending', env: { PORT: '45000' }, copiedAtEnv: true });
    expect(r).toMatchObject({ port: 45000, setupStarted: true, copy: { copied: ['.envrc'] } });
    expect(await service.wait(entry.path)).toMatchObject({ state: 'done' });
  });

  it('a port that cannot be given fails create as before, and the setup reads as failed, not as never begun', async () => {
    const { entry } = await manager.create(repo.path, 'setup-no-port');
    const service = setups();
    // The range's only port is held by the worktree above.
    await expect(prepareWorktree({ root: repo.path, worktree: entry.path, config, startSetup: (commands, env) => service.begin(repo.path, entry.path, commands, env) })).rejects.toThrow(/All 1 ports of worktree.ports/);
    expect(await service.wait(entry.path)).toMatchObject({ state: 'failed', failed: { command: 'npm ci', exitCode: null, reason: expect.stringMatching(/^it did not start: preparing the worktree failed \(All 1 ports/) } });
  });
});
