import { spawnSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { RunRepo as RunRows, type RunRow } from '../../../../src-main/features/run/run-repo';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { readState, writeState } from '../../../../src-main/features/state';
import { waitFor } from '../../../support/processes';
import { cleanupRunTest, makeRunRepo, planFeature, runHarness, runTest, text } from './support';

const t = runTest();
afterEach(() => cleanupRunTest(t));

describe('resuming feature runs at start', () => {
  it('resumes only a feature whose last run here was interrupted, not one in progress by its state file alone', async () => {
    const h = (t.h = await runHarness([text('Working on it.')]));
    const repo = (t.repo = makeRunRepo({ remote: 'none' }));
    await h.app.projects.add(repo.repo);
    const slugs = ['by-file', 'failed-last', 'cancelled-last', 'candidate-only', 'interrupted', 'died-running', 'died-cancelling'];
    for (const slug of slugs) {
      await planFeature(repo.repo, slug, ['library']);
      const path = activeStatePath(repo.repo, slug);
      writeState(path, { ...(await readState(path)), status: 'in_progress' });
    }
    const rows = new RunRows(h.app.db);
    let at = 1_000;
    const row = (slug: string, status: RunRow['status'], candidate: string | null = null, ownerPid: number | null = null) =>
      rows.insert({ id: `frun-${slug.replace(/-/g, '')}${at}`, projectPath: repo.repo, slug, executor: 'builtin', status, phase: 'library', message: null, ownerPid, ownerId: null, queuedAt: at++, startedAt: at, endedAt: at, candidate });
    // A process that has ended: its runs' owner is gone.
    const dead = spawnSync(process.execPath, ['-e', '0']).pid;
    // 'by-file': no run here at all (a cloned repository's worktree, another machine's, a copied data folder).
    row('failed-last', 'interrupted');
    row('failed-last', 'failed');
    row('cancelled-last', 'interrupted');
    row('cancelled-last', 'cancelled');
    // A best-of-N candidate's run is the candidates' to resume, not the feature's.
    row('candidate-only', 'interrupted', 'c1');
    row('interrupted', 'failed');
    row('interrupted', 'interrupted');
    // Held by a process that died: running is an interruption, a cancel it had been asked for is not.
    row('died-running', 'running', null, dead);
    row('died-cancelling', 'cancelling', null, dead);
    h.app.featureRuns.sweepOwners();
    expect(rows.ofFeature(repo.repo, 'died-running')[0]!.status).toBe('interrupted');
    expect(rows.ofFeature(repo.repo, 'died-cancelling')[0]!.status).toBe('cancelled');

    const resumed = await h.app.featureRuns.resumeInterrupted();
    expect(resumed.map((r) => r.slug).sort()).toEqual(['died-running', 'interrupted']);
    // Nothing else was queued behind it either.
    expect(h.app.featureRuns.list().filter((r) => r.status === 'queued' || r.status === 'running').map((r) => r.slug).sort()).toEqual(['died-running', 'interrupted']);
    // Stopped before the harness closes its store under them.
    for (const slug of ['interrupted', 'died-running']) {
      h.app.featureRuns.cancel(repo.repo, slug);
      await waitFor(() => h.events.some((e) => e.slug === slug && e.data.type === 'RunFinished'), `the resumed run of ${slug} to stop`, 30_000);
    }
  });
});
