import { describe, expect, it, vi } from 'vitest';
import { AppError, requests } from '../../../src-preload/contract';
import { Router } from '../../../src-main/bridge/router';
import { deepFreeze, isReusableAnswer, reusableAnswer } from '../../../src-main/bridge/reusable';
import { EventHub, Subscriptions } from '../../../src-main/bridge/event-hub';
import { createLogger } from '../../../src-main/platform/logger';

const ctx = { origin: 'test' as const, connectionId: 't' };

function router(lines: string[] = []) {
  return new Router(createLogger({ level: 'debug', sink: (l) => lines.push(l) }));
}

describe('Router', () => {
  it('rejects unknown channels without calling anything', async () => {
    const r = await router().dispatch('fs.readFile', { path: '/etc/passwd' }, ctx);
    expect(r).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    const proto = await router().dispatch('__proto__', {}, ctx);
    expect(proto).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
  });

  it('validates input before the handler runs', async () => {
    const r = router();
    let called = false;
    r.handle('projects.add', () => {
      called = true;
      throw new Error('unreachable');
    });
    const res = await r.dispatch('projects.add', { path: 7 }, ctx);
    expect(called).toBe(false);
    expect(res).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    if (!res.ok) expect(res.error.message).toContain('path');
  });

  it('passes expected failures through with their code and details', async () => {
    const r = router();
    r.handle('projects.remove', () => {
      throw new AppError('not_found', 'That project is gone.', { id: 'x' });
    });
    const res = await r.dispatch('projects.remove', { id: 'abcdef-123' }, ctx);
    expect(res).toEqual({ ok: false, error: { code: 'not_found', message: 'That project is gone.', details: { id: 'x' } } });
  });

  it('reduces unexpected failures to internal errors without a stack', async () => {
    const lines: string[] = [];
    const r = router(lines);
    r.handle('projects.list', () => {
      throw new TypeError('boom at /secret/path.ts:12');
    });
    const res = await r.dispatch('projects.list', {}, ctx);
    expect(res.ok).toBe(false);
    if (!res.ok) {
      expect(res.error.code).toBe('internal');
      expect(JSON.stringify(res.error)).not.toMatch(/\bat \S+:\d+:\d+/);
      expect(res.error).not.toHaveProperty('stack');
    }
    expect(lines.join('\n')).toContain('handler failed');
  });

  it('strips fields outside the output schema so nothing extra can leak', async () => {
    const r = router();
    r.handle('settings.get', () => ({ theme: 'dark', terminalFontSize: 14, apiKey: 'sk-secret-value' }) as never);
    const res = await r.dispatch('settings.get', {}, ctx);
    expect(res).toEqual({ ok: true, value: { theme: 'dark', terminalFontSize: 14 } });
  });

  it('refuses to answer with a value that breaks the contract', async () => {
    const r = router();
    r.handle('settings.get', () => ({ theme: 'neon' }) as never);
    expect(await r.dispatch('settings.get', {}, ctx)).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it('checks a reusable answer once per channel and hands out what that check made, deep-frozen; any other answer at every call', async () => {
    const r = router();
    const reused = reusableAnswer({ theme: 'dark', terminalFontSize: 14, apiKey: 'sk-secret-value' });
    let answer: object = reused;
    r.handle('settings.get', () => answer as never);
    const check = vi.spyOn(requests['settings.get'].output, 'safeParse');
    try {
      const first = await r.dispatch('settings.get', {}, ctx);
      const again = await r.dispatch('settings.get', {}, ctx);
      expect(check).toHaveBeenCalledTimes(1);
      expect(again).toEqual({ ok: true, value: { theme: 'dark', terminalFontSize: 14 } });
      // The very value the first check made: the host writes it out once, and no caller can change it.
      expect((again as { value: unknown }).value).toBe((first as { value: unknown }).value);
      expect(Object.isFrozen((again as { value: unknown }).value)).toBe(true);
      expect(isReusableAnswer((again as { value: unknown }).value)).toBe(true);

      // A frozen answer that is not marked reusable, a new answer, one outside the contract: checked every time.
      answer = Object.freeze({ theme: 'light', terminalFontSize: 12 });
      await r.dispatch('settings.get', {}, ctx);
      await r.dispatch('settings.get', {}, ctx);
      expect(check).toHaveBeenCalledTimes(3);
      answer = reusableAnswer({ theme: 'neon' });
      expect(await r.dispatch('settings.get', {}, ctx)).toMatchObject({ ok: false, error: { code: 'internal' } });
      expect(await r.dispatch('settings.get', {}, ctx)).toMatchObject({ ok: false, error: { code: 'internal' } });
      expect(check).toHaveBeenCalledTimes(5);
    } finally {
      check.mockRestore();
    }
    // The same reusable object answered on another channel is checked by that channel's schema.
    r.handle('projects.list', () => reused as never);
    expect(await r.dispatch('projects.list', {}, ctx)).toMatchObject({ ok: false, error: { code: 'internal' } });
  });

  it('freezes everything in a reusable answer it hands out, nested objects and arrays included', async () => {
    const r = router();
    const listed = reusableAnswer({ projects: [{ projectId: null, name: 'p', repoRoot: '/r', features: [], problems: [], error: null }] });
    r.handle('features.list', () => listed as never);
    const res = await r.dispatch('features.list', {}, ctx);
    const value = (res as { value: { projects: Array<{ features: unknown[] }> } }).value;
    expect(Object.isFrozen(value.projects)).toBe(true);
    expect(Object.isFrozen(value.projects[0])).toBe(true);
    expect(() => value.projects[0]!.features.push('x')).toThrow(TypeError);
  });

  it('deepFreeze goes into parts already frozen on their own (freezing is shallow)', () => {
    const inner = { list: [{ n: 1 }] };
    const value = deepFreeze({ outer: Object.freeze({ inner }) });
    expect(Object.isFrozen(value.outer.inner)).toBe(true);
    expect(Object.isFrozen(inner.list[0])).toBe(true);
  });

  it('lists channels with no handler', () => {
    const r = router();
    r.handle('projects.list', () => []);
    expect(r.unhandled()).toContain('projects.add');
    expect(r.unhandled()).not.toContain('projects.list');
  });
});

describe('EventHub', () => {
  it('validates payloads and delivers only subscribed topics', () => {
    const hub = new EventHub();
    const got: unknown[] = [];
    const subs = new Subscriptions(hub, (e) => got.push(e.payload));
    hub.publish('settings.changed', { theme: 'dark', terminalFontSize: 13 });
    expect(got).toHaveLength(0);
    subs.add('settings.changed', undefined);
    hub.publish('settings.changed', { theme: 'light', terminalFontSize: 13 });
    expect(got).toEqual([{ theme: 'light', terminalFontSize: 13 }]);
    expect(() => hub.publish('settings.changed', { theme: 'neon' } as never)).toThrow();
    subs.dispose();
    expect(hub.listenerCount).toBe(0);
  });
});
