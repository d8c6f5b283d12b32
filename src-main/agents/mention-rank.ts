/**
 * Fuzzy ranking of file paths for `@` mentions in the composer. Pure; unit-tested.
 *
 * A path matches when the query's characters appear in it in order (case-insensitive). Among
 * matches, the score favours what people type: the file name over the folders, characters at
 * the start of a word (after `/`, `.`, `-`, `_`, or a lower→upper case change), runs of
 * consecutive characters, and shorter paths.
 */

const BOUNDARY = new Set(['/', '.', '-', '_', ' ']);

/** The score of one path for a query, or null when it does not match. Higher is better. */
export function scorePath(path: string, query: string): number | null {
  const q = query.toLowerCase();
  if (q === '') return -path.length;
  const lower = path.toLowerCase();
  const nameStart = path.lastIndexOf('/') + 1;
  // The whole query inside the file name is the strongest signal; a prefix of it more so.
  const inName = lower.indexOf(q, nameStart);
  const bonus = inName < 0 ? 0 : inName === nameStart ? 120 : 80;
  // Greedy matching from the left can spend the query on early letters ("c" of "src/"): the
  // alignment is also tried from the file name, and from the whole query's place in it.
  let best: number | null = null;
  for (const from of new Set([0, nameStart, Math.max(inName, 0)])) {
    const s = alignment(path, lower, q, from, nameStart);
    if (s !== null && (best === null || s > best)) best = s;
  }
  // Spread-out matches and long paths rank lower.
  return best === null ? null : bonus + best - path.length * 0.1;
}

function alignment(path: string, lower: string, q: string, from: number, nameStart: number): number | null {
  let score = 0;
  let pi = from;
  let prev = -2;
  for (const ch of q) {
    const at = lower.indexOf(ch, pi);
    if (at < 0) return null;
    const before = at > 0 ? path[at - 1]! : '';
    const boundary = at === 0 || BOUNDARY.has(before) || (before === before.toLowerCase() && before !== before.toUpperCase() && path[at]! !== path[at]!.toLowerCase());
    score += 1;
    if (at === prev + 1) score += 6;
    if (boundary) score += 8;
    if (at >= nameStart) score += 4;
    prev = at;
    pi = at + 1;
  }
  return score;
}

/** The best `limit` paths for the query, best first; ties keep the shorter, then alphabetical. */
export function rankPaths(paths: readonly string[], query: string, limit: number): string[] {
  const scored: Array<{ path: string; score: number }> = [];
  for (const path of paths) {
    const score = scorePath(path, query.trim());
    if (score !== null) scored.push({ path, score });
  }
  scored.sort((a, b) => b.score - a.score || a.path.length - b.path.length || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return scored.slice(0, limit).map((s) => s.path);
}
