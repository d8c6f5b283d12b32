import { describe, expect, it } from 'vitest';
import { ListenerRegistry } from '../../../src-preload/client/listeners';

describe('ListenerRegistry', () => {
  it('subscribes the peer once per (topic, key) and unsubscribes when the last listener leaves', () => {
    const calls: string[] = [];
    const reg = new ListenerRegistry(
      (t, k) => calls.push(`+${t}/${k ?? ''}`),
      (t, k) => calls.push(`-${t}/${k ?? ''}`),
    );
    const got: unknown[] = [];
    const a = reg.add('agents.event', 'ses-1', (p) => got.push(['a', p]));
    const b = reg.add('agents.event', 'ses-1', (p) => got.push(['b', p]));
    const c = reg.add('agents.event', 'ses-2', (p) => got.push(['c', p]));
    reg.dispatch('agents.event', 'ses-1', 1);
    reg.dispatch('agents.event', undefined, 2);
    expect(got).toEqual([
      ['a', 1],
      ['b', 1],
    ]);
    a();
    a();
    expect(calls).toEqual(['+agents.event/ses-1', '+agents.event/ses-2']);
    b();
    c();
    expect(calls).toEqual(['+agents.event/ses-1', '+agents.event/ses-2', '-agents.event/ses-1', '-agents.event/ses-2']);
    expect(reg.pairs()).toEqual([]);
  });
});
