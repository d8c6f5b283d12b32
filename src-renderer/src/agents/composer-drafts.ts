import type { PendingImage } from './composer-logic';

/**
 * What the user typed in a session's composer and has not sent, per session. The composer is
 * remounted for every session shown, so without this a half-written message was gone as soon as
 * the user looked at another session (to answer an approval there, say).
 *
 * The text is kept in this profile's localStorage as well, so a reload (or, in the desktop app, a
 * restart) brings it back; written a moment after the typing stops and at once when the page
 * goes. Pasted images are kept for the page's life only: they may be megabytes each, more than
 * localStorage holds. Bounded: the most recent MAX_DRAFTS drafts, each up to MAX_DRAFT_CHARS.
 */
const STORAGE_KEY = 'flightdeck.composer.drafts';
export const MAX_DRAFTS = 50;
export const MAX_DRAFT_CHARS = 100_000;
const SAVE_AFTER_MS = 300;

interface Draft {
  text: string;
  /** When it was last changed (epoch ms): the oldest go first past MAX_DRAFTS. */
  at: number;
}

let drafts: Map<string, Draft> | null = null;
const images = new Map<string, PendingImage[]>();
let saveTimer: ReturnType<typeof setTimeout> | null = null;

function storage(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    // Storage switched off for this origin.
    return null;
  }
}

function loaded(): Map<string, Draft> {
  if (drafts) return drafts;
  drafts = new Map();
  try {
    const raw = storage()?.getItem(STORAGE_KEY);
    const parsed: unknown = raw ? JSON.parse(raw) : null;
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) {
      for (const [id, d] of Object.entries(parsed as Record<string, unknown>)) {
        const { text, at } = (d ?? {}) as Partial<Draft>;
        if (typeof text === 'string' && text.length > 0 && typeof at === 'number') drafts.set(id, { text: text.slice(0, MAX_DRAFT_CHARS), at });
      }
    }
  } catch {
    // Unreadable (another version's, or edited by hand): start without drafts.
  }
  if (typeof window !== 'undefined') window.addEventListener('pagehide', flushDrafts);
  return drafts;
}

/** The text left unsent in a session's composer ('' when none). */
export function draftText(sessionId: string): string {
  return loaded().get(sessionId)?.text ?? '';
}

/** Keeps (or, when empty, forgets) what a session's composer holds. */
export function keepDraft(sessionId: string, text: string): void {
  const all = loaded();
  const had = all.get(sessionId);
  if (text.trim().length === 0) {
    if (!had) return;
    all.delete(sessionId);
  } else {
    const kept = text.slice(0, MAX_DRAFT_CHARS);
    if (had?.text === kept) return;
    all.set(sessionId, { text: kept, at: Date.now() });
  }
  if (saveTimer === null) saveTimer = setTimeout(flushDrafts, SAVE_AFTER_MS);
}

/** Images pasted into a session's composer and not sent (this page only). */
export function draftImages(sessionId: string): PendingImage[] {
  return images.get(sessionId) ?? [];
}

export function keepDraftImages(sessionId: string, list: PendingImage[]): void {
  if (list.length === 0) images.delete(sessionId);
  else images.set(sessionId, list);
}

/** Writes the drafts to localStorage now (the newest MAX_DRAFTS). */
export function flushDrafts(): void {
  if (saveTimer !== null) clearTimeout(saveTimer);
  saveTimer = null;
  if (!drafts) return;
  const newest = [...drafts].sort((a, b) => b[1].at - a[1].at).slice(0, MAX_DRAFTS);
  if (newest.length < drafts.size) drafts = new Map(newest);
  const s = storage();
  if (!s) return;
  try {
    if (newest.length === 0) s.removeItem(STORAGE_KEY);
    else s.setItem(STORAGE_KEY, JSON.stringify(Object.fromEntries(newest)));
  } catch {
    // Full (QuotaExceededError): the drafts stay in this page.
  }
}

/** For tests: forget everything loaded, as a new page would. */
export function resetDraftsForTests(): void {
  if (saveTimer !== null) clearTimeout(saveTimer);
  saveTimer = null;
  drafts = null;
  images.clear();
}
