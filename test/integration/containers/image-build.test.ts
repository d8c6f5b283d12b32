/**
 * Image builds on the real engine, from a local base (no registry): progress by step, the
 * build arguments, a failing step's message, and a cancel that stops the build.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import type { BuildProgress } from '../../../src-main/containers/core/build-progress';
import { Engine } from '../../../src-main/containers/engines';
import { buildImage, listImages, removeImage } from '../../../src-main/containers/images';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';

const engine = new Engine({ name: 'local', source: 'default', host: 'unix:///var/run/docker.sock', tls: null });
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const dirs: Array<{ cleanup(): void }> = [];
const tags: string[] = [];
let base: string;

function context(dockerfile: string): string {
  const d = tempDir('fd-build-');
  dirs.push(d);
  mkdirSync(d.path, { recursive: true });
  writeFileSync(join(d.path, 'Dockerfile'), dockerfile);
  return d.path;
}

beforeAll(() => {
  base = ensureTestImage();
}, 120_000);

afterAll(async () => {
  for (const t of tags) await removeImage(engine, t).catch(() => undefined);
  for (const d of dirs) d.cleanup();
});

describe('image builds', () => {
  it('builds with the build arguments and reports each step', async () => {
    const tag = `flightdeck-test-build:${process.pid}`;
    tags.push(tag);
    const seen: BuildProgress[] = [];
    const ctx = context(`FROM ${base}\nARG AGENT_UID=1\nRUN echo "uid=$AGENT_UID" > /built.txt\nCMD ["cat", "/built.txt"]\n`);
    const r = await buildImage(engine, { context: ctx, tag, buildArgs: { AGENT_UID: '4242' }, onProgress: (p) => seen.push(p) });
    expect(r.tag).toBe(tag);
    expect(seen.map((p) => p.step).filter((s, i, a) => a.indexOf(s) === i)).toEqual([1, 2, 3, 4]);
    expect(seen.at(-1)).toMatchObject({ fraction: 1, steps: 4, imageId: r.imageId, error: null });
    expect((await listImages(engine)).some((i) => i.tags.includes(tag))).toBe(true);
    const c = await docker.createContainer({ Image: tag });
    try {
      await c.start();
      await c.wait();
      const logs = (await c.logs({ stdout: true, stderr: true })) as unknown as Buffer;
      expect(logs.subarray(8).toString()).toBe('uid=4242\n');
    } finally {
      await c.remove({ force: true });
    }
  }, 120_000);

  it('a failing step is an error naming it', async () => {
    const err = await buildImage(engine, { context: context(`FROM ${base}\nRUN echo broken >&2; exit 7\n`), tag: `flightdeck-test-broken:${process.pid}` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details?.reason).toBe('build_failed');
    expect((err as AppError).message).toMatch(/returned a non-zero code: 7/);
  }, 120_000);

  it('cancelling stops the build and leaves no image', async () => {
    const tag = `flightdeck-test-cancel:${process.pid}`;
    // A sleep only this build runs: another test run on the same engine cannot be mistaken for it.
    const sleep = `sleep ${200 + (process.pid % 700)}`;
    const ac = new AbortController();
    const err = await buildImage(engine, { context: context(`FROM ${base}\nRUN ${sleep}\n`), tag, signal: ac.signal, onProgress: (p) => p.step === 2 && ac.abort() }).catch((e: unknown) => e);
    expect((err as AppError).details?.reason).toBe('cancelled');
    // The engine stops the build when the request goes away; the RUN container is removed.
    // …asynchronously, and on a loaded engine it may even be created after the cancel: wait
    // (bounded) until it is gone, stopped ones included, looking no sooner than 3 s after the cancel.
    const cancelledAt = Date.now();
    for (let i = 0; i < 150; i++) {
      const any = await docker.listContainers({ all: true, filters: { ancestor: [base] } });
      if (!any.some((c) => c.Command.includes(sleep)) && Date.now() - cancelledAt >= 3_000) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    const left = await docker.listContainers({ all: true, filters: { ancestor: [base] } });
    expect(left.filter((c) => c.Command.includes(sleep))).toEqual([]);
    expect((await listImages(engine)).some((i) => i.tags.includes(tag))).toBe(false);
  }, 120_000);
});
