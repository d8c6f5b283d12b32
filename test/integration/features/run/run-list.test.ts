/**
 * The run list the board reads (and every change of the queue publishes): the latest run of each
 * feature from one bounded query, and the owners of other processes' runs looked up in /proc by
 * the owner sweep, not again on every list. Real SQLite, a real second process.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as identity from '../../../../src-main/platform/process-identity';
import { processStartTicks } from '../../../../src-main/platform/process-identity';
import { RunRepo } from '../../../../src-main/features/run/run-repo';
import { startTestApp } from '../../../support/app';

vi.mock('../../../../src-main/platform/process-identity', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../../../src-main/platform/process-identity')>();
  return { ...actual, ownerAlive: vi.fn(actual.ownerAlive) };
});
const aliveChecks = vi.mocked(identity.ownerAlive);

let t: Awaited<ReturnType<typeof startTestApp>>;
let child: ChildProcess | null = null;
beforeEach(async () => {
  t = await startTestApp();
});
afterEach(() => {
  child?.kill('SIGKILL');
  child = null;
  t.cleanup();
});

let n = 0;
function addRun(o: { project: string; slug: string; status: string; at: number; ownerPid?: number; ownerId?: string }): string {
  const id = `frun-test${String(n++).padStart(4, '0')}`;
  t.app.db
    .prepare(`INSERT INTO feature_runs (id, project_path, slug, executor, status, phase, message, owner_pid, owner_id, queued_at, started_at, ended_at) VALUES (?, ?, ?, 'builtin', ?, NULL, NULL, ?, ?, ?, ?, ?)`)
    .run(id, o.project, o.slug, o.status, o.ownerPid ?? null, o.ownerId ?? null, o.at, o.at, o.status === 'running' ? null : o.at + 10);
  return id;
}

describe('the latest run of each feature', () => {
  it('is one row per feature (a slug in two projects is two features), the most recently run first, at most `limit`', () => {
    const a1 = addRun({ project: '/p1', slug: 'a', status: 'failed', at: 100 });
    const a2 = addRun({ project: '/p1', slug: 'a', status: 'completed', at: 400 });
    const b1 = addRun({ project: '/p1', slug: 'b', status: 'interrupted', at: 300 });
    const otherA = addRun({ project: '/p2', slug: 'a', status: 'cancelled', at: 200 });
    const repo = new RunRepo(t.app.db);
    expect(repo.latestPerFeature(10).map((r) => [r.id, r.projectPath, r.slug, r.status])).toEqual([
      [a2, '/p1', 'a', 'completed'],
      [b1, '/p1', 'b', 'interrupted'],
      [otherA, '/p2', 'a', 'cancelled'],
    ]);
    expect(repo.latestPerFeature(2).map((r) => r.id)).toEqual([a2, b1]);
    expect(repo.latestPerFeature(10).map((r) => r.id)).not.toContain(a1);
  });
});

describe("another process's runs in the list", () => {
  it('are checked in /proc once until the next owner sweep, which sees the owner die', async () => {
    child = spawn('sleep', ['60'], { stdio: 'ignore' });
    const pid = child.pid!;
    const id = addRun({ project: '/p1', slug: 'held', status: 'running', at: Date.now(), ownerPid: pid, ownerId: `${pid}@${processStartTicks(pid)}` });
    const held = () => t.app.featureRuns.list().find((r) => r.id === id);

    aliveChecks.mockClear();
    expect(held()?.status).toBe('running');
    expect(held()?.status).toBe('running');
    expect(held()?.status).toBe('running');
    expect(aliveChecks.mock.calls.filter((c) => c[0] === pid)).toHaveLength(1);

    // The owner dies: the next sweep looks again, marks the run interrupted, and the list follows.
    const exited = new Promise<void>((r) => child!.once('exit', () => r()));
    child.kill('SIGKILL');
    await exited;
    t.app.featureRuns.sweepOwners();
    expect(held()).toMatchObject({ status: 'interrupted' });
    expect(held()?.message).toContain(`(pid ${pid}) ended`);
  });
});
