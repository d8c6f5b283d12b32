import { describe, expect, it } from 'vitest';
import { holdQueue, MAX_QUEUED_INPUTS, parseQueue, queueOf, withQueue } from '../../../src-main/agents/input-queue';

describe('the stored input queue', () => {
  it('keeps well-formed entries and drops malformed ones (a hand-edited database)', () => {
    const good = { id: 'q-abc123def', text: 'next', queuedAt: 5 };
    expect(parseQueue(null)).toEqual([]);
    expect(parseQueue('[]')).toEqual([]);
    expect(
      parseQueue([
        good,
        { id: 'not-an-id', text: 'x' },
        { id: 'q-abc123deg', text: '   ' },
        { id: 'q-abc123deh', text: 3 },
        null,
        'q-abc123dei',
        { id: 'q-abc123dej', text: 'with images', images: [{ mediaType: 'image/png', data: 'iVBORw0K' }, { mediaType: 'text/html', data: 'PGI+' }, { data: 42 }] },
      ]),
    ).toEqual([good, { id: 'q-abc123dej', text: 'with images', images: [{ mediaType: 'image/png', data: 'iVBORw0K' }], queuedAt: 0 }]);
    const many = Array.from({ length: MAX_QUEUED_INPUTS + 10 }, (_, i) => ({ id: `q-abc${String(i).padStart(4, '0')}`, text: `m${i}`, queuedAt: i }));
    expect(parseQueue(many)).toHaveLength(MAX_QUEUED_INPUTS);
  });

  it('holds only a queue that has something in it, and an emptied queue leaves no trace in the state', () => {
    const base = { undo: [] };
    expect(holdQueue(base, 'interrupted')).toEqual(base);
    const one = withQueue(base, [{ id: 'q-abc123def', text: 'a', queuedAt: 1 }]);
    expect(holdQueue(one, 'interrupted').queueHeld).toBe('interrupted');
    expect(withQueue(holdQueue(one, 'interrupted'), [])).toEqual(base);
    expect(queueOf(withQueue(one, queueOf(one), null))).toHaveLength(1);
    expect(withQueue(holdQueue(one, 'x'), queueOf(one), null).queueHeld).toBeUndefined();
  });
});
