import { useEffect, useRef, useState } from 'react';
import type { AgentEvent } from '../../../src-preload/contract/agents';
import type { OutputOf } from '../../../src-preload/contract';
import type { Client } from '../../../src-preload/client/client';
import { registerAheadOfView } from '../lib/ahead-of-view';
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

type TailRead = OutputOf<'agents.events.read'> | null;

/**
 * A first open's short read, started as the app goes to the session, before React has drawn its
 * view (lib/ahead-of-view.ts): the view takes it instead of asking when its effect runs. Live
 * events are listened to from before the read, as the view itself does, and handed over with
 * it: one that came between the read and the view's own subscription is not lost.
 */
interface TailAhead {
  tail: Promise<TailRead>;
  events: AgentEvent[];
  off: () => void;
  timer: ReturnType<typeof setTimeout>;
  /** The connection dropped meanwhile: events of the drop are in neither the read nor `events`. */
  broken: boolean;
}
/** A read no view takes within this long (the app moved on) is let go. */
const TAIL_AHEAD_KEEP_MS = 2_000;
const tailsAhead = new Map<string, TailAhead>();

function readTail(client: Client, sessionId: string): Promise<TailRead> {
  // Only a speed-up: if it fails, the whole log is read as without it.
  return client.invoke('agents.events.read', { sessionId, lastTurns: TAIL_TURNS, limit: REPLAY_PAGE }).catch(() => null);
}

/** Sessions a view shows now (their fold is in that view, not yet in the cache). */
const viewing = new Map<string, number>();

/** Starts the short read of a session opened for the first time (nothing of it cached or shown, no read of it under way). */
export function readTailAhead(client: Client, sessionId: string): void {
  if (tailsAhead.has(sessionId) || viewing.has(sessionId) || transcriptCache.get(sessionId) !== null || openingReads.has(sessionId) || backgroundRead.has(sessionId)) return;
  const events: AgentEvent[] = [];
  // Listening first, as the view does: nothing published after the read can be missed.
  const offEvents = client.on('agents.event', (e) => events.push(e), sessionId);
  const status = { broken: false };
  const offStatus = client.transport.onStatus?.((s) => {
    if (s === 'closed') status.broken = true;
  });
  const off = () => {
    offEvents();
    offStatus?.();
  };
  const timer = setTimeout(() => {
    tailsAhead.delete(sessionId);
    off();
  }, TAIL_AHEAD_KEEP_MS);
  tailsAhead.set(sessionId, {
    tail: readTail(client, sessionId),
    events,
    off,
    timer,
    get broken() {
      return status.broken;
    },
  });
}

/**
 * The read started ahead of the view, taken once (its listener is the caller's to drop, once it
 * listens itself). None if the connection dropped meanwhile: the view reads for itself.
 */
export function takeTailAhead(sessionId: string): TailAhead | null {
  const ahead = tailsAhead.get(sessionId);
  if (!ahead) return null;
  clearTimeout(ahead.timer);
  tailsAhead.delete(sessionId);
  if (!ahead.broken) return ahead;
  ahead.off();
  return null;
}

registerAheadOfView((client, view, s) => {
  if (view.name !== 'session') return;
  const id = view.sessionId;
  if (s.sessions.some((x) => x.id === id)) readTailAhead(client, id);
});

/**
 * Sessions whose log a view is reading as it opens, with what waits for that: other requests
 * of the view that make the host work (listing changes runs git) go after it, so the read does
 * not wait behind them. A long session's newest turns show before the rest is read, and the
 * page is idle in between: "after idle" alone would send them in the middle.
 */
const openingReads = new Map<string, { readers: number; waiting: Array<() => void> }>();

/** Runs `fn` once no view is reading session `sessionId`'s log to open it (at once if none is); returns what cancels it. */
export function afterOpeningRead(sessionId: string, fn: () => void): () => void {
  const entry = openingReads.get(sessionId);
  if (!entry) {
    fn();
    return () => undefined;
  }
  entry.waiting.push(fn);
  return () => {
    const i = entry.waiting.indexOf(fn);
    if (i >= 0) entry.waiting.splice(i, 1);
  };
}

