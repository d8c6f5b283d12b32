import { spawnSync } from 'node:child_process';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, cleanExec, ConcurrencyLimiter, gitEnv, resolveOnPath } from '../../../src-main/platform/child-process';
import { tempDir } from '../../support/temp';

const base = {
  PATH: '/usr/bin:/bin',
  HOME: '/home/u',
  LANG: 'en_US.UTF-8',
  LC_TIME: 'de_DE.UTF-8',
  FLIGHTDECK_TOKEN: 'browser-token',
  FLIGHTDECK_DATA_DIR: '/data',
  ELECTRON_RUN_AS_NODE: '1',
  ANTHROPIC_API_KEY: 'sk-ant-x',
  DEEPSEEK_API_KEY: 'sk-ds',
  CLAUDE_CODE_OAUTH_TOKEN: 'oauth',
  JAVA_HOME: '/opt/java',
};

describe('childEnv: one builder for every child environment', () => {
  it('minimal: only the allow-list (the app’s own helpers: git, the pty host)', () => {
    expect(childEnv('minimal', base)).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/u', LANG: 'en_US.UTF-8', LC_TIME: 'de_DE.UTF-8' });
  });

  it('user: a shell the user opened keeps their environment, minus Flightdeck’s private variables', () => {
    const env = childEnv('user', base);
    expect(Object.keys(env).filter((k) => k.startsWith('FLIGHTDECK_') || k.startsWith('ELECTRON_'))).toEqual([]);
    expect(env.ANTHROPIC_API_KEY).toBe('sk-ant-x');
    expect(env.JAVA_HOME).toBe('/opt/java');
  });

  it('command: also without model credentials', () => {
    const env = childEnv('command', base);
    expect(env).toEqual({ PATH: '/usr/bin:/bin', HOME: '/home/u', LANG: 'en_US.UTF-8', LC_TIME: 'de_DE.UTF-8', JAVA_HOME: '/opt/java' });
  });

  it('git: the allow-list with prompts off and English messages', () => {
    const env = gitEnv(base);
    expect(env.GIT_TERMINAL_PROMPT).toBe('0');
    expect(env.LC_ALL).toBe('C');
    expect(Object.values(env).join(' ')).not.toMatch(/browser-token|sk-|oauth/);
  });
});

/** The descriptors of the program, minus the handle `ls` itself holds on /proc/<pid>/fd while listing it. */
function listedFds(out: string): number[] {
  return out
    .split('\n')
    .map((l) => /\s(\d+) -> (.*)$/.exec(l))
    .filter((m): m is RegExpExecArray => m !== null && !/^\/proc\/\d+\/fd$/.test(m[2]!))
    .map((m) => Number(m[1]))
    .sort((a, b) => a - b);
}

