import { describe, expect, it } from 'vitest';
import { readHostFrame } from '../../../src-preload/contract/host-frames';
import { HostFrame } from '../../../src-preload/contract/wire';

/** One of each frame the host sends, as JSON would bring it. */
const VALID: unknown[] = [
  { type: 'result', id: 7, result: { ok: true, value: { projects: [] } } },
  { type: 'result', id: 0, result: { ok: true, value: null } },
  { type: 'result', id: 8, result: { ok: false, error: { code: 'not_found', message: 'No such feature.' } } },
  { type: 'result', id: 9, result: { ok: false, error: { code: 'invalid_input', message: 'Bad.', details: { path: ['slug'] } } } },
  { type: 'event', topic: 'features.changed', payload: { projectId: null, repoRoot: '/r' } },
  { type: 'event', topic: 'terminals.data', key: 'term-abcdef', payload: 'x' },
  { type: 'refused', topic: 'agents.events', key: 'k', error: { code: 'limit_exceeded', message: 'Too many subscriptions.' } },
  { type: 'refused', error: { code: 'forbidden', message: 'No.' } },
  { type: 'direct', ticket: 'abc' },
  { type: 'directLost' },
  { type: 'directRouted', key: 'term-abcdef' },
];

/** Values each field is replaced with in turn: every type JSON has, and sizes at the limits. */
const REPLACEMENTS: unknown[] = [undefined, null, true, 0, 1.5, -1, 2 ** 53, -(2 ** 53), 2 ** 53 - 1, '', 'x', 'x'.repeat(100), 'x'.repeat(101), 'x'.repeat(200), 'x'.repeat(201), [], {}, { ok: true }, 'internal', 'no_such_code'];

function mutations(frame: Record<string, unknown>): unknown[] {
  const out: unknown[] = [];
  const visit = (obj: Record<string, unknown>, rebuild: (next: Record<string, unknown>) => unknown) => {
    for (const key of [...Object.keys(obj), 'extra']) {
      for (const r of REPLACEMENTS) {
        const next = { ...obj };
        if (r === undefined) delete next[key];
        else next[key] = r;
        out.push(rebuild(next));
      }
      const child = obj[key];
      if (typeof child === 'object' && child !== null && !Array.isArray(child)) {
        visit(child as Record<string, unknown>, (c) => rebuild({ ...obj, [key]: c }));
      }
    }
  };
  visit(frame, (f) => f);
  return out;
}

describe('readHostFrame (the client reads host frames without zod)', () => {
  it('accepts every frame the host sends, as they are', () => {
    for (const f of VALID) {
      expect(HostFrame.safeParse(f).success).toBe(true);
      expect(readHostFrame(f)).toEqual(f);
    }
  });

  it('accepts and refuses exactly what the contract schema does, field by field', () => {
    const cases = [...VALID.flatMap((f) => mutations(f as Record<string, unknown>)), null, [], 'result', 3, { type: 'nope' }, { type: ['result'] }];
    let refused = 0;
    for (const c of cases) {
      const schema = HostFrame.safeParse(c).success;
      expect({ frame: c, accepted: readHostFrame(c) !== null }).toEqual({ frame: c, accepted: schema });
      if (!schema) refused++;
    }
    // The mutations reach both sides of the line, not only frames both accept.
    expect(cases.length).toBeGreaterThan(1000);
    expect(refused).toBeGreaterThan(300);
    expect(cases.length - refused).toBeGreaterThan(300);
  });
});
