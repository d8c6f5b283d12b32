import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileSecretStore } from '../../../src-main/agents/provider/secrets';
import { readProjectConfig, updateProjectConfig } from '../../../src-main/agents/orchestrator/project-config';
import { detectVerifyCommand } from '../../../src-main/agents/orchestrator/verify-detect';
import { loadConstraints } from '../../../src-main/coder/constraints';
import { NotRegularFileError, readFileNoWait, readFileNoWaitAsync } from '../../../src-main/platform/read-no-wait';
import { fifoValve, longestStall, makeFifo } from '../../support/fifo';
import { tempDir } from '../../support/temp';

/**
 * Issue 8 item 3, beyond the file tools: files the app reads by itself from a repository (the
 * project's config, package.json, Claude Code's constraint files) or its data folder (the key
 * file) may be FIFOs an agent planted. Each is refused at once, never waited on: a valve opens
 * the FIFO every few seconds, so waiting would show as a stall of the event loop.
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

/** Far below the valve's period (4 s). */
const MAX_STALL_MS = 2_500;

function dir(): string {
  const d = tempDir('fd-repo-fifo-');
  cleanups.push(() => d.cleanup());
  return d.path;
}

function fifo(path: string): void {
  makeFifo(path);
  const v = fifoValve(path);
  cleanups.push(() => v.stop());
}

describe('files the app reads by itself', () => {
  it('readFileNoWait refuses a FIFO and a socket (also through a symlink) and reads regular files', async () => {
    const d = dir();
    fifo(join(d, 'pipe'));
    const sock: Server = await new Promise((resolve) => {
      const s = createServer();
      s.listen(join(d, 'sock'), () => resolve(s));
    });
    cleanups.push(() => new Promise((r) => sock.close(() => r(null))));
    writeFileSync(join(d, 'plain'), 'text');
    const { stallMs } = await longestStall(async () => {
      expect(() => readFileNoWait(join(d, 'pipe'))).toThrow(NotRegularFileError);
      expect(() => readFileNoWait(join(d, 'sock'), 'utf8')).toThrow(`${join(d, 'sock')} is a socket, not a regular file`);
      await expect(readFileNoWaitAsync(join(d, 'pipe'), 'utf8')).rejects.toThrow(/is a FIFO \(named pipe\), not a regular file/);
    });
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(readFileNoWait(join(d, 'plain'), 'utf8')).toBe('text');
    expect(await readFileNoWaitAsync(join(d, 'plain'), 'utf8')).toBe('text');
    expect(() => readFileNoWait(join(d, 'missing'))).toThrow(expect.objectContaining({ code: 'ENOENT' }));
  });

  it('a FIFO as .flightdeck/config.yml is a problem of the config, not a frozen host; /model refuses to write it', async () => {
    const d = dir();
    mkdirSync(join(d, '.flightdeck'));
    fifo(join(d, '.flightdeck/config.yml'));
    const { value: loaded, stallMs } = await longestStall(async () => readProjectConfig(d));
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(JSON.stringify(loaded)).toMatch(/config\.yml is a FIFO \(named pipe\), not a regular file/);
    expect(() => updateProjectConfig(d, [[['agent', 'model'], 'x']])).toThrow(/is a FIFO/);
  });

  it('a FIFO as package.json does not stall the verify-command detection', async () => {
    const d = dir();
    fifo(join(d, 'package.json'));
    writeFileSync(join(d, 'package-lock.json'), '{}');
    const { value, stallMs } = await longestStall(async () => detectVerifyCommand(d));
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(value).toBeNull();
  });

  it("a FIFO as one of Claude Code's constraint files is refused at once, and named as left out", async () => {
    const d = dir();
    mkdirSync(join(d, 'ai/contracts'), { recursive: true });
    fifo(join(d, 'ai/contracts/current.md'));
    // Read before, the valve's moment of release let it through as an empty file.
    const { value: loaded, stallMs } = await longestStall(async () => loadConstraints(d));
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
    expect(loaded.files).toEqual([]);
    expect(loaded.refused).toEqual([{ path: 'ai/contracts/current.md', reason: expect.stringMatching(/current\.md is a FIFO/) }]);
  });

  it('a FIFO as the key file is reported as unreadable, not waited on', async () => {
    const d = dir();
    fifo(join(d, 'secrets.json'));
    const store = new FileSecretStore(join(d, 'secrets.json'));
    const { stallMs } = await longestStall(async () => {
      expect(store.problem()).toMatch(/secrets\.json cannot be read: it is a FIFO \(named pipe\), not a regular file/);
      expect(() => store.set('provider:a', 'k')).toThrow(/cannot be read/);
    });
    expect(stallMs).toBeLessThan(MAX_STALL_MS);
  });
});
