/**
 * The project's default placement (`agent.placement` in `.flightdeck/config.yml`) on the real
 * engine with the cached test image, the built-in executor and the scripted model server: a
 * feature whose state.yml says nothing runs its agent's commands in the container the project
 * config describes (its limits in `docker inspect`); the feature's state.yml overrides the
 * project field by field, the run request overrides both, and a host request or a host feature
 * keeps the run on this machine although the project's default is a container.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AgentEvent, ContainerPlacement, RunPlacement } from '../../../../src-preload/contract';
import type { SessionContainer } from '../../../../src-main/containers/container-service';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { readState, writeState } from '../../../../src-main/features/state';
import { ensureTestImage } from '../../../support/container-image';
import { gitIn } from '../../../support/temp';
import { call } from '../support';
import { bash, CLEAN_REVIEW, configYaml, makeRunRepo, planFeature, recordApproval, runHarness, text, VERIFY_PASS, type RunHarness, type RunRepo } from './support';

const MEMORY = 256 * 1024 * 1024;
const docker = () => new Docker({ socketPath: '/var/run/docker.sock' });

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

/** config.yml with `agent.placement` (the support's config keeps its agent keys first). */
function configWithPlacement(placement: RunPlacement, checks: string[]): string {
  return configYaml({ checks }).replace('  max_turns: 50\n', `  max_turns: 50\n  placement: ${JSON.stringify(placement)}\n`);
}

/** Records the feature's own placement in state.yml, committed and approved like a finalized plan's. */
async function setFeaturePlacement(r: RunRepo, slug: string, placement: RunPlacement): Promise<void> {
  const path = activeStatePath(r.repo, slug);
  const s = await readState(path);
  writeState(path, { ...s, agent: { executor: 'builtin', profile: null, model: null, mode: 'yolo', placement } });
  gitIn(join(r.repo, '.trees', slug), 'commit', '-q', '-am', `feat(${slug}): placement`);
  await recordApproval(h!.app, r.repo, slug);
}

/** The bash tool's outputs, in order. */
function toolResults(harness: RunHarness): string[] {
  const out: string[] = [];
  harness.app.hub.subscribe((e) => {
    const ev = e.payload as AgentEvent;
    if (e.topic === 'agents.event' && ev.data.type === 'tool.result') out.push(ev.data.content);
  });
  return out;
}

