/**
 * `flightdeck … | head`: when the reader of stdout goes away, the CLI ends quietly (exit 0 or
 * 141, the code of a writer stopped by SIGPIPE) — no uncaught EPIPE, no stack trace. When its
 * terminal closes (SIGHUP), the running command stops cleanly instead of dying on the spot.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync } from 'node:fs';
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

/** Pids of live processes whose command line contains `needle` (from /proc; zombies left out). */
function running(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8').replace(/\0/g, ' ');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmd.includes(needle) && !cmd.includes('src-main/cli/main.ts') && !/\) [ZX] /.test(state)) found.push(Number(name));
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

function expectQuietEnd(r: { code: number | null; signal: string | null; stderr: string }): void {
  expect(r.signal).toBeNull();
  expect([0, 141]).toContain(r.code);
  expect(r.stderr).not.toMatch(/EPIPE|Unhandled 'error'|\n\s+at /);
}

describe('a closed stdout or terminal', () => {
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

  it.skipIf(process.platform !== 'linux')('a closed terminal (SIGHUP) stops `chat` cleanly: the turn is cancelled and its command ended', async () => {
    const d = tempDir('fd-cli-hup-');
    cleanups.push(d.cleanup);
    const work = join(d.path, 'work');
    mkdirSync(work);
    const marker = 'sleep 61.25';
    const env = { ...process.env, FLIGHTDECK_DATA_DIR: join(d.path, 'data') };
    // One process (node with tsx's loader), so the signal reaches the CLI as a terminal's would.
    const child = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli/main.ts', 'chat', '--cwd', work, '--mode', 'yolo', `!${marker}`], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const closed = new Promise<{ code: number | null; signal: string | null }>((r) => child.on('close', (code, signal) => r({ code, signal })));
    const deadline = Date.now() + 45_000;
    while (running(marker).length === 0) {
      if (Date.now() > deadline) throw new Error(`the command never started: ${out}${stderr}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    child.kill('SIGHUP');
    const end = await closed;
    // Node's default for SIGHUP is to die on the spot (signal SIGHUP, nothing cleaned up).
    expect(end.signal).toBeNull();
    expect(end.code).toBe(130);
    expect(out).toContain('cancelled');
    expect(stderr).not.toMatch(/\n\s+at /);
    const gone = Date.now() + 15_000;
    while (running(marker).length > 0 && Date.now() < gone) await new Promise((r) => setTimeout(r, 100));
    expect(running(marker)).toEqual([]);
  }, 90_000);

  it('ends a command whose first write finds the pipe already closed (--help)', async () => {
    const d = tempDir('fd-cli-epipe-');
    cleanups.push(d.cleanup);
    const r = await runAndCloseEarly(['--help'], 0, { FLIGHTDECK_DATA_DIR: join(d.path, 'data') });
    expectQuietEnd(r);
  }, 60_000);
});
