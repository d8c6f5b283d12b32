/**
 * The agent image: built on an engine from resources/docker/agent with the host user's ids as
 * build arguments, with progress (./core/build-progress) and a cancel; listed and removed.
 * Flightdeck never pulls: a missing image is an error that offers this build.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { appRoot } from '../platform/paths';
import { applyBuildMessage, emptyProgress, JsonLines, type BuildProgress } from './core/build-progress';
import { LABEL } from './core/container-spec';
import { engineError } from './core/engine-errors';
import { baseImageMissing, containerInRefusal, dockerfileBases, imageHasTags, imageInUse, requireImageRef } from './core/images';
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
  /** The user asked for it: the engine may pull the Dockerfile's base images (shown in the progress). */
  pullBase?: boolean;
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
  if (!o.pullBase) await requireBases(engine, context);
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

/**
 * Refuses a build whose base images are not on the engine: the engine would pull them from a
 * registry by itself (gigabytes for the agent image's CUDA base, or a DNS error offline).
 * Flightdeck never pulls silently, so the user is told which image to pull.
 */
async function requireBases(engine: Engine, context: string): Promise<void> {
  let dockerfile: string;
  try {
    dockerfile = readFileSync(join(context, 'Dockerfile'), 'utf8');
  } catch {
    // No readable Dockerfile: the engine's own error ("Cannot locate specified Dockerfile") says it.
    return;
  }
  const missing: string[] = [];
  for (const ref of dockerfileBases(dockerfile)) {
    try {
      await engine.call('the base image lookup', (d) => d.getImage(ref).inspect());
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') missing.push(ref);
      else throw e;
    }
  }
  if (missing.length > 0) throw baseImageMissing(missing, engine.label);
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

/**
 * Removes a tag (the image goes with its last tag) or an untagged image by id. The engine's
 * refusal because a container uses the image names that container (with its session when it is
 * one of Flightdeck's) instead of the engine's bare id.
 */
export async function removeImage(engine: Engine, ref: string): Promise<void> {
  requireImageRef(ref);
  try {
    await engine.call('the image removal', (d) => d.getImage(ref).remove());
  } catch (e) {
    if (!(e instanceof AppError) || e.code !== 'conflict') throw e;
    const said = typeof e.details?.engineMessage === 'string' ? e.details.engineMessage : e.message;
    const id = containerInRefusal(said);
    if (id) {
      // The container may be gone by now (removed in between): the refusal then names its id alone.
      const c = await engine.call('the container inspection', (d) => d.getContainer(id).inspect()).catch(() => null);
      throw imageInUse(ref, engine.label, { id, name: c ? c.Name.replace(/^\//, '') : id, running: c ? c.State.Running : /running container/i.test(said), sessionId: c?.Config.Labels?.[LABEL.session] ?? null }, said);
    }
    if (/referenced in multiple repositories/i.test(said)) throw imageHasTags(ref, engine.label, said);
    throw e;
  }
}
