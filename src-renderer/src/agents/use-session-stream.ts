import { useEffect, useRef, useState } from 'react';
import type { AgentEvent } from '../../../src-preload/contract/agents';
import { useAppStore, useClient } from '../store';
import { applyEvents, emptyTranscript, tailFoldsAlone, type Transcript } from './transcript';
import { transcriptCache } from './transcript-cache';

/** How many events one replay request asks for; long sessions page through. */
const REPLAY_PAGE = 5_000;
/**
 * A long session opened for the first time shows its newest turns from a short read first (more
 * than a screenful, which the view opens at), then the whole conversation once it is read: its
 * newest answer shows in the time of a short read instead of the whole log's.
 */
const TAIL_TURNS = 20;

/**
 * Sessions whose log a view is reading as it opens, with what waits for that: other requests
 * of the view that make the host work (listing changes runs git) go after it, so the read does
 * not wait behind them. A long session's newest turns show before the rest is read, and the
 * page is idle in between: "after idle" alone would send them in the middle.
 */
const openingReads = new Map<string, Array<() => void>>();

/** Runs `fn` once no view is reading session `sessionId`'s log to open it (at once if none is); returns what cancels it. */
export function afterOpeningRead(sessionId: string, fn: () => void): () => void {
  const waiting = openingReads.get(sessionId);
  if (!waiting) {
    fn();
    return () => undefined;
  }
  waiting.push(fn);
  return () => {
    const i = waiting.indexOf(fn);
    if (i >= 0) waiting.splice(i, 1);
  };
}

function openingReadStarted(sessionId: string): () => void {
  const waiting = openingReads.get(sessionId) ?? [];
  openingReads.set(sessionId, waiting);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    // Another view of the same session may still be reading (two windows of one page share this).
    if (openingReads.get(sessionId) !== waiting) return;
    openingReads.delete(sessionId);
    for (const fn of waiting.splice(0)) fn();
  };
}

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
  useEffect(() => {
    switchRef.current = onSwitch;
  });

  useEffect(() => {
    let cancelled = false;
    let current = transcriptCache.get(sessionId) ?? emptyTranscript;
    let reading: Promise<void> | null = null;
    let again = false;
    /** A first open reads the newest turns first, once (see TAIL_TURNS). */
    let tailTried = false;
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
          // Shown once the log is read to its end (a page shown on its own is rendered and laid
          // out for nothing), except a long session's newest turns on its first open, which is
          // where the view opens.
          // A partial fold (the newest turns only) is never read on from: all of it, from the start.
          let read = current.partial ? emptyTranscript : current;
          let done = false;
          if (read === emptyTranscript && !tailTried) {
            tailTried = true;
            const tail = await client.invoke('agents.events.read', { sessionId, lastTurns: TAIL_TURNS, limit: REPLAY_PAGE });
            if (cancelled) return;
            if (tail.startSeq === 1) {
              // Short enough to read at once (the host's call): this was the log from its start.
              read = applyEvents(read, tail.events);
              done = tail.events.length < REPLAY_PAGE;
            } else if (tail.events.length > 0 && tail.events.length < REPLAY_PAGE && tailFoldsAlone(tail.events)) {
              commit({ ...applyEvents(emptyTranscript, tail.events), partial: true });
              setLoading(false);
            }
          }
          // The view showed the newest turns and went away (the user moved on): the rest is read
          // all the same, for the cache, so that coming back is the instant switch it would be
          // had they stayed until the whole conversation was read.
          const forCache = () => cancelled && current.partial === true;
          while (!done) {
            const page = await client.invoke('agents.events.read', { sessionId, fromSeq: read.lastSeq + 1, limit: REPLAY_PAGE });
            if (cancelled && !forCache()) return;
            read = applyEvents(read, page.events);
            done = page.events.length < REPLAY_PAGE;
          }
          if (forCache()) {
            // A later view of this session may have kept a newer fold meanwhile.
            if (!transcriptCache.get(sessionId)) transcriptCache.put(sessionId, read);
            return;
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
    const opened = openingReadStarted(sessionId);
    const opening = catchUp();
    opening.finally(opened).catch(() => undefined);
    opening.then(
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
      // Left before the whole log was read: nothing is kept, the next open reads it again.
      if (!current.partial) transcriptCache.put(sessionId, current);
    };
  }, [client, sessionId, toastError]);

  return { transcript, loading };
}
