import { afterEach, describe, expect, it } from 'vitest';
import { FeatureRunEvent } from '../../../../src-preload/contract';
import { readState, newFeatureState, writeState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { cli } from '../../../support/cli';
import { waitFor } from '../../../support/processes';
import { cleanupRunTest, configYaml, makeRunRepo, planFeature, runHarness, runTest, SUM_JS, text, write } from './support';

const t = runTest();
afterEach(() => cleanupRunTest(t));

const PASS = text('```yaml\nresult: pass\nitems: []\n```');

describe('flightdeck feature run | cancel (CLI)', () => {
  it('--json prints one run event per line and exits 0 when the feature completes; the summary names the outcome otherwise', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') }));
    await planFeature(repo.repo, 'json-run', ['work']);
    const h = (t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), PASS]));
    const dataDir = h.dataDir;
    h.app.dispose();
    const r = await cli('feature', 'run', 'json-run', '--repo', repo.repo, '--data-dir', dataDir, '--approve', 'allow', '--json');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const events = r.lines.map((l) => FeatureRunEvent.parse(JSON.parse(l)));
    expect(events.map((e) => e.data.type)).toEqual(['RunStarting', 'PhaseStarting', 'PhaseCompleted', 'PhaseStarting', 'PhaseCompleted', 'PhaseStarting', 'VerifyAttempt', 'PhaseCompleted', 'CreatingPr', 'PrCreated', 'RunFinished']);
    expect(events.every((e) => e.slug === 'json-run' && e.runId === events[0]!.runId)).toBe(true);

    // Run again: already completed, a failure with the reason (exit 1).
    const again = await cli('feature', 'run', 'json-run', '--repo', repo.repo, '--data-dir', dataDir);
    expect(again.code).toBe(1);
    expect(again.err).toContain('already completed');
  }, 120_000);

  it('exits 3 when an approval nobody can answer stops the run (no terminal, --approve ask), leaving it resumable', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none' }));
    await planFeature(repo.repo, 'asks', ['work']);
    // The plan chose the default approval mode: a write asks.
    const state = newFeatureState({ slug: 'asks', now: new Date(), worktreePath: '.trees/asks', branch: 'feature/asks', baseBranch: 'main', devPhases: ['work'] });
    writeState(activeStatePath(repo.repo, 'asks'), { ...state, agent: { executor: 'builtin', profile: null, model: null, mode: 'default' } });
    const h = (t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.')]));
    const dataDir = h.dataDir;
    h.app.dispose();
    const r = await cli('feature', 'run', 'asks', '--repo', repo.repo, '--data-dir', dataDir);
    expect(r.code).toBe(3);
    expect(r.out).toContain('[Waiting for a human]');
    expect(r.out).toContain('An approval is waiting (write');
    const s = await readState(activeStatePath(repo.repo, 'asks'));
    expect(s.status).toBe('in_progress');
    expect(s.phases[0]!.status).toBe('running');
  }, 120_000);

  it('feature cancel stops a run owned by another Flightdeck (the app) through the database', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none' }));
    await planFeature(repo.repo, 'long', ['work']);
    const h = (t.h = await runHarness([{ fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'never seen' }] }]));
    const run = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'long' });
    await waitFor(() => h.server.mainRequests().length >= 1, 'the stalled call', 60_000);
    const c = await cli('feature', 'cancel', 'long', '--repo', repo.repo, '--data-dir', h.dataDir);
    expect(c.err).toBe('');
    expect(c.code).toBe(0);
    expect(c.out).toContain('Asked the Flightdeck process running long to cancel it');
    const r = await run.done;
    expect(r.outcome).toBe('cancelled');
    expect(h.app.featureRuns.history(repo.repo, 'long')[0]).toMatchObject({ status: 'cancelled' });
    const none = await cli('feature', 'cancel', 'long', '--repo', repo.repo, '--data-dir', h.dataDir);
    expect(none.code).toBe(1);
    expect(none.err).toContain('long is not running');
  }, 120_000);
});