describe('the project config places feature runs', () => {
  it('a feature without a placement of its own runs in the container the project config describes', async () => {
    // The check runs on the host worktree: it passes only if the container's write landed there.
    repo = makeRunRepo({ remote: 'none', config: configWithPlacement({ kind: 'container', image, limits: { memoryBytes: MEMORY, pids: 256 } }, ['grep -q made-in-container made.txt']) });
    const wt = await planFeature(repo.repo, 'demo', ['file']);
    expect((await readState(activeStatePath(repo.repo, 'demo'))).agent?.placement).toBeUndefined();
    h = await runHarness([bash('hostname; echo made-in-container > made.txt'), text('Phase done.'), CLEAN_REVIEW, VERIFY_PASS]);
    const results = toolResults(h);
    const placed: Array<{ container: SessionContainer; memory: number | undefined; feature: string | undefined }> = [];
    const place = h.app.containers.place.bind(h.app.containers);
    vi.spyOn(h.app.containers, 'place').mockImplementation(async (req) => {
      const c = await place(req);
      const inspect = await docker().getContainer(c.id).inspect();
      placed.push({ container: c, memory: inspect.HostConfig.Memory, feature: inspect.Config.Labels['dev.flightdeck.feature'] });
      return c;
    });

    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo' })).done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(placed).toHaveLength(1);
    const { container, memory, feature } = placed[0]!;
    expect(container.image).toBe(image);
    // The project's limits reached the engine.
    expect(memory).toBe(MEMORY);
    expect(feature).toBe('demo');
    // The command ran in the container (its hostname is the container's short id), and its file is in the worktree.
    expect(results[0]).toContain(container.id.slice(0, 12));
    expect(results[0]).not.toContain(hostname());
    expect(readFileSync(join(wt, 'made.txt'), 'utf8')).toBe('made-in-container\n');
    await expect(docker().getContainer(container.id).inspect()).rejects.toMatchObject({ statusCode: 404 });
  }, 180_000);

  it('state.yml overrides the project field by field, the request overrides both, and host stays host', async () => {
    // Images that do not exist: which one the engine was asked for shows whose placement won, before any model call.
    const projectImage = 'flightdeck-no-such-project-image:0';
    const featureImage = 'flightdeck-no-such-feature-image:0';
    const requestImage = 'flightdeck-no-such-request-image:0';
    repo = makeRunRepo({ remote: 'none', config: configWithPlacement({ kind: 'container', image: projectImage, network: 'none', limits: { memoryBytes: MEMORY } }, ['true']) });
    await planFeature(repo.repo, 'demo', ['file']);
    await planFeature(repo.repo, 'other', ['file']);
    h = await runHarness([bash('hostname'), text('Phase done.'), CLEAN_REVIEW, VERIFY_PASS, bash('hostname'), text('Phase done.'), CLEAN_REVIEW, VERIFY_PASS]);
    const results = toolResults(h);
    const asked: ContainerPlacement[] = [];
    const place = h.app.containers.place.bind(h.app.containers);
    vi.spyOn(h.app.containers, 'place').mockImplementation(async (req) => {
      const { sessionId: _s, worktree: _w, projectId: _p, featureId: _f, ...placement } = req;
      asked.push(placement);
      return place(req);
    });
    const run = async (slug: string, placement?: RunPlacement) => (await h!.app.featureRuns.enqueue({ projectPath: repo!.repo, slug, ...(placement ? { placement } : {}) })).done;

    // The project's default alone.
    const byProject = await run('demo');
    expect(byProject.outcome).toBe('failed');
    expect(byProject.message).toContain(`container could not start (${projectImage})`);
    expect(asked.at(-1)).toEqual({ image: projectImage, network: 'none', limits: { memoryBytes: MEMORY } });

    // The feature's image over the project's; the project's network and limits stay.
    await setFeaturePlacement(repo, 'demo', { kind: 'container', image: featureImage });
    const byFeature = await run('demo');
    expect(byFeature.message).toContain(`container could not start (${featureImage})`);
    expect(asked.at(-1)).toEqual({ image: featureImage, network: 'none', limits: { memoryBytes: MEMORY } });

    // The request's network over both; the feature's image and the project's limits stay.
    const byRequest = await run('demo', { kind: 'container', image: requestImage, network: 'bridge' });
    expect(byRequest.message).toContain(`container could not start (${requestImage})`);
    expect(asked.at(-1)).toEqual({ image: requestImage, network: 'bridge', limits: { memoryBytes: MEMORY } });
    expect(h.server.mainRequests()).toHaveLength(0);
    expect(asked).toHaveLength(3);

    // A host request: the run works on this machine although the feature and the project say container.
    const hostRequest = await run('demo', { kind: 'host' });
    expect(hostRequest.message).toBeNull();
    expect(hostRequest.outcome).toBe('completed');
    expect(results[0]).toContain(hostname());

    // A host feature in a container project: on this machine too.
    await setFeaturePlacement(repo, 'other', { kind: 'host' });
    const hostFeature = await run('other');
    expect(hostFeature.message).toBeNull();
    expect(hostFeature.outcome).toBe('completed');
    expect(results[1]).toContain(hostname());
    expect(asked).toHaveLength(3);
  }, 180_000);

  it('featureRuns.defaultPlacement: what the run dialog starts from, and whose it is; a broken config says where', async () => {
    const project: RunPlacement = { kind: 'container', image: 'proj:1', network: 'none' };
    repo = makeRunRepo({ remote: 'none', config: configWithPlacement(project, ['true']) });
    await planFeature(repo.repo, 'demo', ['file']);
    h = await runHarness([]);
    const { id: projectId } = await h.app.projects.add(repo.repo);
    const ask = () => call<{ placement: RunPlacement; from: string[] }>(h!.app, 'featureRuns.defaultPlacement', { projectId, slug: 'demo' });

    expect(await ask()).toEqual({ placement: project, from: ['project'] });
    await setFeaturePlacement(repo, 'demo', { kind: 'container', image: 'feat:1' });
    expect(await ask()).toEqual({ placement: { kind: 'container', image: 'feat:1', network: 'none' }, from: ['feature', 'project'] });
    await setFeaturePlacement(repo, 'demo', { kind: 'host' });
    expect(await ask()).toEqual({ placement: { kind: 'host' }, from: ['feature'] });

    const config = join(repo.repo, '.flightdeck', 'config.yml');
    writeFileSync(config, readFileSync(config, 'utf8').replace('network":"none"', 'network":"wifi"'));
    await expect(ask()).rejects.toMatchObject({ code: 'invalid_input', details: { kind: 'config', path: config, line: 7 } });
    await expect(ask()).rejects.toThrow(/config\.yml:7: agent\.placement\.network/);
  }, 60_000);
});
