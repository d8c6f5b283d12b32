import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { CARET_RESTING_CLASS, restCaretWhenIdle, type CaretDocument } from '../../../src-renderer/src/lib/caret-rest';

/** A document stand-in: real events, and a root element's class list that counts its writes. */
function fakeDocument() {
  const target = new EventTarget();
  const set = new Set<string>();
  const writes = { count: 0 };
  const doc: CaretDocument & { fire(type: string): void; resting(): boolean } = {
    addEventListener: (type, l, o) => target.addEventListener(type, l, o),
    removeEventListener: (type, l, o) => target.removeEventListener(type, l, o),
    documentElement: {
      classList: {
        contains: (c) => set.has(c),
        add: (c) => void (writes.count++, set.add(c)),
        remove: (c) => void (writes.count++, set.delete(c)),
      },
    },
    fire: (type) => void target.dispatchEvent(new Event(type)),
    resting: () => set.has(CARET_RESTING_CLASS),
  };
  return { doc, writes };
}

describe('restCaretWhenIdle', () => {
  beforeEach(() => void vi.useFakeTimers());
  afterEach(() => void vi.useRealTimers());

  it('stops the blinking after the quiet time, and each key or click starts it again', () => {
    const { doc } = fakeDocument();
    const stop = restCaretWhenIdle(doc, 10_000, () => Date.now());
    vi.advanceTimersByTime(9_000);
    expect(doc.resting()).toBe(false);
    vi.advanceTimersByTime(1_000);
    expect(doc.resting()).toBe(true);
    doc.fire('keydown');
    expect(doc.resting()).toBe(false);
    vi.advanceTimersByTime(10_000);
    expect(doc.resting()).toBe(true);
    doc.fire('pointerdown');
    expect(doc.resting()).toBe(false);
    stop();
  });

  it('counts the quiet time from the last activity, with one timer per quiet period', () => {
    const { doc } = fakeDocument();
    const stop = restCaretWhenIdle(doc, 10_000, () => Date.now());
    for (let i = 0; i < 8; i++) {
      vi.advanceTimersByTime(2_000);
      doc.fire('input');
    }
    expect(vi.getTimerCount()).toBe(1);
    vi.advanceTimersByTime(9_999);
    expect(doc.resting()).toBe(false);
    vi.advanceTimersByTime(1);
    expect(doc.resting()).toBe(true);
    // At rest nothing is scheduled: an idle page does nothing.
    expect(vi.getTimerCount()).toBe(0);
    stop();
  });

  it('typing while the caret blinks does not touch the root element', () => {
    const { doc, writes } = fakeDocument();
    const stop = restCaretWhenIdle(doc, 10_000, () => Date.now());
    for (let i = 0; i < 50; i++) doc.fire('keydown');
    expect(writes.count).toBe(0);
    stop();
  });

  it('stopping it leaves the caret blinking and nothing scheduled', () => {
    const { doc } = fakeDocument();
    const stop = restCaretWhenIdle(doc, 10_000, () => Date.now());
    vi.advanceTimersByTime(10_000);
    stop();
    expect(doc.resting()).toBe(false);
    doc.fire('keydown');
    expect(vi.getTimerCount()).toBe(0);
  });
});
