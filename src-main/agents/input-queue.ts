import { randomBytes } from 'node:crypto';
import { ImageAttachment } from '../../src-preload/contract';
import type { SessionState } from './store/session-repo';

/**
 * Messages typed while a session's turn runs, kept in the session's state in the database: the
 * main process decides whether an input starts a turn or waits (the renderer's view of the
 * status can lag by a frame, and a decision made there lost inputs at a turn's start and end).
 * Pure functions over the state; the agent service applies them inside one synchronous step.
 */

export interface QueuedInputRecord {
  id: string;
  text: string;
  images?: ImageAttachment[];
  queuedAt: number;
}

/**
 * More than this many waiting messages is a held-down Enter, not a plan: the next one is refused
 * (the composer keeps its text) instead of silently dropped.
 */
export const MAX_QUEUED_INPUTS = 20;

export const QUEUED_ID = /^q-[a-z0-9]{6,40}$/;

export function newQueuedId(): string {
  return `q-${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;
}

export const queueOf = (state: SessionState): readonly QueuedInputRecord[] => state.queue ?? [];

/** The state with these waiting messages (the fields are left out when there are none). */
export function withQueue(state: SessionState, items: readonly QueuedInputRecord[], held: string | null | undefined = state.queueHeld): SessionState {
  const { queue: _q, queueHeld: _h, ...rest } = state;
  if (items.length === 0) return rest;
  return { ...rest, queue: [...items], ...(held ? { queueHeld: held } : {}) };
}

/** Holds the waiting messages: the next turn is not started on its own (the user sends or removes them). */
export function holdQueue(state: SessionState, reason: string): SessionState {
  return withQueue(state, queueOf(state), queueOf(state).length > 0 ? reason : null);
}

/** Reads the queue back from stored JSON, dropping anything malformed (a hand-edited database). */
export function parseQueue(raw: unknown): QueuedInputRecord[] {
  if (!Array.isArray(raw)) return [];
  const out: QueuedInputRecord[] = [];
  for (const x of raw.slice(0, MAX_QUEUED_INPUTS) as unknown[]) {
    if (!x || typeof x !== 'object') continue;
    const r = x as Record<string, unknown>;
    if (typeof r.id !== 'string' || !QUEUED_ID.test(r.id) || typeof r.text !== 'string' || r.text.trim() === '') continue;
    const images = Array.isArray(r.images)
      ? (r.images as unknown[]).flatMap((i) => {
          const ok = ImageAttachment.safeParse(i);
          return ok.success ? [ok.data] : [];
        })
      : [];
    out.push({ id: r.id, text: r.text, ...(images.length > 0 ? { images } : {}), queuedAt: typeof r.queuedAt === 'number' ? r.queuedAt : 0 });
  }
  return out;
}
