/**
 * The agent image: built on an engine from resources/docker/agent with the host user's ids as
 * build arguments, with progress (./core/build-progress) and a cancel; listed and removed.
 * Flightdeck never pulls: a missing image is an error that offers this build.
 */
import { join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { appRoot } from '../platform/paths';
import { applyBuildMessage, emptyProgress, JsonLines, type BuildProgress } from './core/build-progress';
import { engineError } from './core/engine-errors';
import type { Engine } from './engines';

/** The tag the app builds and uses unless the user chooses another image. */
export const AGENT_IMAGE = 'flightdeck-agent:latest';

export function agentImageContext(): string {
  return join(appRoot(), 'resources', 'docker', 'agent');
}

export interface BuildOptions {
  /** The build context folder holding a Dockerfile (default: the agent image's). */
  context?: string;
  tag?: string;
  buildArgs?: Record<string, string>;
  signal?: AbortSignal;
  onProgress?: (p: BuildProgress) => void;
}

/** The host user's ids as the agent image's build arguments (root gets the image's default 1000). */
export function hostUserBuildArgs(): Record<string, string> {
  const uid = process.getuid?.() ?? 1000;
  const gid = process.getgid?.() ?? 1000;
  return uid === 0 ? {} : { AGENT_UID: String(uid), AGENT_GID: String(gid) };
}

/**
 * Builds an image and resolves with its id. A build error (a failing RUN step) rejects with the
 * step's message; a cancel rejects with `cancelled` and the engine stops the build.
 */
export async function buildImage(engine: Engine, o: BuildOptions = {}): Promise<{ imageId: string; tag: string }> {
  const tag = o.tag ?? AGENT_IMAGE;
  const context = o.context ?? agentImageContext();
  let progress = emptyProgress();
  let stream: NodeJS.ReadableStream;
  try {
    stream = await engine.docker.buildImage({ context, src: ['.'] }, { t: tag, buildargs: { ...hostUserBuildArgs(), ...o.buildArgs }, rm: true, forcerm: true, ...(o.signal ? { abortSignal: o.signal } : {}) });
  } catch (e) {
    if (o.signal?.aborted) throw new AppError('conflict', 'The image build was cancelled.', { reason: 'cancelled' });
    throw engineError(e, engine.label);
  }
  const lines = new JsonLines();
  await new Promise<void>((resolve, reject) => {
    stream.on('data', (b: Buffer) => {
      for (const m of lines.push(b.toString('utf8'))) progress = applyBuildMessage(progress, m);
      o.onProgress?.(progress);
    });
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', reject);
    o.signal?.addEventListener('abort', () => reject(new AppError('conflict', 'The image build was cancelled.', { reason: 'cancelled' })), { once: true });
  });
  if (progress.error) throw new AppError('invalid_input', `The image build failed: ${progress.error}`, { reason: 'build_failed', step: progress.step });
  const ins = await engine.call('the image lookup', (d) => d.getImage(tag).inspect());
  o.onProgress?.({ ...progress, fraction: 1, imageId: ins.Id });
  return { imageId: ins.Id, tag };
}

export interface ImageSummary {
  id: string;
  tags: string[];
  sizeBytes: number;
  createdAt: number;
}

export async function listImages(engine: Engine): Promise<ImageSummary[]> {
  const rows = await engine.call('the image list', (d) => d.listImages());
  return rows.map((r) => ({ id: r.Id, tags: (r.RepoTags ?? []).filter((t) => t !== '<none>:<none>'), sizeBytes: r.Size, createdAt: r.Created * 1000 }));
}

export async function removeImage(engine: Engine, ref: string): Promise<void> {
  await engine.call('the image removal', (d) => d.getImage(ref).remove());
}
