/** Binary units, as the engines, git and the kernel count: 1 KiB = 1024 B. */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/**
 * A byte count as people read it, the one way every view and the CLI write sizes (disk use,
 * images, memory): `512 B`, `3.4 KiB`, `256 MiB`, `1.5 GiB`. One decimal below 10 of a unit
 * (dropped when it is 0), whole numbers from there; never `0 MiB` for a few hundred KiB.
 */
export function formatBytes(n: number): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  let v = n;
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  if (i === 0) return `${Math.round(v)} B`;
  // 1023.96 MiB rounds to 1024: say 1 GiB instead.
  if (Math.round(v) >= 1024 && i < UNITS.length - 1) return `1 ${UNITS[i + 1]}`;
  const shown = v < 10 ? Math.round(v * 10) / 10 : Math.round(v);
  return `${shown} ${UNITS[i]}`;
}
