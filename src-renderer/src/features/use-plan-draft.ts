import { useCallback, useEffect, useState } from 'react';
import type { OutputOf } from '../../../src-preload/contract';
import { useClient } from '../store';

export type PlanData = OutputOf<'features.plan.get'>;

/**
 * A plan draft with its newest revision and the one reviewed before it, reloaded whenever the
 * host says the draft changed (a new revision, a status, an error) — from this window or any other.
 */
export function usePlanDraft(draftId: string): { data: PlanData | null; error: string | null; reload(): void; set(d: PlanData): void } {
  const client = useClient();
  const [data, setData] = useState<PlanData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [generation, setGeneration] = useState(0);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    let live = true;
    client.invoke('features.plan.get', { draftId }).then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (e: unknown) => live && setError(e instanceof Error ? e.message : String(e)),
    );
    return () => {
      live = false;
    };
  }, [client, draftId, generation]);

  useEffect(
    () =>
      client.on('features.plan.changed', ({ draft }) => {
        if (draft.id !== draftId) return;
        // The status shows at once; the revision texts come with the reload.
        setData((d) => (d ? { ...d, draft } : d));
        reload();
      }),
    [client, draftId, reload],
  );

  return { data, error, reload, set: setData };
}
