/** The budget form's fields as typed, and what is wrong with them. Pure; unit-tested. */

export interface LimitDraft {
  warn: string;
  max: string;
}

/** Dollars as typed ("2", "0.50", "$3", " 1,5 " is refused): null for an empty field, NaN when unreadable. */
export function parseUsd(text: string): number | null {
  const t = text.trim().replace(/^\$/, '');
  if (t === '') return null;
  if (!/^\d+(\.\d+)?$/.test(t)) return Number.NaN;
  return Number(t);
}

export function limitProblem(d: LimitDraft): string | null {
  const warn = parseUsd(d.warn);
  const max = parseUsd(d.max);
  if (Number.isNaN(warn) || Number.isNaN(max)) return 'Amounts are dollars, such as 5 or 2.50.';
  if ((warn ?? 0) > 1_000_000 || (max ?? 0) > 1_000_000) return 'At most $1,000,000.';
  if (warn !== null && max !== null && warn > max) return 'The warning level must not be above the maximum.';
  return null;
}
