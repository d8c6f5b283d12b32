/**
 * Removing images on the real engine: a tag goes and the image stays while another tag names
 * it; an image a running container uses is refused with that container's name; a build whose
 * base image is not local is refused before the engine could pull it.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { Engine } from '../../../src-main/containers/engines';
import { buildImage, listImages, removeImage } from '../../../src-main/containers/images';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';

const engine = new Engine({ name: 'local', source: 'default', host: 'unix:///var/run/docker.sock', tls: null });
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
const REPO = `flightdeck-test-rm-${process.pid}`;
const cleanups: Array<() => Promise<unknown>> = [];
let base: string;

beforeAll(() => {
  base = ensureTestImage();
}, 120_000);

afterAll(async () => {
  // In order: the container that uses an image goes before that image.
  for (const c of cleanups) await c().catch(() => undefined);
});

describe('image removal', () => {
  it('removes a tag; the image stays while another tag names it', async () => {
    const [repo, tag] = base.split(':');
    await docker.getImage(`${repo}:${tag}`).tag({ repo: REPO, tag: 'extra' });
    cleanups.push(() => docker.getImage(`${REPO}:extra`).remove());
    expect((await listImages(engine)).find((i) => i.tags.includes(`${REPO}:extra`))?.tags).toContain(base);
    await removeImage(engine, `${REPO}:extra`);
    const images = await listImages(engine);
    expect(images.some((i) => i.tags.includes(`${REPO}:extra`))).toBe(false);
    expect(images.some((i) => i.tags.includes(base))).toBe(true);
  }, 60_000);

  it('an image a running container uses is refused, naming the container', async () => {
    // An image of its own (a commit), so no other tag keeps it and the engine must refuse.
    const maker = await docker.createContainer({ Image: base, Cmd: ['true'] });
    cleanups.push(() => maker.remove({ force: true }));
    await maker.commit({ repo: REPO, tag: 'used' });
    cleanups.push(() => docker.getImage(`${REPO}:used`).remove({ force: true }));
    const name = `${REPO}-user`;
    const user = await docker.createContainer({ Image: `${REPO}:used`, name, Cmd: ['sleep', '300'] });
    cleanups.unshift(() => user.remove({ force: true }));
    await user.start();
    const err = await removeImage(engine, `${REPO}:used`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details?.reason).toBe('image_in_use');
    expect((err as AppError).message).toBe(`The image ${REPO}:used is in use by the running container ${name} on ${engine.label}: remove that container first (docker rm -f ${name}), then retry.`);
    expect((await listImages(engine)).some((i) => i.tags.includes(`${REPO}:used`))).toBe(true);
  }, 60_000);
});

describe('builds never pull unasked', () => {
  it('a base image that is not local is refused before the build starts', async () => {
    const d = tempDir('fd-build-absent-');
    cleanups.push(async () => d.cleanup());
    mkdirSync(d.path, { recursive: true });
    const absent = `${REPO}-absent:never`;
    writeFileSync(join(d.path, 'Dockerfile'), `FROM ${base} AS one\nFROM ${absent}\nCOPY --from=one /bin/busybox /bin/busybox\n`);
    const err = await buildImage(engine, { context: d.path, tag: `${REPO}:built` }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(AppError);
    expect((err as AppError).details).toMatchObject({ reason: 'base_image_missing', images: [absent] });
    expect((err as AppError).message).toContain(`docker pull ${absent}`);
    expect((await listImages(engine)).some((i) => i.tags.includes(`${REPO}:built`))).toBe(false);

    // Asked for (pullBase), the engine is left to pull it: its own refusal comes back (no such image in any registry reachable here).
    const pulled = await buildImage(engine, { context: d.path, tag: `${REPO}:built`, pullBase: true }).catch((e: unknown) => e);
    expect(pulled).toBeInstanceOf(AppError);
    expect((pulled as AppError).details?.reason).toBe('build_failed');
    expect((pulled as AppError).message).toMatch(/^The image build failed: /);
    expect((await listImages(engine)).some((i) => i.tags.includes(`${REPO}:built`))).toBe(false);
  }, 60_000);
});
