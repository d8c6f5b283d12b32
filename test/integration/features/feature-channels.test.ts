import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { resultJson } from '../../../src-main/host/browser-host';
import { assignPort } from '../../../src-main/worktrees/worktree-prepare';
import { startTestApp } from '../../support/app';
import { gitIn } from '../../support/temp';
import { ignoreTrees, makeActiveFeature, repoWithOrigin } from './support/feature-repos';

const cleanups: (() => void)[] = [];
afterAll(() => {
  while (cleanups.length) cleanups.pop()!();
});
const ctx = { origin: 'test' as const, connectionId: 't' };

describe('features.* and worktrees.list over the bridge', () => {
  it('list, status, clean (dry run, then confirmed) by project id; worktrees show disk use and port', async () => {
    const repo = repoWithOrigin('fd-chan-');
    cleanups.push(repo.cleanup);
    ignoreTrees(repo.path);
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const project = await t.app.projects.add(repo.path);
    const wt = makeActiveFeature(repo.path, 'done-work');
    writeFileSync(join(wt, 'big.bin'), Buffer.alloc(200_000));
    gitIn(wt, 'add', 'big.bin');
    gitIn(wt, 'commit', '-q', '-m', 'big');
    gitIn(repo.path, 'merge', '-q', '--no-ff', '-m', 'Merge done-work', 'feature/done-work');
    const port = await assignPort(wt, { start: 45000, end: 45009 });

    const list = await t.app.router.dispatch('features.list', {}, ctx);
    expect(list).toMatchObject({ ok: true, value: { projects: [{ projectId: project.id, features: [{ slug: 'done-work', status: 'in_progress', source: 'active' }] }] } });
    // What the project says once is not repeated per feature, and the state file's path stays on the host.
    const listed = (list as { value: { projects: Array<{ repoRoot: string; features: object[] }> } }).value.projects[0]!;
    expect(listed.repoRoot).toBe(realpathSync(repo.path));
    for (const key of ['projectId', 'repoRoot', 'statePath']) expect(listed.features[0], key).not.toHaveProperty(key);
    // The service (the CLI's `feature list --json`) still has them.
    expect((await t.app.features.list())[0]!.features[0]).toMatchObject({ projectId: project.id, repoRoot: listed.repoRoot, statePath: expect.stringContaining('state.yml') });
    const status = await t.app.router.dispatch('features.status', { projectId: project.id, slug: 'done-work' }, ctx);
    expect(status).toMatchObject({ ok: true, value: { feature: { slug: 'done-work' }, git: { branch: 'feature/done-work', dirty: false } } });

    const wl = await t.app.router.dispatch('worktrees.list', { projectId: project.id }, ctx);
    expect(wl.ok).toBe(true);
    const entry = (wl as { value: { worktrees: { slug: string; diskBytes: number; port: number }[] } }).value.worktrees.find((w) => w.slug === 'done-work')!;
    expect(entry.diskBytes).toBeGreaterThan(200_000);
    expect(entry.port).toBe(port);

    // Removing needs confirm: the contract refuses a non-dry run without it.
    expect(await t.app.router.dispatch('features.clean', { projectId: project.id, dryRun: false }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    const dry = await t.app.router.dispatch('features.clean', { projectId: project.id }, ctx);
    expect(dry).toMatchObject({ ok: true, value: { dryRun: true, removed: [], candidates: [{ slug: 'done-work', reason: 'merged_locally', method: 'ancestry' }] } });
    const done = await t.app.router.dispatch('features.clean', { projectId: project.id, dryRun: false, confirm: true, slugs: ['done-work'] }, ctx);
    expect(done).toMatchObject({ ok: true, value: { removed: [{ slug: 'done-work', branchDeleted: true }] } });
    expect((done as { value: { reclaimedBytes: number } }).value.reclaimedBytes).toBeGreaterThan(200_000);
    const after = await t.app.router.dispatch('features.list', { projectId: project.id }, ctx);
    expect(after).toMatchObject({ ok: true, value: { projects: [{ features: [{ slug: 'done-work', status: 'merged', source: 'merged' }] }] } });
  }, 60_000);

  it('a list asked again while nothing changed is the same answer, checked and written out once; a changed state file or config is a new one', async () => {
    const repo = repoWithOrigin('fd-chan-memo-');
    cleanups.push(repo.cleanup);
    ignoreTrees(repo.path);
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const project = await t.app.projects.add(repo.path);
    const wt = makeActiveFeature(repo.path, 'steady');
    type Listed = { projects: Array<{ features: Array<{ slug: string; status: string | null }>; problems: Array<{ kind: string }> }> };
    const list = async () => {
      const r = await t.app.router.dispatch('features.list', {}, ctx);
      if (!r.ok) throw new Error(r.error.message);
      return r.value as Listed;
    };
    // Asked until two lists in a row are the same answer (a file written just now, or a watcher
    // not yet running, makes the index read again); each says what is on disk.
    const steadyList = async (expected: (l: Listed) => void): Promise<Listed> => {
      for (const until = Date.now() + 10_000; Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        const a = await list();
        expected(a);
        const b = await list();
        expected(b);
        if (a === b) return a;
      }
      throw new Error('the list never came back the same twice');
    };
    const first = await steadyList((l) => expect(l.projects[0]!.features).toMatchObject([{ slug: 'steady', status: 'in_progress' }]));
    expect(Object.isFrozen(first)).toBe(true);

    // As the socket carries it: the same frame as one stringified whole, the answer stringified once.
    const stringify = vi.spyOn(JSON, 'stringify');
    let frames: string[];
    try {
      frames = [resultJson(7, { ok: true, value: first }), resultJson(8, { ok: true, value: await list() })];
      expect(stringify.mock.calls.filter(([v]) => v === first)).toHaveLength(1);
    } finally {
      stringify.mockRestore();
    }
    expect(frames[0]).toBe(JSON.stringify({ type: 'result', id: 7, result: { ok: true, value: first } }));
    expect(frames[1]).toBe(JSON.stringify({ type: 'result', id: 8, result: { ok: true, value: first } }));

    // The run (or the user) changes the feature: the next list says so, not the answer kept.
    const statePath = (await t.app.features.list())[0]!.features[0]!.statePath!;
    expect(statePath.startsWith(wt)).toBe(true);
    writeFileSync(statePath, readFileSync(statePath, 'utf8').replace(/^status: in_progress$/m, 'status: failed'));
    const changed = await list();
    expect(changed).not.toBe(first);
    expect(changed.projects[0]!.features).toMatchObject([{ slug: 'steady', status: 'failed' }]);
    const failed = await steadyList((l) => expect(l.projects[0]!.features).toMatchObject([{ slug: 'steady', status: 'failed' }]));

    // A config that no longer loads is a problem on the project at the next list.
    mkdirSync(join(repo.path, '.flightdeck'), { recursive: true });
    writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), 'checks: [unclosed\n');
    const broken = await list();
    expect(broken).not.toBe(failed);
    expect(broken.projects[0]!.problems).toMatchObject([{ kind: 'yaml' }]);

    // Each project alone is its own question with its own answer.
    const alone = await t.app.router.dispatch('features.list', { projectId: project.id }, ctx);
    expect(alone).toMatchObject({ ok: true, value: { projects: [{ features: [{ slug: 'steady', status: 'failed' }] }] } });
  }, 60_000);

  it('without the watcher (the CLI, a folder too large to watch) a list asked again is the same entry too', async () => {
    const repo = repoWithOrigin('fd-chan-unwatched-');
    cleanups.push(repo.cleanup);
    ignoreTrees(repo.path);
    makeActiveFeature(repo.path, 'quiet');
    // Past the window in which a file just written is read again at the next list.
    await new Promise((r) => setTimeout(r, 100));
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const features = t.app.features;
    const [a] = await features.list({ repo: repo.path });
    const [b] = await features.list({ repo: repo.path });
    expect(a!.features).toMatchObject([{ slug: 'quiet', status: 'in_progress' }]);
    expect(b).toBe(a);
  }, 60_000);

  it('a slug that is not a slug (../, a/b, upper case) is refused at the bridge and by the service', async () => {
    const repo = repoWithOrigin('fd-chan-slug-');
    cleanups.push(repo.cleanup);
    const t = await startTestApp();
    cleanups.push(t.cleanup);
    const project = await t.app.projects.add(repo.path);
    for (const slug of ['../x', '../../etc', 'a/b', 'Upper', '.', 'x/../y']) {
      for (const channel of ['features.status', 'featureRuns.history', 'featureReview.diff'] as const) {
        const r = await t.app.router.dispatch(channel, { projectId: project.id, slug }, ctx);
        expect(r, `${channel} ${slug}`).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
      }
    }
    await expect(t.app.features.status(repo.path, '../x')).rejects.toMatchObject({ code: 'invalid_input' });
    expect(await t.app.router.dispatch('features.status', { projectId: project.id, slug: 'no-such-feature' }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  }, 60_000);
});
