/**
 * The pull request loop over the bridge: its channels validate their input (a slug that is a path,
 * an unknown merge method), answer in the contract's shape, and its changes are published.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { PrBoardEntry, PrStatus } from '../../../../src-preload/contract';
import { waitFor } from '../../../support/processes';
import { configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, text, VERIFY_PASS, withFakeGh, write, type RunHarness, type RunRepo } from '../run/support';

const ctx = { origin: 'test' as const, connectionId: 'c' };
let repo: RunRepo | null = null;
let h: RunHarness | null = null;
let gh: ReturnType<typeof withFakeGh> | null = null;
const savedEnv = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };
afterEach(async () => {
  process.env.PATH = savedEnv.PATH;
  if (savedEnv.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
  else process.env.GH_CONFIG_DIR = savedEnv.GH_CONFIG_DIR;
  await h?.cleanup();
  repo?.cleanup();
  gh?.cleanup();
  h = repo = gh = null;
});

const PR_URL = 'https://github.com/acme/widgets/pull/7';

describe('the pull request loop over the bridge', () => {
  it('status, list, follow and merge; bad input refused at the bridge; changes published', async () => {
    repo = makeRunRepo({ remote: 'github', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') });
    gh = withFakeGh({ prs: [], pull: { number: 7, url: PR_URL, origin: repo.origin, branch: 'feature/widget', stages: [{ checks: [{ name: 'test', bucket: 'pass', workflow: 'CI', link: '' }], reviewDecision: 'APPROVED' }] } });
    process.env.PATH = gh.env.PATH;
    process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
    await planFeature(repo.repo, 'widget', ['library']);
    await planFeature(repo.repo, 'other', ['library']);
    h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), VERIFY_PASS, text(`Opened the pull request: ${PR_URL}`)]);
    const changed: Array<{ projectPath: string; slug: string }> = [];
    h.app.hub.subscribe((e) => {
      if (e.topic === 'features.pr.changed') changed.push(e.payload as { projectPath: string; slug: string });
    });
    const call = (channel: string, payload: unknown) => h!.app.router.dispatch(channel, payload, ctx);
    const project = await h.app.projects.add(repo.repo);
    await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' })).done;
    await waitFor(() => h!.app.prFollow.repo.get(repo!.repo, 'widget'), 'the PR followed');
    await h.app.prFollow.look(repo.repo, 'widget');

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
