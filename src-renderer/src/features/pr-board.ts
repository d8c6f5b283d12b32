/** The board's pull request statuses, kept current from the host (placed by ./pr-placement.ts). */
import { useEffect, useState } from 'react';
import { useClient } from '../store';
import { prKey, type PrBoardStatus } from './pr-placement';

/** The followed PRs by feature, read again whenever a loop moves. */
export function usePrBoard(): ReadonlyMap<string, PrBoardStatus> {
  const client = useClient();
  const [prs, setPrs] = useState<ReadonlyMap<string, PrBoardStatus>>(() => new Map());
  const [generation, setGeneration] = useState(0);
  useEffect(() => client.on('features.pr.changed', () => setGeneration((g) => g + 1)), [client]);
  useEffect(() => {
    let alive = true;
    client.invoke('features.pr.list', {}).then(
      // No PRs followed, as before: the same map, so the board's cards are not built again for nothing.
      (r) => alive && setPrs((old) => (r.prs.length === 0 && old.size === 0 ? old : new Map(r.prs.map((p) => [prKey(p.projectPath, p.slug), { status: p.status, reason: p.reason, number: p.number }])))),
      // The board still shows every feature by its own state; the PR line is only missing.
      () => undefined,
    );
    return () => {
      alive = false;
    };
  }, [client, generation]);
  return prs;
}
