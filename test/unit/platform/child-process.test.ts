import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childEnv, cleanExec, gitEnv, resolveOnPath } from '../../../src-main/platform/child-process';
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

  it('passes over what is not an executable file: a folder of that name, a PATH entry that is a file, a dangling link', () => {
    const dir = tempDir('fd-path-kinds-');
    const [a, b, c] = ['a', 'b', 'c'].map((d) => join(dir.path, d)) as [string, string, string];
    for (const d of [a, b, c]) mkdirSync(d);
    mkdirSync(join(a, 'tool'));
    writeFileSync(join(dir.path, 'file-entry'), '');
    symlinkSync(join(dir.path, 'nowhere'), join(b, 'tool'));
    writeFileSync(join(c, 'real'), '#!/bin/sh\n');
    chmodSync(join(c, 'real'), 0o755);
    symlinkSync(join(c, 'real'), join(c, 'tool'));
    expect(resolveOnPath('tool', [a, join(dir.path, 'file-entry'), b, c].join(':'))).toBe(join(c, 'tool'));
    expect(resolveOnPath('tool', [a, b].join(':'))).toBeNull();
    dir.cleanup();
  });
});
