import { describe, expect, it } from 'vitest';
import { events, requests, type Channel } from '../../../src-preload/contract';
import { ClientFrame, HostFrame, Result } from '../../../src-preload/contract/wire';

/** Values no request input accepts: wrong types at the top level. */
const NOT_AN_OBJECT: unknown[] = [null, 42, 'text', true, [], [1, 2], () => 1];

describe('every request channel', () => {
  for (const [name, spec] of Object.entries(requests)) {
    it(`${name} rejects inputs that are not objects`, () => {
      for (const bad of NOT_AN_OBJECT) expect(spec.input.safeParse(bad).success, `${name} accepted ${String(bad)}`).toBe(false);
    });
    it(`${name} rejects unknown fields`, () => {
      const r = spec.input.safeParse({ __unexpected: 1 });
      expect(r.success, `${name} accepted an unknown field`).toBe(false);
    });
    it(`${name} has a summary`, () => {
      expect(spec.summary.length).toBeGreaterThan(10);
    });
  }
});

describe('every event topic', () => {
  for (const [name, spec] of Object.entries(events)) {
    it(`${name} rejects payloads of the wrong type`, () => {
      for (const bad of [null, 42, 'text', true]) expect(spec.payload.safeParse(bad).success, `${name} accepted ${String(bad)}`).toBe(false);
    });
  }
});

function input(channel: Channel, value: unknown) {
  return requests[channel].input.safeParse(value);
}

describe('projects inputs', () => {
  it('projects.add needs a usable path', () => {
    expect(input('projects.add', { path: '/home/me/app' }).success).toBe(true);
    expect(input('projects.add', {}).success).toBe(false);
    expect(input('projects.add', { path: '' }).success).toBe(false);
    expect(input('projects.add', { path: '   ' }).success).toBe(false);
    expect(input('projects.add', { path: 42 }).success).toBe(false);
    expect(input('projects.add', { path: '/tmp/a\0b' }).success).toBe(false);
    expect(input('projects.add', { path: '/' + 'a'.repeat(5000) }).success).toBe(false);
  });
  it('project ids are checked before any handler sees them', () => {
    expect(input('projects.remove', { id: 'eb93543d-f337-41db-9630-4d5812e3f759' }).success).toBe(true);
    expect(input('projects.remove', { id: '../../etc' }).success).toBe(false);
    expect(input('projects.remove', { id: "1' OR '1'='1" }).success).toBe(false);
    expect(input('projects.remove', { id: '' }).success).toBe(false);
    expect(input('projects.refresh', {}).success).toBe(true);
  });
});

describe('settings and shell inputs', () => {
  it('settings.update accepts known keys with valid values only', () => {
    expect(input('settings.update', { theme: 'dark' }).success).toBe(true);
    expect(input('settings.update', { theme: 'purple' }).success).toBe(false);
    expect(input('settings.update', { terminalFontSize: 7 }).success).toBe(false);
    expect(input('settings.update', { terminalFontSize: 12.5 }).success).toBe(false);
    expect(input('settings.update', { dataDir: '/tmp' }).success).toBe(false);
  });
  it('shell.openExternal only opens http(s) links', () => {
    expect(input('shell.openExternal', { url: 'https://example.com/x' }).success).toBe(true);
    expect(input('shell.openExternal', { url: 'javascript:alert(1)' }).success).toBe(false);
    expect(input('shell.openExternal', { url: 'file:///etc/passwd' }).success).toBe(false);
    expect(input('shell.openExternal', { url: 'not a url' }).success).toBe(false);
  });
});

describe('wire frames', () => {
  it('accepts well-formed client frames and rejects the rest', () => {
    expect(ClientFrame.safeParse({ type: 'invoke', id: 1, channel: 'projects.list', input: {} }).success).toBe(true);
    expect(ClientFrame.safeParse({ type: 'subscribe', topic: 'projects.changed' }).success).toBe(true);
    expect(ClientFrame.safeParse({ type: 'invoke', id: -1, channel: 'x', input: {} }).success).toBe(false);
    expect(ClientFrame.safeParse({ type: 'invoke', id: 1.5, channel: 'x' }).success).toBe(false);
    expect(ClientFrame.safeParse({ type: 'exec', cmd: 'rm -rf /' }).success).toBe(false);
    expect(ClientFrame.safeParse({ type: 'subscribe', topic: 'x', key: '' }).success).toBe(false);
    expect(ClientFrame.safeParse('invoke').success).toBe(false);
  });
  it('results are a value or a typed error', () => {
    expect(Result.safeParse({ ok: true, value: [1] }).success).toBe(true);
    expect(Result.safeParse({ ok: false, error: { code: 'not_found', message: 'gone' } }).success).toBe(true);
    expect(Result.safeParse({ ok: false, error: { code: 'made_up', message: 'x' } }).success).toBe(false);
    expect(HostFrame.safeParse({ type: 'result', id: 1, result: { ok: true, value: null } }).success).toBe(true);
  });
});
