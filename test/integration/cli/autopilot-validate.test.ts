/**
 * `flightdeck autopilot validate FILE`: exit 0 for a valid PLAN.md, 1 with one
 * "line N: what is wrong" per problem on stderr, 2 for a usage mistake. Run as a real process
 * once (the exit code a shell sees) and in process for the rest (fast).
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');
const FIXTURES = join(ROOT, 'test/fixtures/autopilot');
const VALID = join(FIXTURES, 'valid-seed-format.md');
const TWO_NEXT = join(FIXTURES, 'malformed/01-two-next-items.md');

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function processCli(...argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(TSX, ['src-main/cli/main.ts', ...argv], { cwd: ROOT }, (error, stdout, stderr) => {
      done({ code: error ? Number((error as { code?: number }).code) : 0, stdout, stderr });
    });
  });
}

describe('flightdeck autopilot validate', () => {
  it('exits 0, 1 and 2 as a process, problems on stderr as "line N: …"', async () => {
    const [ok, bad, usage] = await Promise.all([processCli('autopilot', 'validate', VALID), processCli('autopilot', 'validate', TWO_NEXT), processCli('autopilot', 'validate')]);
    expect(ok).toMatchObject({ code: 0, stderr: '' });
    expect(ok.stdout).toContain('valid — Next: STEP_ID=001, Backlog: 2, Done: 1, Blocked: 0');
    expect(bad.code).toBe(1);
    expect(bad.stderr.trim()).toBe(readFileSync(TWO_NEXT.replace(/\.md$/, '.expected'), 'utf8').trim());
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/^error: autopilot validate needs the PLAN.md file\nusage: flightdeck autopilot validate FILE/);
  }, 60_000);

  it('reports every problem of a plan, one line each, in line order', async () => {
    const r = await cli('autopilot', 'validate', join(FIXTURES, 'malformed/36-many-problems.md'));
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err.split('\n')).toEqual([
      'line 1: missing section "## Notes"',
      'line 9: Next is empty while Backlog has 2 step(s): move the first one (line 12) to Next',
      'line 16: duplicate STEP_ID=002 (first used at line 12)',
      'line 16: unchecked item in Done: mark it "- [x]" or move it back to Backlog',
    ]);
  });

  it('--json prints the problems and the steps as one JSON object', async () => {
    const bad = await cli('autopilot', 'validate', TWO_NEXT, '--json');
    expect(bad.code).toBe(1);
    const parsed = JSON.parse(bad.out) as { valid: boolean; problems: Array<{ line: number; message: string }>; steps: { next: { id: string } } };
    expect(parsed.valid).toBe(false);
    expect(parsed.problems).toEqual([{ line: 11, message: expect.stringMatching(/^Next holds more than one step/) }]);
    expect(parsed.steps.next.id).toBe('001');
    const ok = await cli('autopilot', 'validate', VALID, '--json');
    expect(ok.code).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ valid: true, problems: [], steps: { backlog: [{ id: '002' }, { id: '003' }] } });
  });

  it('validates a CRLF plan without final newline, and leaves the file untouched', async () => {
    const dir = tempDir('fd-autopilot-');
    cleanups.push(dir.cleanup);
    const file = join(dir.path, 'PLAN.md');
    const text = readFileSync(VALID, 'utf8').replace(/\n/g, '\r\n').replace(/\r\n$/, '');
    writeFileSync(file, text);
    expect((await cli('autopilot', 'validate', file)).code).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('says clearly when the file is missing, a folder or unreadable (exit 1), and rejects usage mistakes (exit 2)', async () => {
    const dir = tempDir('fd-autopilot-');
    cleanups.push(dir.cleanup);
    const missing = await cli('autopilot', 'validate', join(dir.path, 'nope.md'));
    expect(missing).toMatchObject({ code: 1, err: `error: ${join(dir.path, 'nope.md')}: no such file` });
    mkdirSync(join(dir.path, 'folder'));
    expect(await cli('autopilot', 'validate', join(dir.path, 'folder'))).toMatchObject({ code: 1, err: expect.stringContaining('is a folder') });
    if (process.getuid?.() !== 0) {
      const locked = join(dir.path, 'locked.md');
      copyFileSync(VALID, locked);
      chmodSync(locked, 0o000);
      expect(await cli('autopilot', 'validate', locked)).toMatchObject({ code: 1, err: expect.stringContaining('permission denied') });
    }
    expect((await cli('autopilot', 'validate', VALID, 'extra')).code).toBe(2);
    expect((await cli('autopilot', 'frobnicate')).code).toBe(2);
    expect((await cli('autopilot')).code).toBe(2);
    expect((await cli('autopilot', 'validate', VALID, '--colour')).code).toBe(2);
  });
});
