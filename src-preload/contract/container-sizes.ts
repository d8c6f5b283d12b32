/**
 * A container's limits and memory sizes as the forms and the contract check them. Without zod:
 * the UI's first load imports this (the new-session dialog's fields) and not the contract's
 * schemas (containers.ts re-exports it).
 */
import { wholeUnit } from './units';

/** The engine refuses a memory limit below 6 MiB. */
export const MIN_CONTAINER_MEMORY_BYTES = 6 * 1024 * 1024;
/** The engine's CPU quota goes down to a hundredth of a CPU; more than 1024 CPUs is a typo. */
export const MIN_CONTAINER_CPUS = 0.01;
export const MAX_CONTAINER_CPUS = 1024;
/** Below this a shell with a few tools cannot start. */
export const MIN_CONTAINER_PIDS = 16;
/** The kernel's default pid_max ceiling on 64-bit Linux: more is never granted. */
export const MAX_CONTAINER_PIDS = 4_194_304;

const MEMORY_UNITS: Record<string, number> = { '': 1, b: 1, k: 1024, kb: 1024, kib: 1024, m: 1024 ** 2, mb: 1024 ** 2, mib: 1024 ** 2, g: 1024 ** 3, gb: 1024 ** 3, gib: 1024 ** 3, t: 1024 ** 4, tb: 1024 ** 4, tib: 1024 ** 4 };

/**
 * A memory size as Docker reads it (`512m`, `8g`, `1.5GiB`, or a byte count; binary units:
 * 1g = 1024 MiB); null when it is not one. Shared by the placement forms and the mailbox's
 * command files so a size means the same everywhere.
 */
export function parseMemorySize(text: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text.trim());
  if (!m) return null;
  const unit = MEMORY_UNITS[m[2]!.toLowerCase()];
  if (unit === undefined) return null;
  return Math.floor(Number(m[1]) * unit);
}

/**
 * A byte count as the largest whole binary unit (`8g`, `512m`, `64k`), else its digits: the
 * inverse of parseMemorySize (it reads the text back to the same number), for the forms and
 * files a size is written into.
 */
export function memorySizeText(bytes: number): string {
  // Docker's suffixes go up to t (TiB).
  const w = wholeUnit(bytes, 4);
  return w ? `${w.value}${'kmgt'[w.unit - 1]}` : String(bytes);
}
