import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { callerDirectory } from '../../../src-main/cli/main';
import { makeRepo, tempDir } from '../../support/temp';

const ROOT = resolve(__dirname, '../../..');
const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).reverse().forEach((c) => c()));

/** `npm --prefix <flightdeck> run cli -- <args>` typed in `cwd`, as a user does from their repository. */
function npmRunCli(cwd: string, args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  // The test runner's own npm variables would otherwise reach the child npm and its script.
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('npm_') && k !== 'INIT_CWD'));
  return new Promise((done) => {
    const child = spawn('npm', ['--prefix', ROOT, 'run', '--silent', 'cli', '--', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('the CLI run through npm', () => {
  it('resolves --repo . against the folder the user typed it in, not Flightdeck’s own folder', async () => {
    const repo = makeRepo('fd-caller-');
    const data = tempDir('fd-caller-data-');
    cleanups.push(repo.cleanup, data.cleanup);
    const r = await npmRunCli(repo.path, ['worktree', 'list', '--repo', '.', '--data-dir', data.path]);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(`No worktrees in ${repo.path}.`);
  }, 120_000);

  it('moves only for its own npm scripts, and only when npm moved it', () => {
    expect(callerDirectory({ INIT_CWD: '/home/u/repo', npm_lifecycle_event: 'cli' }, '/opt/flightdeck')).toBe('/home/u/repo');
    expect(callerDirectory({ INIT_CWD: '/home/u/repo', npm_lifecycle_event: 'serve' }, '/opt/flightdeck')).toBe('/home/u/repo');
    // A test run's INIT_CWD says where `npm test` was typed, not where a spawned CLI works.
    expect(callerDirectory({ INIT_CWD: '/opt/flightdeck', npm_lifecycle_event: 'test:unit' }, '/tmp/x')).toBeNull();
    expect(callerDirectory({ INIT_CWD: '/opt/flightdeck', npm_lifecycle_event: 'cli' }, '/opt/flightdeck')).toBeNull();
    expect(callerDirectory({}, '/opt/flightdeck')).toBeNull();
  });
});
