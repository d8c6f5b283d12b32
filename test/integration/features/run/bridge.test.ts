import { afterEach, describe, expect, it } from 'vitest';
import type { FeatureRunEvent, FeatureRunInfo } from '../../../../src-preload/contract';
import { cleanupRunTest, configYaml, makeRunRepo, planFeature, runHarness, runTest, SUM_JS, text, write } from './support';

const ctx = { origin: 'test' as const, connectionId: 'c' };
const t = runTest();
afterEach(() => cleanupRunTest(t));

describe('feature runs and budgets over the bridge', () => {
  it('starts a run, lists it, replays its events, refuses bad input, and reads and patches the budgets', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') }));
    await planFeature(repo.repo, 'wired', ['work']);
    const h = (t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), text('```yaml\nresult: pass\nitems: []\n```')]));
    const call = (channel: string, payload: unknown) => h.app.router.dispatch(channel, payload, ctx);
    const project = await h.app.projects.add(repo.repo);

    expect(await call('featureRuns.start', { projectId: project.id, slug: 'wired', executor: 'nope' })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('featureRuns.start', { projectId: project.id, slug: 'absent' })).toMatchObject({ ok: false, error: { message: expect.stringContaining('state error') } });
    const started = (await call('featureRuns.start', { projectId: project.id, slug: 'wired' })) as { ok: true; value: FeatureRunInfo };
    expect(started).toMatchObject({ ok: true, value: { slug: 'wired', status: 'running', executor: 'builtin' } });
    const runId = started.value.id;
    expect(await call('featureRuns.start', { projectId: project.id, slug: 'wired' })).toMatchObject({ ok: false, error: { code: 'conflict' } });

    // Wait for the end through the published events.
    for (const until = Date.now() + 60_000; !h.events.some((e) => e.runId === runId && e.data.type === 'RunFinished'); ) {
      if (Date.now() > until) throw new Error('the run did not finish');
      await new Promise((r) => setTimeout(r, 50));
    }
    const listed = (await call('featureRuns.list', {})) as { ok: true; value: { runs: FeatureRunInfo[]; limit: number } };
    expect(listed.value.limit).toBe(3);
    expect(listed.value.runs.find((r) => r.id === runId)).toMatchObject({ status: 'completed' });
    const replay = (await call('featureRuns.events', { runId, fromSeq: 1 })) as { ok: true; value: { events: FeatureRunEvent[] } };
    expect(replay.value.events.map((e) => e.data.type)).toEqual(h.events.filter((e) => e.runId === runId).map((e) => e.data.type));
    expect(await call('featureRuns.events', { runId: 'frun-doesnotexist' })).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await call('featureRuns.settings.update', { maxParallel: 0 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('featureRuns.settings.update', { maxParallel: 5 })).toEqual({ ok: true, value: { maxParallel: 5 } });

    expect(await call('budgets.update', { globalDaily: { warnUsd: 10, maxUsd: 5 } })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call('budgets.update', { globalDaily: { maxUsd: 5 } })).toMatchObject({ ok: true, value: { globalDaily: { warnUsd: null, maxUsd: 5 } } });
    // A patch of one budget keeps the others.
    expect(await call('budgets.update', { projectDaily: { maxUsd: 2 } })).toMatchObject({ ok: true, value: { globalDaily: { maxUsd: 5 }, projectDaily: { maxUsd: 2 } } });
    const status = (await call('budgets.status', {})) as { ok: true; value: { uses: Array<{ scope: string; spentUsd: number }> } };
    expect(status.value.uses.find((u) => u.scope === 'global')!.spentUsd).toBeGreaterThan(0);
  }, 120_000);
});