/** One more view reads the session's log to open it; what it returns says it is done (once). */
function openingReadStarted(sessionId: string): () => void {
  const entry = openingReads.get(sessionId) ?? { readers: 0, waiting: [] };
  entry.readers++;
  openingReads.set(sessionId, entry);
  let ended = false;
  return () => {
    if (ended) return;
    ended = true;
    // Another view of the same session may still be reading (one left, the next opened): the last one releases.
    if (--entry.readers > 0) return;
    openingReads.delete(sessionId);
    for (const fn of entry.waiting.splice(0)) fn();
  };
}

/**
 * Views that went away while the rest of their session's log was being read, and read it on
 * for the cache: one at a time, so that going through long sessions quickly does not queue
 * whole-log reads on the host in front of the session the user stops at.
 */
const MAX_BACKGROUND_READS = 1;
/** The session whose log is being read on for the cache, and that read: a view of it opened meanwhile waits for it instead of reading the whole log a second time. */
const backgroundRead = new Map<string, Promise<unknown>>();

/**
 * A session's transcript: subscribe to live events first, then replay the log, and fold both
 * by sequence number. No duplicate: anything at or below the last applied seq is dropped. No
 * gap: a live event that skips ahead (events published while the connection was down) is not
 * applied out of order; the missing stretch is read from the log first, and the log is read
 * again whenever the connection comes back. A session shown recently starts from its cached
 * fold (transcript-cache.ts) and reads only what came after it.
 */
