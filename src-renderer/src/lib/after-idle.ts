/**
 * Runs `fn` once the page is idle (requestIdleCallback), at the latest after `timeoutMs`;
 * returns what cancels it. Where there is no idle callback, a short timer stands in.
 */
export function afterIdle(fn: () => void, timeoutMs = 1_000): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(() => fn(), { timeout: timeoutMs });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(fn, Math.min(200, timeoutMs));
  return () => clearTimeout(id);
}