describe.runIf(process.platform === 'linux')('cleanExec: a child starts with its stdio only', () => {
  // Extra pipes at 3 and 4 stand for descriptors the app holds without close-on-exec (a pty
  // master from forkpty, something inherited from the launcher): spawn passes them on as is.
  const stdio = ['ignore', 'pipe', 'pipe', 'pipe', 'pipe'] as const;

  it('without it the extra descriptors reach the program (the control)', () => {
    const r = spawnSync('ls', ['-l', '/proc/self/fd'], { stdio: [...stdio], encoding: 'utf8' });
    // (Anything the test runner itself inherited without close-on-exec shows up here too.)
    expect(listedFds(String(r.stdout))).toEqual(expect.arrayContaining([0, 1, 2, 3, 4]));
  });

  it('with it only 0, 1 and 2 remain, the pid is the program’s own and arguments pass unchanged', () => {
    const c = cleanExec('ls', ['-l', '/proc/self/fd']);
    const r = spawnSync(c.file, c.args, { stdio: [...stdio], encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(listedFds(String(r.stdout))).toEqual([0, 1, 2]);

    const echo = cleanExec('/bin/sh', ['-c', 'echo "$$|$1|$2"', 'sh', 'a b', '$HOME;`x`']);
    const e = spawnSync(echo.file, echo.args, { stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
    const [pid, a, b] = String(e.stdout).trim().split('|');
    expect(Number(pid)).toBe(e.pid);
    expect([a, b]).toEqual(['a b', '$HOME;`x`']);
  });

  it('keeps the descriptors it is told to keep (the pty host’s IPC channel)', () => {
    const c = cleanExec('ls', ['-l', '/proc/self/fd'], [3]);
    const r = spawnSync(c.file, c.args, { stdio: [...stdio], encoding: 'utf8' });
    expect(listedFds(String(r.stdout))).toEqual([0, 1, 2, 3]);
  });

  it('passes the environment on unchanged and reads no startup file', () => {
    const dir = tempDir('fd-cleanexec-');
    const rc = join(dir.path, 'rc');
    writeFileSync(rc, 'export SOURCED=yes\n');
    const env = { PATH: process.env.PATH!, HOME: dir.path, BASH_ENV: rc, ENV: rc, ODD: 'a\nb' };
    writeFileSync(join(dir.path, '.bashrc'), 'export SOURCED=bashrc\n');
    const c = cleanExec('env', ['-0']);
    // stdin as a socket pair makes bash read ~/.bashrc unless told not to.
    const r = spawnSync(c.file, c.args, { stdio: ['pipe', 'pipe', 'pipe'], env, encoding: 'utf8' });
    const got = Object.fromEntries(
      String(r.stdout)
        .split('\0')
        .filter(Boolean)
        .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
    );
    expect(got.SOURCED).toBeUndefined();
    expect(got.ODD).toBe('a\nb');
    expect(got.BASH_ENV).toBe(rc);
    dir.cleanup();
  });

  it('a missing program ends with 127', () => {
    const c = cleanExec('no-such-program-flightdeck', []);
    expect(spawnSync(c.file, c.args, { stdio: 'ignore' }).status).toBe(127);
  });
});

describe('resolveOnPath', () => {
  it('finds executables on PATH only', () => {
    const dir = tempDir('fd-path-');
    writeFileSync(join(dir.path, 'tool'), '#!/bin/sh\n');
    writeFileSync(join(dir.path, 'plain'), 'not executable');
    chmodSync(join(dir.path, 'tool'), 0o755);
    expect(resolveOnPath('tool', `/nonexistent:${dir.path}`)).toBe(join(dir.path, 'tool'));
    expect(resolveOnPath('plain', dir.path)).toBeNull();
    expect(resolveOnPath('tool', '')).toBeNull();
    dir.cleanup();
  });
});

describe('ConcurrencyLimiter', () => {
  function deferred() {
    let resolve!: () => void;
    const promise = new Promise<void>((r) => (resolve = r));
    return { promise, resolve };
  }

  it('never runs more than the global and the per-key bound, and runs everything queued', async () => {
    const l = new ConcurrencyLimiter({ global: 3, perKey: 2, maxQueued: 1000, what: 'tasks' });
    let running = 0;
    let peak = 0;
    const perKey = new Map<string, number>();
    let peakPerKey = 0;
    const tasks = Array.from({ length: 60 }, (_, i) => {
      const key = `repo${i % 4}`;
      return l.run(key, async () => {
        running++;
        perKey.set(key, (perKey.get(key) ?? 0) + 1);
        peak = Math.max(peak, running);
        peakPerKey = Math.max(peakPerKey, perKey.get(key)!);
        await new Promise((r) => setTimeout(r, 1 + (i % 3)));
        running--;
        perKey.set(key, perKey.get(key)! - 1);
        return i;
      });
    });
    expect(await Promise.all(tasks)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    expect(peak).toBe(3);
    expect(peakPerKey).toBeLessThanOrEqual(2);
    expect(l.stats()).toEqual({ running: 0, queued: 0, peakRunning: 3 });
  });

  it('starts one key’s waiters in arrival order and does not let one key starve another', async () => {
    const l = new ConcurrencyLimiter({ global: 2, perKey: 2, maxQueued: 100, what: 'tasks' });
    const gate = deferred();
    const order: string[] = [];
    const run = (key: string, name: string) => l.run(key, async () => {
      order.push(name);
      await gate.promise;
    });
    const all = [run('a', 'a1'), run('a', 'a2'), run('a', 'a3'), run('a', 'a4'), run('b', 'b1')];
    gate.resolve();
    await Promise.all(all);
    expect(order.slice(0, 2)).toEqual(['a1', 'a2']);
    // b1 waited behind a3 (it came later) but before a4 (round-robin across keys).
    expect(order.indexOf('b1')).toBeLessThan(order.indexOf('a4'));
    expect(order.indexOf('a3')).toBeLessThan(order.indexOf('a4'));
  });

  it('refuses at once when the queue is full, and a failing task frees its slot', async () => {
    const l = new ConcurrencyLimiter({ global: 1, perKey: 1, maxQueued: 2, what: 'git commands' });
    const gate = deferred();
    const first = l.run('k', () => gate.promise);
    const queued = [l.run('k', () => Promise.reject(new Error('boom'))), l.run('k', async () => 'ok')];
    await expect(l.run('k', async () => 'never')).rejects.toMatchObject({ code: 'unavailable', message: expect.stringMatching(/Too many git commands/) });
    gate.resolve();
    await first;
    await expect(queued[0]).rejects.toThrow('boom');
    expect(await queued[1]).toBe('ok');
  });

  it('bounds the waiters of one key without refusing other keys', async () => {
    const l = new ConcurrencyLimiter({ global: 1, perKey: 1, maxQueued: 10, maxQueuedPerKey: 1, what: 'tasks' });
    const gate = deferred();
    const first = l.run('a', () => gate.promise);
    const a2 = l.run('a', async () => 'a2');
    await expect(l.run('a', async () => 'a3')).rejects.toMatchObject({ code: 'unavailable' });
    const b = l.run('b', async () => 'b');
    gate.resolve();
    await first;
    expect(await Promise.all([a2, b])).toEqual(['a2', 'b']);
  });

  it('drops a waiter whose signal aborts, without running it', async () => {
    const l = new ConcurrencyLimiter({ global: 1, perKey: 1, maxQueued: 10, what: 'tasks' });
    const gate = deferred();
    const first = l.run('k', () => gate.promise);
    const ac = new AbortController();
    let ran = false;
    const waiting = l.run('k', async () => void (ran = true), ac.signal);
    expect(l.stats().queued).toBe(1);
    ac.abort(new Error('cancelled'));
    await expect(waiting).rejects.toThrow('cancelled');
    expect(l.stats().queued).toBe(0);
    gate.resolve();
    await first;
    expect(ran).toBe(false);
  });
});