export function useSessionStream(
  sessionId: string,
  onSwitch?: (toSessionId: string) => void,
): { transcript: Transcript; loading: boolean; readFailed: boolean; retry: () => void } {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const [transcript, setTranscript] = useState<Transcript>(() => transcriptCache.get(sessionId) ?? emptyTranscript);
  const [loading, setLoading] = useState(() => transcriptCache.get(sessionId) === null);
  /** The last read of the log failed (the conversation shown may be partial or behind): the view offers a retry. */
  const [readFailed, setReadFailed] = useState(false);
  const retryRef = useRef<() => void>(() => undefined);
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
    /**
     * The view showed the newest turns and went away (the user moved on) while the rest was
     * read: it is read on all the same, for the cache, so that coming back is the instant switch
     * it would have been had they stayed (one such read at a time, see backgroundRead).
     */
    let readOnForCache = false;
    /** The view went away and nobody reads on for the cache: the read stops here. */
    const gone = () => cancelled && !readOnForCache;
    const held: AgentEvent[] = [];
    /** The short read started as the app came here, if one was (taken below, once this view listens). */
    let tailAhead: Promise<TailRead> | null = null;
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
          /** Where the next page starts (one past the last row read: a page may leave rows out), or null once the log is read to its end. */
          let nextSeq: number | null = read.lastSeq + 1;
          if (read === emptyTranscript && !tailTried) {
            tailTried = true;
            const ahead = tailAhead;
            tailAhead = null;
            const tail = await (ahead ?? readTail(client, sessionId));
            if (cancelled) return;
            if (tail?.startSeq === 1) {
              // Short enough to read at once (the host's call): this was the log from its start.
              read = applyEvents(read, tail.events);
              nextSeq = tail.more ? tail.nextSeq : null;
            } else if (tail) {
              if (tail.events.length > 0 && !tail.more && tailFoldsAlone(tail.events)) {
                commit({ ...applyEvents(emptyTranscript, tail.events), partial: true });
                setLoading(false);
              }
              // An earlier view of this session is reading the whole log for the cache: wait for
              // that rather than read it a second time, then go on from its fold.
              const earlier = backgroundRead.get(sessionId);
              if (earlier) {
                await earlier.catch(() => undefined);
                if (gone()) return;
              }
              const kept = earlier ? transcriptCache.get(sessionId) : null;
              if (kept) {
                read = kept;
                nextSeq = kept.lastSeq + 1;
              }
              // The rest is what comes before the tail: read that, then fold the tail after it (not read twice).
              for (let from = 1; !kept && from < tail.startSeq; ) {
                const page = await client.invoke('agents.events.read', { sessionId, fromSeq: from, limit: Math.min(REPLAY_PAGE, tail.startSeq - from) });
                if (gone()) return;
                read = applyEvents(read, page.events);
                // A page that stopped short of its limit read the log to its end: nothing more before the tail.
                from = page.more ? page.nextSeq : tail.startSeq;
              }
              if (!kept) {
                read = applyEvents(read, tail.events);
                nextSeq = tail.more ? tail.nextSeq : null;
              }
            }
          }
          while (nextSeq !== null) {
            const page = await client.invoke('agents.events.read', { sessionId, fromSeq: nextSeq, limit: REPLAY_PAGE });
            if (gone()) return;
            read = applyEvents(read, page.events);
            nextSeq = page.more ? page.nextSeq : null;
          }
          if (cancelled) {
            // Read on for the cache (readOnForCache): a later view of this session may have kept a newer fold meanwhile.
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
        // Never onto the newest turns alone (a read of the rest failed): a /rewind folds turns
        // counted from the session's start. Held, and the log read again.
        if (reading || current.partial || e.seq > current.lastSeq + 1) {
          held.push(e);
          void sync(false);
        } else {
          commit(applyEvents(current, [e]));
        }
        // `/new` and `/resume` move the user along, but only when it happens live, not on replay.
        if (e.data.type === 'session.switched') switchRef.current?.(e.data.toSessionId);
      },
      sessionId,
    );
    // Listening now: the read started ahead hands over the events it heard meanwhile (held, as
    // live events during a read are) and stops listening. None if this view has a fold already.
    const ahead = current === emptyTranscript ? takeTailAhead(sessionId) : null;
    if (ahead) {
      tailAhead = ahead.tail;
      held.push(...ahead.events);
      ahead.off();
    }
    let wasClosed = false;
    const offStatus = client.transport.onStatus?.((s) => {
      if (s === 'closed') wasClosed = true;
      else if (s === 'open' && wasClosed) {
        wasClosed = false;
        void sync(false);
      }
    });
    /**
     * Every read of the log goes through here: its outcome is what the view says (readFailed,
     * with a retry). A failure is toasted once per run of failures, not for each live event
     * that tried again while the host could not answer.
     */
    let failing = false;
    const sync = (asked: boolean): Promise<void> =>
      catchUp().then(
        () => {
          if (cancelled) return;
          failing = false;
          setLoading(false);
          setReadFailed(false);
        },
        (e: unknown) => {
          if (cancelled) return;
          setLoading(false);
          setReadFailed(true);
          if (asked || !failing) toastError('Could not load the session history', e);
          failing = true;
        },
      );
    retryRef.current = () => void sync(true);
    setReadFailed(false);
    const opened = openingReadStarted(sessionId);
    void sync(true).finally(opened);
    // Counted once the cleanup below is sure to run.
    viewing.set(sessionId, (viewing.get(sessionId) ?? 0) + 1);
    return () => {
      cancelled = true;
      const views = (viewing.get(sessionId) ?? 1) - 1;
      if (views > 0) viewing.set(sessionId, views);
      else viewing.delete(sessionId);
      off();
      offStatus?.();
      retryRef.current = () => undefined;
      // Nothing read yet (left before the first answer): the cache keeps what it has.
      if (!current.partial && current !== emptyTranscript) transcriptCache.put(sessionId, current);
      else if (current.partial && reading && backgroundRead.size < MAX_BACKGROUND_READS) {
        // Left before the whole log was read: read on for the cache, one view at a time.
        readOnForCache = true;
        const onward = reading.finally(() => backgroundRead.delete(sessionId));
        backgroundRead.set(sessionId, onward);
        void onward.catch(() => undefined);
      }
    };
  }, [client, sessionId, toastError]);

  return { transcript, loading, readFailed, retry: () => retryRef.current() };
}
