/**
 * A gh call past its time limit stops gh and what gh started (the git it runs, its helpers):
 * gh runs in a process group of its own (platform/own-group.ts), as the app's gits do.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DefaultGhOps } from '../../../src-main/features/git-ops';
import { isAlive, waitFor } from '../../support/processes';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

describe('a gh call past its time limit', () => {
  it('is stopped with what gh started, and says so', async () => {
    const d = tempDir('fd-gh-stop-');
    cleanups.push(d.cleanup);
    const bin = join(d.path, 'bin');
    mkdirSync(bin);
    const helperFile = join(d.path, 'helper');
    // Like gh running git fetch, whose ssh hangs: a grandchild that ignores SIGTERM (inherited).
    writeFileSync(join(bin, 'gh'), `#!/bin/sh\ntrap '' TERM\nsh -c 'sleep 1000 & echo $! > "$0.tmp"; mv "$0.tmp" "$0"; wait' "${helperFile}" & wait\n`);
    chmodSync(join(bin, 'gh'), 0o755);
    const gh = new DefaultGhOps({ PATH: `${bin}:${process.env.PATH ?? ''}`, HOME: d.path }, 300);
    const call = gh.exec(['pr', 'view', '1'], d.path);
    await waitFor(() => existsSync(helperFile), 'gh started its helper', 10_000);
    const helper = Number(readFileSync(helperFile, 'utf8'));
    expect(helper).toBeGreaterThan(0);
    cleanups.push(() => {
      if (isAlive(helper)) process.kill(helper, 'SIGKILL');
    });
    const r = await call;
    expect(r).toMatchObject({ ok: false, reason: 'failed', message: expect.stringMatching(/^gh pr view did not finish within 300 ms and was stopped\.$/) });
    await waitFor(() => !isAlive(helper), 'the helper ended', 2_000);
  }, 30_000);
});
