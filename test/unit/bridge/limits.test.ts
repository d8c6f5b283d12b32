import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { EventHub, Subscriptions } from '../../../src-main/bridge/event-hub';
import { InFlightRequests } from '../../../src-main/bridge/limits';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (e) {
    return e instanceof AppError ? e.code : 'not an AppError';
  }
  return undefined;
}

describe('Subscriptions bound', () => {
  it('refuses a new pair past the limit, accepts pairs it holds, and makes room on remove', () => {
    const hub = new EventHub();
    const subs = new Subscriptions(hub, () => undefined, 3);
    subs.add('agents.event', 'a');
    subs.add('agents.event', 'b');
    subs.add('settings.changed', undefined);
    expect(codeOf(() => subs.add('agents.event', 'c'))).toBe('limit_exceeded');
    expect(codeOf(() => subs.add('agents.event', 'a'))).toBeUndefined();
    expect(subs.size).toBe(3);
    subs.remove('agents.event', 'a');
    expect(codeOf(() => subs.add('agents.event', 'c'))).toBeUndefined();
  });

  it('dispose releases the hub listener and every pair, twice is harmless, later adds are ignored', () => {
    const hub = new EventHub();
    const subs = new Subscriptions(hub, () => undefined, 10);
    subs.add('agents.event', 'a');
    expect(hub.listenerCount).toBe(1);
    subs.dispose();
    subs.dispose();
    subs.add('agents.event', 'b');
    expect(subs.size).toBe(0);
    expect(hub.listenerCount).toBe(0);
  });
});

describe('InFlightRequests', () => {
  it('admits up to the count, then refuses until one finishes; finishing twice counts once', () => {
    const gate = new InFlightRequests(2, 1_000);
    const a = gate.start(10);
    gate.start(10);
    expect(codeOf(() => gate.start(10))).toBe('limit_exceeded');
    a();
    a();
    expect(gate.size).toBe(1);
    expect(codeOf(() => gate.start(10))).toBeUndefined();
    expect(codeOf(() => gate.start(10))).toBe('limit_exceeded');
  });

  it('bounds bytes in flight but always admits one request whatever its size', () => {
    const gate = new InFlightRequests(10, 100);
    const big = gate.start(500);
    expect(codeOf(() => gate.start(1))).toBe('limit_exceeded');
    big();
    gate.start(60);
    expect(codeOf(() => gate.start(50))).toBe('limit_exceeded');
    expect(codeOf(() => gate.start(40))).toBeUndefined();
  });
});
