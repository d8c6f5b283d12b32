import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { draftText, flushDrafts, keepDraft, MAX_DRAFT_CHARS, MAX_DRAFTS, resetDraftsForTests } from '../../../src-renderer/src/agents/composer-drafts';

const KEY = 'flightdeck.composer.drafts';

/** A localStorage as a page has one; `full` makes every write throw as a full one does. */
function fakeStorage() {
  const m = new Map<string, string>();
  const s = {
    full: false,
    getItem: (k: string) => m.get(k) ?? null,
    setItem: (k: string, v: string) => {
      if (s.full) throw new DOMException('full', 'QuotaExceededError');
      m.set(k, v);
    },
    removeItem: (k: string) => void m.delete(k),
    raw: m,
  };
  return s;
}

let storage: ReturnType<typeof fakeStorage>;
beforeEach(() => {
  vi.useFakeTimers();
  storage = fakeStorage();
  vi.stubGlobal('localStorage', storage);
  resetDraftsForTests();
});
afterEach(() => {
  resetDraftsForTests();
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('composer drafts', () => {
  it('keeps each session’s text, writes it once the typing settles, and a new page reads it back', () => {
    keepDraft('s1', 'half');
    keepDraft('s1', 'half written');
    keepDraft('s2', 'other');
    expect(storage.raw.has(KEY)).toBe(false);
    vi.advanceTimersByTime(400);
    expect(JSON.parse(storage.raw.get(KEY)!)).toMatchObject({ s1: { text: 'half written' }, s2: { text: 'other' } });
    resetDraftsForTests();
    expect(draftText('s1')).toBe('half written');
    expect(draftText('s3')).toBe('');
  });

  it('forgets a box emptied (or only blanks left), and removes the entry when none is left', () => {
    keepDraft('s1', 'text');
    flushDrafts();
    keepDraft('s1', '  \n');
    flushDrafts();
    expect(storage.raw.has(KEY)).toBe(false);
    expect(draftText('s1')).toBe('');
  });

  it('keeps the newest MAX_DRAFTS drafts and cuts each at MAX_DRAFT_CHARS', () => {
    const now = Date.now();
    for (let i = 0; i < MAX_DRAFTS + 5; i++) {
      vi.setSystemTime(now + i);
      keepDraft(`s${i}`, `draft ${i}`);
    }
    keepDraft('long', 'x'.repeat(MAX_DRAFT_CHARS + 10));
    flushDrafts();
    const stored = JSON.parse(storage.raw.get(KEY)!) as Record<string, { text: string }>;
    expect(Object.keys(stored)).toHaveLength(MAX_DRAFTS);
    expect(stored.long!.text).toHaveLength(MAX_DRAFT_CHARS);
    expect(stored.s0).toBeUndefined();
    expect(stored[`s${MAX_DRAFTS + 4}`]!.text).toBe(`draft ${MAX_DRAFTS + 4}`);
  });

  it('a full storage or an unreadable entry loses nothing the page holds', () => {
    storage.raw.set(KEY, '{not json');
    expect(draftText('s1')).toBe('');
    storage.full = true;
    keepDraft('s1', 'kept in the page');
    expect(() => flushDrafts()).not.toThrow();
    expect(draftText('s1')).toBe('kept in the page');
  });
});
