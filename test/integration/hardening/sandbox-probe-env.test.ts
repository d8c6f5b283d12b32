/**
 * The sandbox's start-up probe (bubblewrap around `true`, once per kind) was the one child that
 * got the host's whole environment and descriptors: the browser token and model keys went to
 * whatever `bwrap` was first on PATH. It now starts like every child (allow-listed environment,
 * descriptor-closing prelude). A stand-in bwrap records what it was given.
 */
import { chmodSync, mkdirSync, openSync, closeSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChildProcessRunner } from '../../../src-main/agents/tools/command-runner';
import { DEFAULT_NETWORK } from '../../../src-main/sandbox/policy';
import { SandboxedRunner } from '../../../src-main/sandbox/sandboxed-runner';
import { tempDir } from '../../support/temp';

const dir = tempDir('fd-probe-env-');
afterAll(() => dir.cleanup());

describe.runIf(process.platform === 'linux')('the sandbox probe', () => {
  it('gets no browser token, no model key and no descriptor of the host', async () => {
    const fake = join(dir.path, 'bwrap');
    const hiddenDir = join(dir.path, 'hidden-data');
    mkdirSync(hiddenDir);
    // Records its environment and descriptors per call, then succeeds (the probe) or does nothing.
    writeFileSync(fake, `#!/bin/sh\nenv > "${dir.path}/env.$$"\necho "$@" > "${dir.path}/args.$$"\nls -l /proc/$$/fd/ > "${dir.path}/fds.$$"\nexit 0\n`);
    chmodSync(fake, 0o755);
    const saved = { token: process.env.FLIGHTDECK_TOKEN, key: process.env.ANTHROPIC_API_KEY };
    process.env.FLIGHTDECK_TOKEN = 'probe-token-0123456789';
    process.env.ANTHROPIC_API_KEY = 'sk-ant-probe-0123456789';
    // A descriptor the host holds open (a database, a socket): not close-on-exec, like node-pty's masters.
    const held = openSync(join(dir.path, 'held.db'), 'w');
    try {
      const runner = new SandboxedRunner(() => new ChildProcessRunner(), { bwrap: fake }, [{ path: hiddenDir, kind: 'dir' }]);
      await runner.run({ cwd: dir.path, command: 'true', env: { PATH: process.env.PATH ?? '' }, timeoutMs: 30_000, signal: new AbortController().signal, sandbox: { mode: 'workspace-write', root: dir.path, network: DEFAULT_NETWORK } });
    } finally {
      closeSync(held);
      process.env.FLIGHTDECK_TOKEN = saved.token;
      process.env.ANTHROPIC_API_KEY = saved.key;
      if (saved.token === undefined) delete process.env.FLIGHTDECK_TOKEN;
      if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
    }
    // The probe (the call that runs `true`) mounts nothing over hidden paths: those come and go
    // (a Claude Code run's folder), and a probe failed by one would refuse every command.
    const args = readdirSync(dir.path).filter((f) => f.startsWith('args.')).map((f) => readFileSync(join(dir.path, f), 'utf8'));
    expect(args.filter((a) => / true\n$/.test(a) && !a.includes(hiddenDir))).toHaveLength(1);
    expect(args.filter((a) => a.includes(hiddenDir))).toHaveLength(1);
    const envs = readdirSync(dir.path).filter((f) => f.startsWith('env.'));
    // The probe and the command itself.
    expect(envs.length).toBe(2);
    for (const f of envs) {
      const env = readFileSync(join(dir.path, f), 'utf8');
      expect(env).not.toContain('probe-token-0123456789');
      expect(env).not.toContain('sk-ant-probe-0123456789');
    }
    for (const f of readdirSync(dir.path).filter((x) => x.startsWith('fds.'))) {
      // The shell's own (its script, its redirections) may be there; the host's held file may not.
      const listing = readFileSync(join(dir.path, f), 'utf8');
      expect(listing).toMatch(/ 1 -> /);
      expect(listing).not.toContain('held.db');
    }
  });
});
