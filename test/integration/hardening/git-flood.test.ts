/**
 * Attack: 10,000 `projects.validatePath` requests at once. Each ran its own git, so thousands
 * ran together and the host stopped answering /healthz. Git now runs through a bounded queue
 * (a few at once globally and per repository; a full queue — a few hundred per repository —
 * refuses at once), so the host
 * stays responsive and the number of gits never grows with the flood.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';
import { makeRepo, tempDir } from '../../support/temp';
import { healthz, processes, startHostProcess, type HostProcess } from './support';

/** The bound in src-main/git/git.ts (GIT_MAX_CONCURRENT). */
const GIT_MAX_CONCURRENT = 8;
const REQUESTS = 10_000;
/**
 * Spread over this many connections so each stays under the bridge's own per-connection limit
 * on requests in flight (256, src-main/bridge/limits.ts): the attacker opens many sockets, and
 * every request reaches the project service.
 */
const CONNECTIONS = 40;

let host: HostProcess | undefined;
const dirs: Array<{ cleanup(): void }> = [];
afterAll(async () => {
  stopWsClients();
  await host?.stop();
  for (const d of dirs) d.cleanup();
});

describe.runIf(process.platform === 'linux')('a flood of path validations', () => {
  it('never runs more than the bound of gits at once, keeps /healthz answering, and still answers afterwards', { timeout: 180_000 }, async () => {
    const data = tempDir('fd-flood-data-');
    const home = tempDir('fd-flood-home-');
    const repos = [makeRepo('fd-flood-a-'), makeRepo('fd-flood-b-')];
    dirs.push(data, home, ...repos);
    host = await startHostProcess({ dataDir: data.path, env: { HOME: home.path } });
    const clients = Array.from({ length: CONNECTIONS }, () => connectWsClient(host!.port, host!.token));
    const client = clients[0]!;
    const hostPid = host.pid;

    // Every child of the host that is not the pty host: the gits (and their exec prelude).
    let peak = 0;
    let samples = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        const n = processes().filter((p) => p.ppid === hostPid && p.state !== 'Z' && (p.comm === 'git' || p.comm === 'bash')).length;
        peak = Math.max(peak, n);
        samples++;
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const health: Array<number | string> = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        health.push(await healthz(host!.origin, 20_000).catch((e: Error) => e.message));
        await new Promise((r) => setTimeout(r, 100));
      }
    })();

    const results = await Promise.allSettled(
      Array.from({ length: REQUESTS }, (_, i) => clients[i % CONNECTIONS]!.invoke('projects.validatePath', { path: repos[i % repos.length]!.path })),
    );
    sampling = false;
    polling = false;
    await Promise.all([sampler, poller]);

    const answered = results.filter((r) => r.status === 'fulfilled').map((r) => (r as PromiseFulfilledResult<{ ok: boolean; message: string | null }>).value);
    const ok = answered.filter((v) => v.ok).length;
    const busy = answered.filter((v) => !v.ok && /Too many git commands/.test(v.message ?? '')).length;
    // Every request got an answer: a real validation or "too many waiting" (or the bridge's own
    // per-connection limit, from src-main/bridge, which refuses before any git starts).
    const refused = results.filter((r) => r.status === 'rejected');
    for (const r of refused) expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 'limit_exceeded' });
    expect(ok + busy + refused.length).toBe(REQUESTS);
    expect(ok).toBeGreaterThan(0);
    // The queue's bound was reached (the flood was really felt by git's queue) and refused the rest.
    expect(busy).toBeGreaterThan(0);

    expect(samples).toBeGreaterThan(10);
    expect(peak).toBeGreaterThan(0);
    expect(peak).toBeLessThanOrEqual(GIT_MAX_CONCURRENT);
    expect(health.length).toBeGreaterThan(0);
    expect(health.every((h) => h === 200)).toBe(true);

    // The queue drained: a new request is answered normally.
    expect(await client.invoke('projects.validatePath', { path: repos[0]!.path })).toMatchObject({ ok: true, root: repos[0]!.path });
  });
});
