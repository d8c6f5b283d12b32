export function relativeTime(ts: number, now = Date.now()): string {
  const s = Math.round((now - ts) / 1000);
  if (s < 10) return 'just now';
  if (s < 60) return `${s}s ago`;
  const m = Math.round(s / 60);
  if (m < 60) return `${m} min ago`;
  const h = Math.round(m / 60);
  if (h < 24) return `${h} h ago`;
  return new Date(ts).toLocaleDateString();
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** Shortens a path for display: the home folder becomes ~. */
export function shortPath(p: string): string {
  return p.replace(/^\/(home\/[^/]+|root|Users\/[^/]+)(?=\/|$)/, '~');
}

/** Dollars as people read them: one formatter for every view and the CLI (see the contract's units). */
export { formatUsd as usd } from '../../../src-preload/contract/units';
