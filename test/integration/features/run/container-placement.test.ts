/**
 * A feature run placed in a container (agent.placement in state.yml), on the real engine with the
 * cached test image, the built-in executor and the scripted model server: the dev phase's bash
 * tool runs inside the run's container (its hostname is the container's, not this machine's),
 * the file it writes lands in the worktree, the checks run on the host, the run completes, and
 * its container is removed afterwards. A placement the engine refuses fails the run with the
 * engine's reason before any model request — never a silent run on the host.
 */
import { hostname } from 'node:os';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, RunPlacement } from '../../../../src-preload/contract';
import type { SessionContainer } from '../../../../src-main/containers/container-service';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { readState, writeState } from '../../../../src-main/features/state';
import { ensureTestImage } from '../../../support/container-image';
import { cli } from '../../../support/cli';
import { gitIn } from '../../../support/temp';
import { bash, CLEAN_REVIEW, configYaml, makeRunRepo, planFeature, recordApproval, runHarness, text, VERIFY_PASS, type RunHarness, type RunRepo } from './support';

let image: string;
let repo: RunRepo | null = null;
let h: RunHarness | null = null;

beforeAll(() => {
  image = ensureTestImage();
}, 180_000);

afterEach(async () => {
  await h?.app.containers.shutdown();
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

/** Plans the feature and records its placement in state.yml, committed like a finalized plan (approved once the harness runs: recordApproval). */
async function plannedWithPlacement(r: RunRepo, placement: RunPlacement): Promise<string> {
  const wt = await planFeature(r.repo, 'demo', ['file']);
  const path = activeStatePath(r.repo, 'demo');
  const s = await readState(path);
  writeState(path, { ...s, agent: { executor: 'builtin', profile: null, model: null, mode: 'yolo', placement } });
  gitIn(wt, 'commit', '-q', '-am', 'feat(demo): run in a container');
  return wt;
}

describe('feature run placed in a container', () => {
  it('runs the dev phase bash tool in the container, the file lands in the worktree, and the run completes', async () => {
    // The check runs on the host worktree: it passes only if the container's write landed there.
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['grep -q made-in-container made.txt'] }) });
    const wt = await plannedWithPlacement(repo, { kind: 'container', image, limits: { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 } });
    h = await runHarness([bash('hostname; echo made-in-container > made.txt'), text('Phase done.'), CLEAN_REVIEW, VERIFY_PASS]);
    await recordApproval(h.app, repo.repo, 'demo');
    const toolResults: string[] = [];
    h.app.hub.subscribe((e) => {
      const ev = e.payload as AgentEvent;
      if (e.topic === 'agents.event' && ev.data.type === 'tool.result') toolResults.push(ev.data.content);
    });
    const placed: SessionContainer[] = [];
    const place = h.app.containers.place.bind(h.app.containers);
    vi.spyOn(h.app.containers, 'place').mockImplementation(async (req) => {
      const c = await place(req);
      placed.push(c);
      // The container carries the feature's label while the run works in it.
      const labels = (await new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(c.id).inspect()).Config.Labels;
      expect(labels['dev.flightdeck.feature']).toBe('demo');
      return c;
    });

    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo' })).done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(placed).toHaveLength(1);
    const container = placed[0]!;
    expect(container.image).toBe(image);

    // The bash tool printed the container's hostname (its short id), which is not this machine's.
    const sessionId = container.sessionId;
    expect(toolResults[0]).toContain(container.id.slice(0, 12));
    expect(toolResults[0]).not.toContain(hostname());
    expect(readFileSync(join(wt, 'made.txt'), 'utf8')).toBe('made-in-container\n');
    // … and was committed after the phase, like any phase's work.
    expect(gitIn(wt, 'log', '--format=%s', '-1', '--', 'made.txt').trim()).toBe('feat(demo): file');

    // The verify check ran on the host, and passed.
    const verify = h.events.find((e) => e.data.type === 'VerifyAttempt')!.data as { checks: Array<{ passed: boolean }> };
    expect(verify.checks).toEqual([expect.objectContaining({ passed: true })]);
    // The finished run's container and placement are gone.
    expect(h.app.containers.forSession(sessionId)).toBeNull();
    expect(h.app.containers.placement(sessionId)).toBeNull();
    await expect(new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(container.id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 180_000);

  it('fails the run with the engine reason when the container cannot start, before any model request', async () => {
    repo = makeRunRepo({ remote: 'none' });
    await plannedWithPlacement(repo, { kind: 'container', image });
    h = await runHarness([bash('echo ran > ran.txt'), text('done')]);
    await recordApproval(h.app, repo.repo, 'demo');
    // --image on the command line (the request) overrides the file's.
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo', placement: { kind: 'container', image: 'flightdeck-no-such-image:0' } })).done;
    expect(r.outcome).toBe('failed');
    expect(r.message).toMatch(/container could not start \(flightdeck-no-such-image:0\).*not on/s);
    expect(h.server.mainRequests()).toHaveLength(0);
    await h.app.events.whenFlushed();
    const finished = h.events.at(-1)!.data;
    expect(finished).toMatchObject({ type: 'RunFinished', success: false, outcome: 'failed' });
  }, 120_000);

  it('feature run --placement: the flags override the file, an invalid one is a usage error', async () => {
    repo = makeRunRepo({ remote: 'none' });
    await planFeature(repo.repo, 'demo', ['file']);
    h = await runHarness([bash('echo ran > ran.txt'), text('done')]);
    const dataDir = h.dataDir;
    h.app.dispose();
    const run = (...flags: string[]) => cli('feature', 'run', 'demo', '--repo', repo!.repo, '--data-dir', dataDir, '--approve', 'allow', ...flags);
    const badKind = await run('--placement', 'vm');
    expect(badKind.code).toBe(2);
    expect(badKind.err).toContain('--placement takes host|container');
    const loose = await run('--gpus', 'all');
    expect(loose.code).toBe(2);
    expect(loose.err).toContain('--gpus goes with --placement container');
    const badGpus = await run('--placement', 'container', '--gpus', 'lots');
    expect(badGpus.code).not.toBe(0);
    expect(badGpus.err).toContain('"lots" is not a GPU request');
    // A host feature run with --placement container: the engine's refusal fails it (exit 1), nothing ran on the host.
    const refused = await run('--placement', 'container', '--image', 'flightdeck-no-such-image:0');
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/container could not start \(flightdeck-no-such-image:0\)/);
    expect(h.server.mainRequests()).toHaveLength(0);
  }, 120_000);
});
