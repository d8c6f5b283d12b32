/**
 * The pull request loop over the bridge: its channels validate their input (a slug that is a path,
 * an unknown merge method), answer in the contract's shape, and its changes are published.
 */
import { describe, expect, it } from 'vitest';
import type { PrBoardEntry, PrStatus } from '../../../../src-preload/contract';
import { deliverAndFollow, PR_URL, prSetup, prTestState } from './support';

const ctx = { origin: 'test' as const, connectionId: 'c' };
const t = prTestState();

describe('the pull request loop over the bridge', () => {
  it('status, list, follow and merge; bad input refused at the bridge; changes published', async () => {
    const { repo, h } = await prSetup(t, 'APPROVED', ['widget', 'other']);
    const changed: Array<{ projectPath: string; slug: string }> = [];
    h.app.hub.subscribe((e) => {
      if (e.topic === 'features.pr.changed') changed.push(e.payload as { projectPath: string; slug: string });
    });
    const call = (channel: string, payload: unknown) => h.app.router.dispatch(channel, payload, ctx);
    const project = await h.app.projects.add(repo.repo);
    await deliverAndFollow(h, repo);

    const status = (await call('features.pr.status', { projectId: project.id, slug: 'widget' })) as { ok: true; value: PrStatus };
    expect(status.ok).toBe(true);
    expect(status.value.follow).toMatchObject({ number: 7, status: 'ready', url: PR_URL, checks: [{ name: 'test', bucket: 'pass' }] });
    expect(status.value).toMatchObject({ maxFixRounds: 3, autoMerge: 'off', gh: { ready: true, message: null } });
    expect(await call('features.pr.status', { projectId: project.id, slug: 'other' })).toMatchObject({ ok: true, value: { follow: null, rounds: [], events: [] } });
    const list = (await call('features.pr.list', {})) as { ok: true; value: { prs: PrBoardEntry[] } };
    expect(list.value.prs).toEqual([{ projectPath: repo.repo, slug: 'widget', number: 7, status: 'ready', reason: null }]);
    expect(changed).toContainEqual({ projectPath: repo.repo, slug: 'widget' });

    expect(await call('features.pr.status', { projectId: project.id, slug: '../widget' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('features.pr.merge', { projectId: project.id, slug: 'widget', method: 'octopus' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('features.pr.merge', { projectId: project.id, slug: 'widget' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('features.pr.follow', { projectId: project.id, slug: 'widget', follow: 'yes' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('features.pr.merge', { projectId: project.id, slug: 'other', method: 'squash' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await call('features.pr.follow', { projectId: project.id, slug: 'other', follow: true })).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining('no pull request to follow') } });

    expect(await call('features.pr.follow', { projectId: project.id, slug: 'widget', follow: false })).toMatchObject({ ok: true, value: { follow: { status: 'stopped', nextPollAt: null } } });
    expect(await call('features.pr.follow', { projectId: project.id, slug: 'widget', follow: true })).toMatchObject({ ok: true, value: { follow: { status: 'watching' } } });
    expect(await call('features.pr.merge', { projectId: project.id, slug: 'widget', method: 'merge' })).toEqual({ ok: true, value: { merged: true, message: 'Merged pull request #7 (merge).' } });
    expect(await call('features.pr.status', { projectId: project.id, slug: 'widget' })).toMatchObject({ ok: true, value: { follow: { status: 'merged' } } });
  }, 120_000);
});
