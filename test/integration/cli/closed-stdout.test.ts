/**
 * `flightdeck … | head`: when the reader of stdout goes away, the CLI ends quietly (exit 0 or
 * 141, the code of a writer stopped by SIGPIPE) — no uncaught EPIPE, no stack trace.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/**
 * Runs the CLI as a process and closes the read end of its stdout once `closeAfter` bytes
 * arrived (0: before anything is read). Resolves with the exit code, stderr and what was read.
 */
function runAndCloseEarly(args: string[], closeAfter: number, env: NodeJS.ProcessEnv): Promise<{ code: number | null; signal: string | null; stderr: string; read: string }> {
  return new Promise((done) => {
    const child = spawn(TSX, ['src-main/cli/main.ts', ...args], { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let read = '';
    let stderr = '';
    if (closeAfter === 0) child.stdout.destroy();
    else
      child.stdout.setEncoding('utf8').on('data', (c: string) => {
        read += c;
        if (read.length >= closeAfter) child.stdout.destroy();
      });
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code, signal) => done({ code, signal, stderr, read }));
  });
}

function expectQuietEnd(r: { code: number | null; signal: string | null; stderr: string }): void {
  expect(r.signal).toBeNull();
  expect([0, 141]).toContain(r.code);
  expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error'|\n\s+at /);
}

describe('a closed stdout', () => {
  it('ends `chat` with a large output quietly, with exit 0 or 141', async () => {
    const d = tempDir('fd-cli-epipe-');
    cleanups.push(d.cleanup);
    const work = join(d.path, 'work');
    mkdirSync(work);
    const r = await runAndCloseEarly(['chat', '--cwd', work, '--approve', 'allow', '!seq 1 200000'], 200, { FLIGHTDECK_DATA_DIR: join(d.path, 'data') });
    // The transcript started (so the pipe really closed mid-output), and was cut.
    expect(r.read).toContain('bang !seq 1 200000');
    expect(r.read).not.toContain('199999');
    expectQuietEnd(r);
  }, 60_000);

  it('ends a command whose first write finds the pipe already closed (--help)', async () => {
    const d = tempDir('fd-cli-epipe-');
    cleanups.push(d.cleanup);
    const r = await runAndCloseEarly(['--help'], 0, { FLIGHTDECK_DATA_DIR: join(d.path, 'data') });
    expectQuietEnd(r);
  }, 60_000);
});
