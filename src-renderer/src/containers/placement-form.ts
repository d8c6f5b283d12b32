/**
 * The container fields (new-session dialog, feature run dialog, mailbox task form) as the user types them, read into a
 * ContainerPlacement (src-preload/contract/containers.ts) with one clear message per field that
 * does not fit. Pure: no client, no React, so the rules are unit-tested and the dialog only shows.
 */
import {
  MAX_CONTAINER_PIDS as MAX_PIDS,
  MIN_CONTAINER_CPUS as MIN_CPUS,
  MIN_CONTAINER_MEMORY_BYTES as MIN_MEMORY_BYTES,
  MIN_CONTAINER_PIDS as MIN_PIDS,
  parseMemorySize,
} from '../../../src-preload/contract/container-sizes';
import type { ContainerGpuRequest, ContainerNetworkMode, ContainerPlacement } from '../../../src-preload/contract/containers';
import { formatBytes } from '../../../src-preload/contract/units';

/** The agent image the app builds (src-main/containers/images.ts AGENT_IMAGE). */
export const DEFAULT_AGENT_IMAGE = 'flightdeck-agent:latest';
/** The contract's bound on a GPU count or id list. */
const MAX_GPUS = 64;
/** What the engine's NVIDIA device request accepts as a device id (index, GPU UUID, MIG id). */
const GPU_ID = /^(?:[0-9]+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)$/;

export type GpuChoice = 'none' | 'all' | 'count' | 'ids';

export interface PlacementForm {
  engine: string;
  image: string;
  gpus: GpuChoice;
  gpuCount: string;
  gpuIds: string;
  /** A size like 512m, 8g, 1.5GiB or a byte count; empty: the app's default. */
  memory: string;
  /** CPUs, e.g. 2 or 0.5; empty: the app's default. */
  cpus: string;
  /** Most processes at once; empty: the app's default. */
  pids: string;
  network: ContainerNetworkMode;
}

export type PlacementField = 'engine' | 'image' | 'gpus' | 'memory' | 'cpus' | 'pids';

/** What the dialog knows of the chosen engine (null: not answered yet or unreachable). */
export interface EngineFacts {
  cpus: number;
  memoryBytes: number;
  nvidia: boolean;
}

export function emptyPlacementForm(engine = ''): PlacementForm {
  return { engine, image: DEFAULT_AGENT_IMAGE, gpus: 'none', gpuCount: '1', gpuIds: '', memory: '', cpus: '', pids: '', network: 'bridge' };
}

/** A memory size as Docker reads it (the contract's parser, shared with the mailbox's command files). */
export const parseMemory = parseMemorySize;

/**
 * The placement the form describes, or the messages of the fields that do not fit. `engine`
 * facts bound the limits by what the engine has; GPUs on an engine without the NVIDIA runtime
 * are a warning (the engine's own refusal names what to install), not an error.
 */
export function readPlacementForm(
  f: PlacementForm,
  engine: EngineFacts | null,
): { placement: ContainerPlacement | null; errors: Partial<Record<PlacementField, string>>; warning: string | null } {
  const errors: Partial<Record<PlacementField, string>> = {};
  const image = f.image.trim();
  if (!f.engine) errors.engine = 'Choose an engine that answers.';
  if (image === '') errors.image = 'Name an image, e.g. flightdeck-agent:latest.';
  else if (/\s/.test(image) || image.length > 500) errors.image = 'An image reference has no spaces (e.g. flightdeck-agent:latest or registry/name@sha256:…).';

  let gpus: ContainerGpuRequest = { kind: 'none' };
  if (f.gpus === 'all') gpus = { kind: 'all' };
  else if (f.gpus === 'count') {
    const n = Number(f.gpuCount.trim());
    if (!/^\d+$/.test(f.gpuCount.trim()) || n < 1 || n > MAX_GPUS) errors.gpus = `A whole number of GPUs from 1 to ${MAX_GPUS}.`;
    else gpus = { kind: 'count', count: n };
  } else if (f.gpus === 'ids') {
    const ids = f.gpuIds.split(/[\s,]+/).filter(Boolean);
    const bad = ids.filter((id) => !GPU_ID.test(id));
    if (ids.length === 0) errors.gpus = 'List device indexes or UUIDs, e.g. 0,1 or GPU-3f1c….';
    else if (bad.length > 0) errors.gpus = `Not a GPU index or UUID: ${bad.join(', ')} (use 0, 1, GPU-… or MIG-…).`;
    else if (ids.length > MAX_GPUS) errors.gpus = `At most ${MAX_GPUS} devices.`;
    else gpus = { kind: 'ids', ids };
  }

  const limits: NonNullable<ContainerPlacement['limits']> = {};
  if (f.memory.trim() !== '') {
    const bytes = parseMemory(f.memory);
    if (bytes === null) errors.memory = 'A size like 512m, 8g or 1.5GiB.';
    else if (bytes < MIN_MEMORY_BYTES) errors.memory = 'At least 6 MiB (the engine refuses less).';
    else if (engine && engine.memoryBytes > 0 && bytes > engine.memoryBytes) errors.memory = `The engine has ${formatBytes(engine.memoryBytes, 'down')}.`;
    else limits.memoryBytes = bytes;
  }
  if (f.cpus.trim() !== '') {
    const cpus = Number(f.cpus.trim());
    if (!/^\d*\.?\d+$/.test(f.cpus.trim()) || !Number.isFinite(cpus)) errors.cpus = 'A number of CPUs, e.g. 2 or 0.5.';
    else if (cpus < MIN_CPUS) errors.cpus = `At least ${MIN_CPUS} CPU.`;
    else if (engine && engine.cpus > 0 && cpus > engine.cpus) errors.cpus = `The engine has ${engine.cpus} CPUs.`;
    else limits.cpus = cpus;
  }
  if (f.pids.trim() !== '') {
    const pids = Number(f.pids.trim());
    if (!/^\d+$/.test(f.pids.trim())) errors.pids = 'A whole number of processes, e.g. 4096.';
    else if (pids < MIN_PIDS || pids > MAX_PIDS) errors.pids = `From ${MIN_PIDS} to ${MAX_PIDS} processes.`;
    else limits.pids = pids;
  }

  const warning = gpus.kind !== 'none' && engine && !engine.nvidia ? 'This engine has no NVIDIA runtime: the container will not start with GPUs until the NVIDIA Container Toolkit is installed.' : null;
  if (Object.keys(errors).length > 0) return { placement: null, errors, warning };
  return {
    placement: {
      engine: f.engine,
      image,
      gpus,
      network: f.network,
      ...(Object.keys(limits).length > 0 ? { limits } : {}),
    },
    errors,
    warning,
  };
}
