/**
 * `flightdeck coder` when its terminal closes: SIGHUP ends the run like SIGTERM — the real
 * `claude` is stopped (not orphaned past its timeouts), the run's temporary folder with the
 * hook secret is removed — and a run folder left by a dead process is swept at the next start.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../../src-main/coder/process-group';
import { tempDir } from '../../support/temp';
import { CLAUDE_BIN, coderHarness, TEST_KEY, type CoderHarness } from './support';

const ROOT = resolve(__dirname, '../../..');

let h: CoderHarness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  cleanups.splice(0).forEach((c) => c());
  await h?.cleanup();
  h = undefined;
});

/** Pids of running processes whose command line contains `needle` (from /proc). */
function pidsWith(needle: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cmd = readFileSync(`/proc/${name}/cmdline`, 'utf8');
      const state = readFileSync(`/proc/${name}/stat`, 'utf8');
      if (cmd.includes(needle) && !/\) [ZX] /.test(state)) found.push(Number(name));
    } catch {
      // The process ended meanwhile.
    }
  }
  return found;
}

async function until<T>(what: string, probe: () => T | null | undefined | false, ms = 40_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = probe();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(process.platform !== 'linux')('flightdeck coder and signals', () => {
  it('SIGHUP stops the claude run, removes its temporary folder, and a dead run\'s folder is swept at start', async () => {
    // A model that never answers within the test: the run is live until something stops it.
    h = await coderHarness([{ fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'too late' }] }]);
    const tmp = tempDir('fd-coder-tmp-');
    cleanups.push(tmp.cleanup);
    // A folder a crashed run left: its owner pid is dead (a process that already exited).
    const deadPid = spawnSync('true').pid!;
    // Run folders are made in the runs folder; an earlier version made them at the top.
    const runs = join(tmp.path, `flightdeck-coder-runs-${process.getuid!()}`);
    const stale = join(runs, `flightdeck-coder-${deadPid}@12345-abcdef`);
    const staleAtTop = join(tmp.path, `flightdeck-coder-${deadPid}@12345-fedcba`);
    for (const d of [stale, staleAtTop]) {
      mkdirSync(d, { recursive: true, mode: 0o700 });
      writeFileSync(join(d, 'settings.json'), '{"secret":"left behind"}');
    }

    const env: NodeJS.ProcessEnv = { ...process.env, TMPDIR: tmp.path, HOME: h.home, ANTHROPIC_BASE_URL: h.server.url, ANTHROPIC_API_KEY: TEST_KEY, CLAUDE_CODE_MAX_RETRIES: '0' };
    for (const k of Object.keys(env)) if (k.startsWith('FLIGHTDECK_')) delete env[k];
    // One process (node with tsx's loader), so the signal reaches the CLI itself as a terminal's would.
    const cli = spawn(process.execPath, ['--import', 'tsx', 'src-main/cli/main.ts', 'coder', '--claude', CLAUDE_BIN], { cwd: ROOT, env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    cli.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    cli.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    const closed = new Promise<{ code: number | null; signal: string | null }>((r) => cli.on('close', (code, signal) => r({ code, signal })));
    cli.stdin.end(JSON.stringify({ PROMPT: 'take your time', cd: h.repo, timeout: 120, max_duration: 300 }));

    // The run is live: claude waits on the stalled model request.
    await until('the model request', () => h!.server.mainRequests().length > 0);
    const runDir = await until('the run folder', () => readdirSync(runs).find((n) => n.startsWith(`flightdeck-coder-${cli.pid}@`)));
    const claudePids = pidsWith(join(runs, runDir));
    expect(claudePids.length).toBeGreaterThan(0);
    // The start swept the dead run's folders, in the runs folder and at the top.
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(staleAtTop)).toBe(false);

    cli.kill('SIGHUP');
    const end = await closed;
    expect(end.signal).toBeNull();
    expect(end.code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ success: false, tool: 'coder', error_kind: 'cancelled' });
    expect(stderr).not.toMatch(/\n\s+at /);
    for (const pid of claudePids) expect(groupAlive(pid) || pidsWith(join(runs, runDir)).includes(pid)).toBe(false);
    // Its own folder went with it; the runs folder stays (every run's sandbox hides it whole).
    expect(readdirSync(runs)).toEqual([]);
    expect(readdirSync(tmp.path).filter((n) => n.startsWith('flightdeck-coder-'))).toEqual([`flightdeck-coder-runs-${process.getuid!()}`]);
  }, 90_000);
});
