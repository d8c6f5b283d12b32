/**
 * The containers channels through the real router (validation included) against the real
 * engine: engines, placement, stats, logs, redacted inspect, the image build with progress
 * events, and malformed input refused before any handler runs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../src-main/app/services';
import { ensureTestImage } from '../../support/container-image';
import { startTestApp } from '../../support/app';
import { waitFor } from '../../support/processes';
import { makeRepo } from '../../support/temp';

const ctx = { origin: 'test' as const, connectionId: 'c' };
let image: string;
let app: AppServices;
let cleanup: () => void;
const repo = makeRepo('fd-ctr-bridge-');

beforeAll(async () => {
  image = ensureTestImage();
  execFileSync('chown', ['-R', '1000:1000', repo.path]);
  const started = await startTestApp();
  app = started.app;
  cleanup = started.cleanup;
}, 120_000);

afterAll(async () => {
  await app.containers.shutdown();
  app.dispose();
  cleanup();
  rmSync(`${repo.path}-ctx`, { recursive: true, force: true });
  repo.cleanup();
});

const call = (channel: string, payload: unknown) => app.router.dispatch(channel, payload, ctx);

describe('containers channels', () => {
  it('lists engines, places a session, reports stats, logs and a redacted inspect, and removes it', async () => {
    const engines = await call('containers.engines.list', {});
    expect(engines).toMatchObject({ ok: true });
    expect((engines as { value: Array<{ spec: { name: string } }> }).value.map((e) => e.spec.name)).toContain('local');
    const s = app.agents.createSession({ root: repo.path });
    const placement = { image, limits: { memoryBytes: 128 * 1024 * 1024, cpus: 0.5, pids: 128 }, network: 'none', gpus: { kind: 'none' } };
    expect(await call('containers.placement.set', { sessionId: s.id, placement })).toEqual({ ok: true, value: placement });
    expect(await call('containers.placement.get', { sessionId: s.id })).toEqual({ ok: true, value: placement });
    await app.containers.ensure(s.id);
    const stats = (await call('containers.stats', { sessionId: s.id })) as { ok: true; value: { memoryLimitBytes: number } };
    expect(stats.value.memoryLimitBytes).toBe(128 * 1024 * 1024);
    const inspect = (await call('containers.inspect', { sessionId: s.id })) as { ok: true; value: { inspect: { HostConfig: { NetworkMode: string; NanoCpus: number } } } };
    expect(inspect.value.inspect.HostConfig).toMatchObject({ NetworkMode: 'none', NanoCpus: 5e8 });
    expect(await call('containers.logs', { sessionId: s.id })).toEqual({ ok: true, value: { text: '' } });
    const listed = (await call('containers.list', {})) as { ok: true; value: Array<{ sessionId: string; state: string }> };
    expect(listed.value).toEqual([expect.objectContaining({ sessionId: s.id, state: 'running' })]);
    expect(await call('containers.remove', { sessionId: s.id })).toEqual({ ok: true, value: { ok: true } });
    expect(await call('containers.placement.set', { sessionId: s.id, placement: null })).toEqual({ ok: true, value: null });
  }, 90_000);

  it('refuses malformed input before any handler runs', async () => {
    for (const [channel, payload] of [
      ['containers.placement.set', { sessionId: 'x', placement: { image: '' } }],
      ['containers.placement.set', { sessionId: 'x', placement: { image: 'a', gpus: { kind: 'ids', ids: ['0; rm -rf /'] } } }],
      ['containers.placement.set', { sessionId: 'x', placement: { image: 'a', network: 'overlay' } }],
      ['containers.placement.set', { sessionId: 'x', placement: { image: 'a', limits: { memoryBytes: 10 } } }],
      ['containers.engines.add', { name: 'x', host: 'tcp://h:1', extra: 1 }],
      ['containers.terminal.open', { sessionId: 'x', cols: 0, rows: 10 }],
    ] as const) {
      expect(await call(channel, payload)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    }
    expect(await call('containers.engines.add', { name: 'bad name', host: 'tcp://h:1' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('containers.engines.add', { name: 'x', host: 'ftp://h' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });

  it('builds an image with progress events and a cancel', async () => {
    const events: Array<{ buildId: string; done: boolean; progress: { step: number }; error: { message: string } | null }> = [];
    app.hub.subscribe((e) => {
      if (e.topic === 'containers.images.progress') events.push(e.payload as never);
    });
    const dir = `${repo.path}-ctx`;
    mkdirSync(dir, { recursive: true });
    writeFileSync(`${dir}/Dockerfile`, `FROM ${image}\nRUN sleep 60\n`);
    const buildId = app.containers.startImageBuild({ context: dir, tag: `flightdeck-test-bridge:${process.pid}` }, (u) => app.hub.publish('containers.images.progress', u));
    await waitFor(() => events.some((e) => e.buildId === buildId && e.progress.step === 2), 'the RUN step', 60_000, 50);
    expect(await call('containers.images.cancel', { buildId })).toEqual({ ok: true, value: { cancelled: true } });
    const end = await waitFor(() => events.find((e) => e.buildId === buildId && e.done), 'the end of the build', 60_000, 50);
    expect(end.error?.message).toContain('cancelled');
    expect(await call('containers.images.cancel', { buildId })).toEqual({ ok: true, value: { cancelled: false } });
  }, 120_000);
});
