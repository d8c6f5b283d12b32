/**
 * `flightdeck chat --sandbox`: the session's sandbox from the command line. The `!` command's
 * write outside the folder is checked on disk from outside.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, rmSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('flightdeck chat --sandbox', () => {
  it('confines `!` commands by default, runs them unconfined with danger-full-access, and rejects unknown modes', async () => {
    const data = tempDir('fd-cli-sandbox-');
    const repo = makeRepo('fd-cli-sandbox-repo-');
    const outside = join(homedir(), `fd-cli-sandbox-${randomBytes(6).toString('hex')}`);
    cleanups.push(data.cleanup, repo.cleanup, () => rmSync(outside, { force: true }));

    const confined = await cli('chat', '--cwd', repo.path, '--mode', 'yolo', '--data-dir', data.path, `!touch ${outside}`);
    expect(confined.code).not.toBe(0);
    expect(confined.out).toContain('Read-only file system');
    expect(existsSync(outside)).toBe(false);

    const full = await cli('chat', '--cwd', repo.path, '--mode', 'yolo', '--sandbox', 'danger-full-access', '--data-dir', data.path, `!touch ${outside}`);
    expect(full.code).toBe(0);
    expect(existsSync(outside)).toBe(true);

    const bad = await cli('chat', '--cwd', repo.path, '--sandbox', 'none', '--data-dir', data.path, 'hi');
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('--sandbox takes read-only|workspace-write|danger-full-access');
  }, 60_000);
});
