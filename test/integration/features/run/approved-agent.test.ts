/**
 * Issue 20 §1: a feature's state.yml lives in its worktree, which the run's agent can write; its
 * agent block (executor, mode, placement) is honoured only as approved with the plan (recorded
 * outside the worktree, src-main/features/approvals.ts). On the real services and the real
 * engine: an agent's rewrite of state.yml from the approved container to the host (and to
 * another executor) is not used by the next run, the run says so, and the Run dialog prefills
 * the approved placement. A feature without a record uses state.yml's placement only while the
 * repository is trusted.
 */
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { ContainerPlacement, FeatureRunEvent, RunPlacement } from '../../../../src-preload/contract';
import { FeatureApprovals } from '../../../../src-main/features/approvals';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { readState, writeState } from '../../../../src-main/features/state';
import { gitIn } from '../../../support/temp';
import { call } from '../support';
import { CLEAN_REVIEW, configYaml, DESIGN, VERIFICATION, makeRunRepo, planFeature, runHarness, text, VERIFY_PASS, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;

afterEach(async () => {
  await h?.app.containers.shutdown();
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

/** An image that does not exist: the engine is asked for it and the run fails before any model call. */
const APPROVED_IMAGE = 'flightdeck-no-such-approved-image:0';
const APPROVED: RunPlacement = { kind: 'container', image: APPROVED_IMAGE, network: 'none' };

/** What an agent in the worktree can do: rewrite state.yml's agent block and commit it on its branch. */
async function agentRewrites(r: RunRepo, slug: string, agent: { executor: 'builtin' | 'claude-code'; placement?: RunPlacement }): Promise<void> {
  const path = activeStatePath(r.repo, slug);
  const s = await readState(path);
  writeState(path, { ...s, agent: { executor: agent.executor, profile: null, model: null, mode: 'yolo', ...(agent.placement ? { placement: agent.placement } : {}) } });
  gitIn(join(r.repo, '.trees', slug), 'commit', '-q', '-am', 'chore: run on the host');
}

function placements(harness: RunHarness): ContainerPlacement[] {
  const asked: ContainerPlacement[] = [];
  const place = harness.app.containers.place.bind(harness.app.containers);
  vi.spyOn(harness.app.containers, 'place').mockImplementation(async (req) => {
    const { sessionId: _s, worktree: _w, projectId: _p, featureId: _f, ...placement } = req;
    asked.push(placement);
    return place(req);
  });
  return asked;
}

const notices = (events: FeatureRunEvent[]) => events.flatMap((e) => (e.data.type === 'Notice' ? [e.data.message] : []));

describe("a feature's approved agent settings", () => {
  it('an agent that rewrites state.yml to the host and another executor does not move the next run', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['true'] }) });
    h = await runHarness([text('Phase done.'), CLEAN_REVIEW, VERIFY_PASS]);
    // Planned with a container placement and approved: finalize writes state.yml and records the choice.
    await h.app.planning.finalize({ repo: repo.repo, slug: 'demo', designMd: DESIGN(['file']), verificationMd: VERIFICATION, phases: ['file'], agent: { executor: 'builtin', profile: null, model: null, mode: 'yolo', placement: APPROVED } });
    expect(new FeatureApprovals(h.app.db).get(repo.repo, 'demo')).toMatchObject({ executor: 'builtin', mode: 'yolo', placement: APPROVED });
    const asked = placements(h);
    const run = async () => (await h!.app.featureRuns.enqueue({ projectPath: repo!.repo, slug: 'demo' })).done;

    const first = await run();
    expect(first.message).toContain(`container could not start (${APPROVED_IMAGE})`);
    // Run events are published once the event log has committed them, which can be after `done`.
    const finished = (from: number) => h!.events.slice(from).some((e) => e.data.type === 'RunFinished');
    await vi.waitFor(() => expect(finished(0)).toBe(true));
    expect(notices(h.events)).toEqual([]);

    // The agent (or a commit on its branch) switches the feature to the host and Claude Code.
    await agentRewrites(repo, 'demo', { executor: 'claude-code', placement: { kind: 'host' } });
    const { id: projectId } = await h.app.projects.add(repo.repo);
    // The Run dialog prefills the approved placement, not the file's.
    const prefill = await call<{ placement: RunPlacement; from: string[] }>(h.app, 'featureRuns.defaultPlacement', { projectId, slug: 'demo' });
    expect(prefill.placement).toEqual(APPROVED);

    const before = h.events.length;
    const second = await run();
    await vi.waitFor(() => expect(finished(before)).toBe(true));
    // Still the approved container (and not the host: no model call was made on this machine).
    expect(second.outcome).toBe('failed');
    expect(second.message).toContain(`container could not start (${APPROVED_IMAGE})`);
    expect(asked).toHaveLength(2);
    expect(asked[1]).toMatchObject({ image: APPROVED_IMAGE, network: 'none' });
    expect(h.server.requests).toHaveLength(0);
    const events = h.events.slice(before);
    const starting = events.find((e) => e.data.type === 'RunStarting');
    expect(starting?.data).toMatchObject({ executor: 'builtin' });
    expect(notices(events)).toEqual(["state.yml's agent settings differ from what was approved; using the approved ones"]);
  }, 120_000);

  it('without a record, state.yml\'s placement is used only while the repository is trusted', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['true'] }) });
    await planFeature(repo.repo, 'demo', ['file']);
    // A state.yml written by hand (or before approvals were recorded) that places the run in a container.
    await agentRewrites(repo, 'demo', { executor: 'builtin', placement: APPROVED });
    h = await runHarness([text('Phase done.'), CLEAN_REVIEW, VERIFY_PASS]);
    const asked = placements(h);
    await h.app.trust.untrust(repo.repo);

    // Untrusted: the run does not take the file's word; it runs where the defaults say (the host) and says why.
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo' })).done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(asked).toHaveLength(0);
    // Run events are published once the event log has committed them, which can be after `done`.
    await vi.waitFor(() => expect(h!.events.some((e) => e.data.type === 'RunFinished')).toBe(true));
    const said = notices(h.events);
    expect(said).toHaveLength(1);
    expect(said[0]).toMatch(/state\.yml's agent\.placement was not used: this feature has no recorded plan approval .* is not trusted/);
  }, 120_000);
});
