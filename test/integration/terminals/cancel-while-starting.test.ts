import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';

/**
 * A cancel that arrives while a command's terminal is still starting (the pty host's first
 * spawn takes a moment) used to be lost: the abort listener was added only after the spawn, so
 * a cancelled `!sleep 60` ran its full minute (found with issue 8 item 10's test).
 */
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('runCommand cancelled while its terminal starts', () => {
  it('ends the command instead of letting it run to its end', async () => {
    const t = await startTestApp();
    const dir = tempDir('fd-cancel-start-');
    cleanups.push(async () => {
      await t.app.terminals.shutdown();
      t.cleanup();
      dir.cleanup();
    });
    const ac = new AbortController();
    const running = t.app.terminals.runCommand({ cwd: dir.path, command: 'sleep 60', signal: ac.signal });
    // Synchronously after the call: runCommand is now awaiting the terminal's spawn.
    ac.abort();
    const r = await running;
    expect(r).toMatchObject({ cancelled: true, timedOut: false, exitCode: null });
  }, 30_000);
});
