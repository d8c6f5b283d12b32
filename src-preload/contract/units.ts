/** Binary units, as the engines, git and the kernel count: 1 KiB = 1024 B. */
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] as const;

/**
 * A byte count as people read it, the one way every view and the CLI write sizes (disk use,
 * images, memory): `512 B`, `3.4 KiB`, `15.5 GiB`, `256 MiB`. One decimal below 100 of a unit
 * (dropped when it is 0), whole numbers from there; never `0 MiB` for a few hundred KiB.
 * `down` rounds down, for what something has (15.96 GiB of memory is not "16 GiB" when 16g
 * would be refused).
 */
export function formatBytes(n: number, rounding: 'nearest' | 'down' = 'nearest'): string {
  if (!Number.isFinite(n) || n < 0) return '?';
  const round = rounding === 'down' ? Math.floor : Math.round;
  let v = round(n);
  let i = 0;
  while (v >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  if (i === 0) return `${v} B`;
  const shown = v < 100 ? round(v * 10) / 10 : round(v);
  // 1023.96 MiB rounds to 1024: say 1 GiB instead.
  if (shown >= 1024 && i < UNITS.length - 1) return `1 ${UNITS[i + 1]}`;
  return `${shown} ${UNITS[i]}`;
}

/**
 * The largest binary unit (1: KiB … `maxUnit`) that holds `n` whole, with the count of it; null
 * when none does (a count of bytes that is no multiple of 1024).
 */
export function wholeUnit(n: number, maxUnit = UNITS.length - 1): { value: number; unit: number } | null {
  for (let i = maxUnit; i > 0; i--) {
    const size = 1024 ** i;
    if (n >= size && n % size === 0) return { value: n / size, unit: i };
  }
  return null;
}

/**
 * A byte count in the largest binary unit that holds it whole (`8 GiB`, `1280 MiB`, `1000 B`):
 * for a limit someone set, where two different values must never read the same.
 */
export function formatBytesExact(n: number): string {
  const w = wholeUnit(n);
  return w ? `${w.value} ${UNITS[w.unit]}` : `${n} B`;
}

/**
 * Dollars as people read them, the one way every view and the CLI write costs: cents from a
 * dollar up, and below that two significant digits (a $0.003 turn shows as $0.003, not $0.00).
 * Zero is $0.00; under a hundredth of a cent, <$0.0001.
 */
export function formatUsd(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '$0.00';
  if (n >= 0.995) return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (n < 0.0001) return '<$0.0001';
  const digits = Math.min(4, Math.max(2, 1 - Math.floor(Math.log10(n))));
  const fixed = n.toFixed(digits);
  // Trailing zeros beyond the cents say nothing ($0.0030 → $0.003).
  return `$${fixed.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

/** A command's timeout as people say it: "10 min", "90 s", "1 h 30 min". */
export function timeoutText(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 120 && s % 60 !== 0) return `${s} s`;
  const min = Math.round(s / 60);
  if (min < 60) return `${min} min`;
  const h = Math.floor(min / 60);
  return min % 60 === 0 ? `${h} h` : `${h} h ${min % 60} min`;
}
