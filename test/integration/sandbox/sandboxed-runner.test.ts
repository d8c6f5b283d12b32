/**
 * SandboxedRunner in front of the plain child-process runner (the CLI's and tests' runner):
 * confinement holds whatever runner is plugged in, and a sandbox that cannot start refuses
 * the command instead of running it unconfined.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ChildProcessRunner, commandEnv } from '../../../src-main/agents/tools/command-runner';
import { DEFAULT_NETWORK, type SandboxPolicy } from '../../../src-main/sandbox/policy';
import { SandboxedRunner } from '../../../src-main/sandbox/sandboxed-runner';
import { resetSandboxProbes, SandboxUnavailableError } from '../../../src-main/sandbox/sandbox-runtime';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
  resetSandboxProbes();
});

function setup(): { root: string; outside: string } {
  const dir = tempDir('fd-sandbox-runner-');
  cleanups.push(() => dir.cleanup());
  const root = realpathSync(dir.path);
  mkdirSync(join(root, '.git'));
  const outside = join(homedir(), `fd-sandbox-runner-${randomBytes(6).toString('hex')}`);
  cleanups.push(() => rmSync(outside, { force: true }));
  return { root, outside };
}

function run(runner: SandboxedRunner, cwd: string, command: string, sandbox?: SandboxPolicy) {
  // HOME is the test folder: the runner's login shell reads no developer profile (which may be slow or hang).
  return runner.run({ cwd, command, env: commandEnv({ ...process.env, HOME: cwd }), timeoutMs: 30_000, signal: new AbortController().signal, ...(sandbox ? { sandbox } : {}) });
}

describe('SandboxedRunner', () => {
  it('confines the child-process runner: writes inside the root only, .git read-only', async () => {
    const { root, outside } = setup();
    const runner = new SandboxedRunner(() => new ChildProcessRunner());
    const policy: SandboxPolicy = { mode: 'workspace-write', root, network: DEFAULT_NETWORK };
    const r = await run(runner, root, `touch ${outside}; echo out=$?; touch .git/config; echo git=$?; touch ok.txt && echo in=$?`, policy);
    expect(r.output).toContain('out=1');
    expect(r.output).toContain('git=1');
    expect(r.output).toContain('in=0');
    expect(existsSync(outside)).toBe(false);
    expect(existsSync(join(root, '.git/config'))).toBe(false);
    expect(existsSync(join(root, 'ok.txt'))).toBe(true);
  });

  it("hides Flightdeck's data folder and its key file from commands, whatever the session", async () => {
    const { root } = setup();
    const data = join(homedir(), `fd-sandbox-data-${randomBytes(6).toString('hex')}`);
    mkdirSync(data);
    writeFileSync(join(data, 'secrets.json'), '{"key":"sk-stored-in-data-dir"}');
    cleanups.push(() => rmSync(data, { recursive: true, force: true }));
    const runner = new SandboxedRunner(() => new ChildProcessRunner(), {}, [
      { path: data, kind: 'dir' },
      { path: join(data, 'secrets.json'), kind: 'file' },
      { path: join(data, 'not-there'), kind: 'file' },
    ]);
    writeFileSync(join(data, 'flightdeck.db'), 'sessions');
    const r = await run(runner, root, `cat ${data}/secrets.json; echo cat=$?; ls -A ${data}`, { mode: 'workspace-write', root, network: DEFAULT_NETWORK });
    expect(r.output).not.toContain('sk-stored-in-data-dir');
    expect(r.output).toContain('cat=1');
    // An empty folder, but for the unreadable stand-in of the key file.
    expect(r.output).not.toContain('flightdeck.db');
    expect(r.output.trim().split('\n').at(-1)).toBe('secrets.json');
  });

  it('a command without a policy gets the default sandbox in its cwd, not full access', async () => {
    const { root, outside } = setup();
    const r = await run(new SandboxedRunner(() => new ChildProcessRunner()), root, `touch ${outside}`);
    expect(r.exitCode).toBe(1);
    expect(existsSync(outside)).toBe(false);
  });

  it('refuses when bubblewrap cannot start, and says why; full access still runs', async () => {
    const { root, outside } = setup();
    let ran = 0;
    const inner = new ChildProcessRunner();
    const runner = new SandboxedRunner(() => ({ run: (o) => (ran++, inner.run(o)) }), { bwrap: join(root, 'no-such-bwrap') });
    const err = await run(runner, root, `touch ${outside}`, { mode: 'workspace-write', root, network: DEFAULT_NETWORK }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(SandboxUnavailableError);
    expect((err as Error).message).toMatch(/bubblewrap sandbox could not start \(.*no-such-bwrap is not installed\)/);
    expect((err as Error).message).toContain('refused rather than run unconfined');
    expect(ran).toBe(0);
    expect(existsSync(outside)).toBe(false);
    const full = await run(runner, root, `touch ${outside}`, { mode: 'danger-full-access', root, network: DEFAULT_NETWORK });
    expect(full.exitCode).toBe(0);
    expect(existsSync(outside)).toBe(true);
  });
});
