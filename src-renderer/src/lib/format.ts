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

/**
 * Dollars as people read them: cents from a dollar up, and below that two significant digits
 * (a $0.003 turn shows as $0.003, not $0.00). Zero is $0.00; under a hundredth of a cent, <$0.0001.
 */
export function usd(n: number): string {
  if (!Number.isFinite(n) || n <= 0) return '$0.00';
  if (n >= 0.995) return `$${n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  if (n < 0.0001) return '<$0.0001';
  const digits = Math.min(4, Math.max(2, 1 - Math.floor(Math.log10(n))));
  const fixed = n.toFixed(digits);
  // Trailing zeros beyond the cents say nothing ($0.0030 → $0.003).
  return `$${fixed.replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
