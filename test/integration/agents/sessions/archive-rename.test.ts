import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../../../support/app';
import { makeRepo } from '../../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});
const ctx = { origin: 'test' as const, connectionId: 't' };

describe('sessions: rename and archive over the bridge', () => {
  it('renames, archives and unarchives; archived survives a restart and other settings are kept', async () => {
    const repo = makeRepo('fd-archive-');
    cleanups.push(repo.cleanup);
    const first = await startTestApp();
    cleanups.push(() => first.cleanup());
    const created = (await first.app.router.dispatch('agents.sessions.create', { root: repo.path, sandbox: 'read-only' }, ctx)) as { ok: true; value: { id: string; archived?: boolean } };
    expect(created.ok).toBe(true);
    const id = created.value.id;
    expect(created.value.archived).toBe(false);
    expect(await first.app.router.dispatch('agents.sessions.update', { sessionId: id, title: 'Login form', archived: true }, ctx)).toMatchObject({ ok: true, value: { title: 'Login form', archived: true, sandbox: 'read-only' } });
    expect(await first.app.router.dispatch('agents.sessions.update', { sessionId: id, title: '   ' }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    first.app.dispose();

    const second = await startTestApp(first.dataDir);
    cleanups.push(() => second.app.dispose());
    expect(await second.app.router.dispatch('agents.sessions.get', { sessionId: id }, ctx)).toMatchObject({ ok: true, value: { title: 'Login form', archived: true, sandbox: 'read-only' } });
    expect(await second.app.router.dispatch('agents.sessions.update', { sessionId: id, archived: false }, ctx)).toMatchObject({ ok: true, value: { archived: false, sandbox: 'read-only' } });
  });
});
