import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { FeatureRunInfo } from '../../../../src-preload/contract';
import { appRoot } from '../../../../src-main/platform/paths';
import { startModelServer, type ModelServer } from '../../../fixtures/model-server/index';
import { startTestApp } from '../../../support/app';
import { waitFor } from '../../../support/processes';
import { tempDir } from '../../../support/temp';
import { saveTestProfile } from '../../agents/harness';
import { makeRunRepo, planFeature, write, type RunRepo } from './support';

let repo: RunRepo | null = null;
let server: ModelServer | null = null;
let data: { path: string; cleanup(): void } | null = null;
let cleanups: Array<() => void> = [];
afterEach(async () => {
  for (const c of cleanups) c();
  cleanups = [];
  await server?.close();
  repo?.cleanup();
  data?.cleanup();
  server = null;
  repo = null;
  data = null;
});

describe('a feature run held by another process', () => {
  it('shows as running while that process lives, and as interrupted (with its pid) within seconds of its death, published to the board', async () => {
    repo = makeRunRepo({ remote: 'none' });
    await planFeature(repo.repo, 'orphan', ['library']);
    // The first call hangs: the CLI process is killed while it waits.
    server = await startModelServer({ script: [write('sum.mjs', 'x'), { fault: { kind: 'stall', ms: 120_000 }, blocks: [{ type: 'text', text: 'never seen' }] }] });
    data = tempDir('fd-dead-owner-data-');
    const app = await startTestApp(data.path);
    cleanups.push(() => app.app.dispose());
    saveTestProfile(app.app, server.url);
    await app.app.projects.add(repo.repo);
    const published: FeatureRunInfo[][] = [];
    app.app.hub.subscribe((e) => e.topic === 'featureRuns.changed' && published.push((e.payload as { runs: FeatureRunInfo[] }).runs));

    // `feature run` in a real process of the same data folder (node itself, so SIGKILL hits it).
    const root = appRoot();
    const loader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const child = spawn(process.execPath, ['--import', loader, join(root, 'src-main', 'cli', 'main.ts'), 'feature', 'run', 'orphan', '--repo', repo.repo, '--data-dir', data.path, '--approve', 'allow'], { cwd: root, env: process.env, stdio: 'ignore' });
    cleanups.push(() => child.kill('SIGKILL'));
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    await waitFor(() => server!.mainRequests().length >= 2, 'the stalled model call', 90_000);

    // Held by a live process: listed as running, and the sweep published it.
    const mine = () => app.app.featureRuns.list().find((r) => r.slug === 'orphan');
    expect(mine()).toMatchObject({ status: 'running' });
    await waitFor(() => published.some((runs) => runs.some((r) => r.slug === 'orphan' && r.status === 'running')), 'the running run published', 30_000);

    child.kill('SIGKILL');
    await exited;
    const dead = await waitFor(() => published.flat().find((r) => r.slug === 'orphan' && r.status === 'interrupted'), 'the dead owner detected', 30_000);
    expect(dead.message).toContain(`(pid ${child.pid}) ended`);
    expect(mine()).toMatchObject({ status: 'interrupted' });
  }, 180_000);
});
