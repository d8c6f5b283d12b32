/**
 * `p` without trailing slashes or backslashes. Not a regular expression: the board runs it for
 * each of a thousand cards at every render (features/board-model.ts).
 */
export function trimSlash(p: string): string {
  let end = p.length;
  while (end > 0 && (p.charCodeAt(end - 1) === 47 || p.charCodeAt(end - 1) === 92)) end--;
  return end === p.length ? p : p.slice(0, end);
}
