import { useEffect, useRef, useState } from 'react';
import type { AgentEvent } from '../../../src-preload/contract/agents';
import { useAppStore, useClient } from '../store';
import { applyEvents, emptyTranscript, type Transcript } from './transcript';
import { transcriptCache } from './transcript-cache';

/** How many events one replay request asks for; long sessions page through. */
const REPLAY_PAGE = 5_000;

/**
 * A session's transcript: subscribe to live events first, then replay the log, and fold both
 * by sequence number. No duplicate: anything at or below the last applied seq is dropped. No
 * gap: a live event that skips ahead (events published while the connection was down) is not
 * applied out of order; the missing stretch is read from the log first, and the log is read
 * again whenever the connection comes back. A session shown recently starts from its cached
 * fold (transcript-cache.ts) and reads only what came after it.
 */
export function useSessionStream(sessionId: string, onSwitch?: (toSessionId: string) => void): { transcript: Transcript; loading: boolean } {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [transcript, setTranscript] = useState<Transcript>(() => transcriptCache.get(sessionId) ?? emptyTranscript);
  const [loading, setLoading] = useState(() => transcriptCache.get(sessionId) === null);
  const switchRef = useRef(onSwitch);
  switchRef.current = onSwitch;

  useEffect(() => {
    let cancelled = false;
    let current = transcriptCache.get(sessionId) ?? emptyTranscript;
    let reading: Promise<void> | null = null;
    let again = false;
    const held: AgentEvent[] = [];
    const commit = (next: Transcript) => {
      current = next;
      if (!cancelled) setTranscript(next);
    };

    // Reads the log from the last applied event on, then applies held live events in order.
    const catchUp = (): Promise<void> => {
      if (reading) {
        again = true;
        return reading;
      }
      reading = (async () => {
        do {
          again = false;
          // Shown once the log is read to its end: a page shown on its own is rendered and laid
          // out for nothing (the view opens at the newest turn, on the last page).
          let read = current;
          for (;;) {
            const page = await client.invoke('agents.events.read', { sessionId, fromSeq: read.lastSeq + 1, limit: REPLAY_PAGE });
            if (cancelled) return;
            read = applyEvents(read, page.events);
            if (page.events.length < REPLAY_PAGE) break;
          }
          // Live events that arrived meanwhile: apply them while they follow on; past a gap,
          // read the log again (every published event is already in it).
          let next = read;
          for (const e of held.splice(0).sort((a, b) => a.seq - b.seq)) {
            if (e.seq > next.lastSeq + 1) {
              again = true;
              break;
            }
            next = applyEvents(next, [e]);
          }
          commit(next);
        } while (again && !cancelled);
      })().finally(() => {
        reading = null;
      });
      return reading;
    };

    setTranscript(current);
    setLoading(current === emptyTranscript);
    const off = client.on(
      'agents.event',
      (e) => {
        if (reading || e.seq > current.lastSeq + 1) {
          held.push(e);
          void catchUp().catch(() => undefined);
        } else {
          commit(applyEvents(current, [e]));
        }
        // `/new` and `/resume` move the user along, but only when it happens live, not on replay.
        if (e.data.type === 'session.switched') switchRef.current?.(e.data.toSessionId);
      },
      sessionId,
    );
    let wasClosed = false;
    const offStatus = client.transport.onStatus?.((s) => {
      if (s === 'closed') wasClosed = true;
      else if (s === 'open' && wasClosed) {
        wasClosed = false;
        void catchUp().catch(() => undefined);
      }
    });
    catchUp().then(
      () => !cancelled && setLoading(false),
      (e: unknown) => {
        if (cancelled) return;
        setLoading(false);
        toastError('Could not load the session history', e);
      },
    );
    return () => {
      cancelled = true;
      off();
      offStatus?.();
      transcriptCache.put(sessionId, current);
    };
  }, [client, sessionId, toastError]);

  return { transcript, loading };
}
