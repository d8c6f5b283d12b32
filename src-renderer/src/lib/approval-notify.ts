/**
 * When a browser notification about a waiting approval is worth showing. Pure; unit-tested.
 * The user turned them on (and the browser allowed them), and the approval is not already in
 * front of them: the page is hidden, or another view than its session is open.
 */
export function shouldNotify(o: { enabled: boolean; permission: string; hidden: boolean; openSessionId: string | null; approvalSessionId: string }): boolean {
  if (!o.enabled || o.permission !== 'granted') return false;
  return o.hidden || o.openSessionId !== o.approvalSessionId;
}

/** Approvals not seen before, in order; `seen` is updated. */
export function newApprovals<T extends { id: string }>(seen: Set<string>, approvals: readonly T[]): T[] {
  const fresh: T[] = [];
  for (const a of approvals) {
    if (seen.has(a.id)) continue;
    seen.add(a.id);
    fresh.push(a);
  }
  return fresh;
}
