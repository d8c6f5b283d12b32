import { afterEach, describe, expect, it } from 'vitest';
import type { FeatureRunInfo, RunEventData } from '../../../../src-preload/contract';
import { readState, sumPhases } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { waitFor } from '../../../support/processes';
import { CLEAN_REVIEW, commitSubjects, configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, SUM_TEST, text, VERIFY_PASS, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

describe('feature run: cancel, resume and the queue', () => {
  it('cancel mid-phase leaves the worktree and state consistent; the next run resumes that phase without repeating the completed one', async () => {
    repo = makeRunRepo({ remote: 'none' });
    const wt = await planFeature(repo.repo, 'stop-go', ['library', 'tests']);
    h = await runHarness([
      write('sum.mjs', SUM_JS),
      text('Library done.'),
      write('sum.test.mjs', SUM_TEST),
      // The answer after the write hangs: the run is cancelled while it waits.
      { fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'never seen' }] },
    ]);
    const first = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'stop-go' });
    await waitFor(() => h!.server.mainRequests().length >= 4, 'the stalled request of phase two', 60_000);
    expect(h.app.featureRuns.cancel(repo.repo, 'stop-go')).toBe(true);
    const r1 = await first.done;
    expect(r1.outcome).toBe('cancelled');
    let s = await readState(activeStatePath(repo.repo, 'stop-go'));
    expect(s.status).toBe('in_progress');
    expect(s.phases.map((p) => p.status)).toEqual(['completed', 'running', 'pending', 'pending']);
    expect(s.total).toEqual(sumPhases(s.phases));
    const libraryDone = s.phases[0]!.completed_at;
    expect(commitSubjects(wt, 'main..HEAD')).toEqual(['feat(stop-go): library', 'feat(stop-go): initialize planning artifacts']);
    expect(h.app.featureRuns.history(repo.repo, 'stop-go')[0]).toMatchObject({ status: 'cancelled' });

    h.server.setScript([text('The test is in place.'), CLEAN_REVIEW, VERIFY_PASS]);
    const before = h.server.mainRequests().length;
    const events: RunEventData[] = [];
    const off = h.app.hub.subscribe((e) => {
      if (e.topic === 'featureRuns.event') events.push((e.payload as { data: RunEventData }).data);
    });
    const r2 = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'stop-go' })).done;
    off();
    expect(r2.message).toBeNull();
    expect(r2.outcome).toBe('completed');
    const resumedPrompt = h.server.mainRequests()[before]!.userText ?? '';
    expect(resumedPrompt).toContain('This phase, "tests", was started before and interrupted');
    // What the phase had done: the uncommitted test file is in the diff it is shown.
    expect(resumedPrompt).toContain('+++ b/sum.test.mjs');
    expect(resumedPrompt).toContain('Development phase 2 of 2');
    await h.app.events.whenFlushed();
    expect(events.find((e) => e.type === 'RunStarting')).toMatchObject({ startIndex: 1, resumed: true });
    expect(events.filter((e) => e.type === 'PhaseStarting').map((e) => (e as { name: string }).name)).toEqual(['tests', 'review', 'verify']);
    s = await readState(activeStatePath(repo.repo, 'stop-go'));
    expect(s.phases[0]!.completed_at).toBe(libraryDone);
    expect(s.total).toEqual(sumPhases(s.phases));
    const subjects = commitSubjects(wt, 'main..HEAD');
    expect(subjects.filter((c) => c === 'feat(stop-go): library')).toHaveLength(1);
    expect(subjects).toContain('feat(stop-go): tests');
  }, 180_000);

  it('runs three features with a limit of two: the third waits in a visible queue, and all finish independently', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') });
    for (const slug of ['alpha', 'beta', 'gamma']) await planFeature(repo.repo, slug, ['work']);
    h = await runHarness([
      { match: { userPattern: 'Development phase' }, fault: { kind: 'stall', ms: 1_500 }, blocks: [{ type: 'text', text: 'Done.' }], times: 3 },
      { match: { userPattern: 'Verification attempt' }, blocks: [{ type: 'text', text: '```yaml\nresult: pass\nitems: []\n```' }], times: 3 },
    ]);
    h.app.featureRuns.setMaxParallel(2);
    let mostRunning = 0;
    h.app.hub.subscribe((e) => {
      if (e.topic !== 'featureRuns.changed') return;
      const runs = (e.payload as { runs: FeatureRunInfo[] }).runs;
      mostRunning = Math.max(mostRunning, runs.filter((r) => r.status === 'running').length);
    });
    const runs = [];
    for (const slug of ['alpha', 'beta', 'gamma']) runs.push(await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug }));
    expect(runs.map((r) => [r.status, r.position])).toEqual([
      ['running', null],
      ['running', null],
      ['queued', 1],
    ]);
    const listed = h.app.featureRuns.list();
    expect(listed.filter((r) => r.status === 'queued').map((r) => [r.slug, r.position])).toEqual([['gamma', 1]]);
    const results = await Promise.all(runs.map((r) => r.done));
    expect(results.map((r) => r.outcome)).toEqual(['completed', 'completed', 'completed']);
    expect(mostRunning).toBe(2);
    await h.app.events.whenFlushed();
    const gamma = h.events.filter((e) => e.slug === 'gamma').map((e) => e.data.type);
    expect(gamma[0]).toBe('Queued');
    expect(gamma.at(-1)).toBe('RunFinished');
    for (const slug of ['alpha', 'beta', 'gamma']) expect((await readState(activeStatePath(repo.repo, slug))).status).toBe('completed');
  }, 180_000);
});
