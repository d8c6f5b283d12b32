import { describe, expect, it } from 'vitest';
import { requests, events } from '../../../src-preload/contract';

const id = 'term-0123456789abcdef';
const att = 'att-0123456789abcdef';

describe('terminal contract', () => {
  it('accepts well-formed requests and fills size defaults', () => {
    expect(requests['terminals.create'].input.parse({ target: { kind: 'path', path: '/tmp' } })).toEqual({ target: { kind: 'path', path: '/tmp' }, cols: 80, rows: 24 });
    expect(requests['terminals.kill'].input.parse({ id })).toEqual({ id, signal: 'SIGTERM' });
    expect(requests['terminals.ack'].input.parse({ id, attachmentId: att, chars: 5_000 })).toBeTruthy();
  });

  const bad: Array<[keyof typeof requests, unknown]> = [
    ['terminals.create', {}],
    ['terminals.create', { target: { kind: 'path' } }],
    ['terminals.create', { target: { kind: 'path', path: '' } }],
    ['terminals.create', { target: { kind: 'path', path: '/tmp\0/x' } }],
    ['terminals.create', { target: { kind: 'path', path: '/tmp' }, cols: 1.5 }],
    ['terminals.create', { target: { kind: 'path', path: '/tmp' }, cols: 1 }],
    ['terminals.create', { target: { kind: 'path', path: '/tmp' }, rows: 0 }],
    ['terminals.create', { target: { kind: 'path', path: '/tmp' }, rows: 501 }],
    ['terminals.create', { target: { kind: 'project', projectId: 'UPPER' } }],
    ['terminals.create', { target: { kind: 'project', projectId: 'abcdef', path: '/' } }],
    ['terminals.create', { target: { kind: 'docker', path: '/' } }],
    ['terminals.create', { target: { kind: 'path', path: '/tmp' }, extra: 1 }],
    ['terminals.write', { id, data: 42 }],
    ['terminals.write', { id, data: 'x'.repeat(64 * 1024 + 1) }],
    ['terminals.write', { id: 'term-../../x', data: 'x' }],
    ['terminals.write', { id, data: '' }],
    ['terminals.resize', { id, cols: 80 }],
    ['terminals.resize', { id, cols: 5_000, rows: 10 }],
    ['terminals.kill', { id, signal: 'SIGUSR1' }],
    ['terminals.attach', { id: null }],
    ['terminals.ack', { id, attachmentId: att, chars: 0 }],
    ['terminals.ack', { id, attachmentId: att, chars: Number.NaN }],
    ['terminals.ack', { id, attachmentId: 'att-x', chars: 10 }],
    ['terminals.detach', { id }],
    ['terminals.list', { all: true }],
  ];
  it.each(bad)('%s rejects %j', (channel, input) => {
    expect(requests[channel].input.safeParse(input).success).toBe(false);
  });

  it('declares keyed data and status topics and an unkeyed list topic', () => {
    expect(events['terminals.data'].keyed).toBe(true);
    expect(events['terminals.status'].keyed).toBe(true);
    expect(events['terminals.changed'].keyed).toBe(false);
    expect(events['terminals.data'].payload.safeParse({ offset: -1, data: 'x' }).success).toBe(false);
  });
});
