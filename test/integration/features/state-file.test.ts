import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src-main/features/config';
import { FeatureError } from '../../../src-main/features/errors';
import { newFeatureState, readState, updateState, writeState } from '../../../src-main/features/state';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'fd-state-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

const T0 = new Date('2026-02-10T10:30:00Z');
const T1 = new Date('2026-02-10T11:00:00Z');
const fresh = () =>
  newFeatureState({ slug: 'x', now: T0, worktreePath: '.trees/x', branch: 'feature/x', baseBranch: 'main', devPhases: ['a', 'b'] });

async function rejection(p: Promise<unknown>): Promise<FeatureError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(FeatureError);
  return e as FeatureError;
}

describe('state.yml on disk', () => {
  it('writes atomically into a new folder, owner-only, without leftovers, and reads back', async () => {
    const p = join(dir, '.flightdeck', 'x', 'state.yml');
    writeState(p, fresh());
    expect(statSync(p).mode & 0o777).toBe(0o600);
    expect(readdirSync(join(dir, '.flightdeck', 'x'))).toEqual(['state.yml']);
    expect(await readState(p)).toEqual(fresh());
  });

  it('updateState changes a phase, stamps updated_at and recomputes the totals', async () => {
    const p = join(dir, 'state.yml');
    writeState(p, fresh());
    const next = await updateState(p, T1, (s) => ({
      ...s,
      status: 'in_progress',
      current_phase: 1,
      phases: s.phases.map((ph, i) => (i === 0 ? { ...ph, status: 'completed', turns: 4, cost_usd: 0.5, duration_secs: 60, cost: { input_tokens: 10, output_tokens: 3 } } : ph)),
    }));
    const onDisk = await readState(p);
    expect(onDisk).toEqual(next);
    expect(onDisk.feature.updated_at).toBe(T1.toISOString());
    expect(onDisk.feature.created_at).toBe(T0.toISOString());
    expect(onDisk.total).toEqual({ turns: 4, cost_usd: 0.5, duration_secs: 60, cost: { input_tokens: 10, output_tokens: 3 } });
  });

  it('updateState never overwrites a malformed file', async () => {
    const p = join(dir, 'state.yml');
    writeState(p, fresh());
    writeFileSync(p, readFileSync(p, 'utf8').replace('status: planned', 'status: weird'));
    const before = readFileSync(p);
    const line = before.toString('utf8').split('\n').indexOf('status: weird') + 1;
    expect(line).toBeGreaterThan(1);
    const e = await rejection(updateState(p, T1, (s) => s));
    expect(e.line).toBe(line);
    expect(e.message).toContain(`state.yml:${line}: status: `);
    expect(readFileSync(p).equals(before)).toBe(true);
  });

  it('a missing state file is a state error naming the path', async () => {
    const e = await rejection(readState(join(dir, 'none.yml')));
    expect(e.kind).toBe('state');
    expect(e.path).toBe(join(dir, 'none.yml'));
  });

  it('refuses to read a FIFO in place of config.yml or state.yml (no hang)', async () => {
    mkdirSync(join(dir, '.flightdeck'));
    execFileSync('mkfifo', [join(dir, '.flightdeck', 'config.yml')]);
    execFileSync('mkfifo', [join(dir, 'state.yml')]);
    const c = await rejection(loadConfig(dir));
    expect(c.kind).toBe('io');
    expect(c.message).toContain('not a regular file');
    const s = await rejection(readState(join(dir, 'state.yml')));
    expect(s.kind).toBe('io');
  });

  it('a missing config.yml says the project is not initialized', async () => {
    const e = await rejection(loadConfig(dir));
    expect(e.kind).toBe('config');
    expect(e.message).toContain('initialize the project first');
  });
});
