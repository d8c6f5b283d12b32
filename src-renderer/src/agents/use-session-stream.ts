import { useEffect, useRef, useState } from 'react';
import type { AgentEvent } from '../../../src-preload/contract/agents';
import { useAppStore, useClient } from '../store';
import { applyEvent, applyEvents, emptyTranscript, type Transcript } from './transcript';

/** How many events one replay request asks for; long sessions page through. */
const REPLAY_PAGE = 2_000;

/**
 * A session's transcript: subscribe to live events first, then replay the log from the
 * start, and fold both by sequence number — no gap (live events during the replay are kept)
 * and no duplicate (anything at or below the last applied seq is dropped).
 */
export function useSessionStream(sessionId: string, onSwitch?: (toSessionId: string) => void): { transcript: Transcript; loading: boolean } {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [transcript, setTranscript] = useState<Transcript>(emptyTranscript);
  const [loading, setLoading] = useState(true);
  const switchRef = useRef(onSwitch);
  switchRef.current = onSwitch;

  useEffect(() => {
    let cancelled = false;
    let replaying = true;
    const early: AgentEvent[] = [];
    setTranscript(emptyTranscript);
    setLoading(true);
    const off = client.on(
      'agents.event',
      (e) => {
        if (replaying) early.push(e);
        else setTranscript((t) => applyEvent(t, e));
        // `/new` and `/resume` move the user along, but only when it happens live, not on replay.
        if (e.data.type === 'session.switched') switchRef.current?.(e.data.toSessionId);
      },
      sessionId,
    );
    (async () => {
      let acc = emptyTranscript;
      for (;;) {
        const page = await client.invoke('agents.events.read', { sessionId, fromSeq: acc.lastSeq + 1, limit: REPLAY_PAGE });
        acc = applyEvents(acc, page.events);
        if (page.events.length < REPLAY_PAGE) break;
      }
      if (cancelled) return;
      replaying = false;
      acc = applyEvents(acc, early.sort((a, b) => a.seq - b.seq));
      setTranscript(acc);
      setLoading(false);
    })().catch((e: unknown) => {
      if (!cancelled) {
        replaying = false;
        setLoading(false);
        toastError('Could not load the session history', e);
      }
    });
    return () => {
      cancelled = true;
      off();
    };
  }, [client, sessionId, toastError]);

  return { transcript, loading };
}
