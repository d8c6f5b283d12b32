/**
 * Candidates survive a SIGKILL of the process running them: `feature run --candidates 2` is
 * killed while candidate c1 waits on the model; the next long-lived host resumes both (c1 from
 * its running phase, c2 from the start), and the comparison then counts both of c1's runs.
 */
import { spawn } from 'node:child_process';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { appRoot } from '../../../../src-main/platform/paths';
import { readState, type FeatureState } from '../../../../src-main/features/state';
import { startModelServer } from '../../../fixtures/model-server/index';
import { startTestApp } from '../../../support/app';
import { waitFor } from '../../../support/processes';
import { tempDir } from '../../../support/temp';
import { saveTestProfile } from '../../agents/harness';
import { startHostProcess } from '../../hardening/support';
import { cleanupHostTest, commitSubjects, hostTest, makeRunRepo, NO_PIPELINE_CONFIG, PASS_NO_ITEMS, planFeature, SUM_JS, text, write } from './support';

const t = hostTest();
afterEach(() => cleanupHostTest(t));

/** The candidates' runs the host has recorded as completed (read beside the live host, read-only). */
function completedRuns(): number {
  const db = new Database(join(t.data!.path, 'flightdeck.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare("SELECT COUNT(*) AS n FROM feature_runs WHERE candidate IS NOT NULL AND status = 'completed'").get() as { n: number }).n;
  } finally {
    db.close();
  }
}

async function candidateState(n: number): Promise<FeatureState | null> {
  // Mid-write reads are retried by the caller.
  return readState(join(t.repo!.repo, `.trees/duo--c${n}/.flightdeck/duo/state.yml`)).catch(() => null);
}

describe('feature candidates after a crash', () => {
  it('resumes every interrupted candidate at the next start of a long-lived host, each in its own worktree', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: NO_PIPELINE_CONFIG() }));
    await planFeature(repo.repo, 'duo', ['work']);
    const server = (t.server = await startModelServer({
      script: [
        write('sum.mjs', SUM_JS),
        // c1's second call hangs: the process is killed while it waits.
        { fault: { kind: 'stall', ms: 120_000 }, blocks: [{ type: 'text', text: 'never seen' }] },
      ],
    }));
    const data = (t.data = tempDir('fd-cand-crash-'));
    const setup = await startTestApp(data.path);
    saveTestProfile(setup.app, server.url);
    // One at a time: c2 is still queued when the process dies.
    setup.app.featureRuns.setMaxParallel(1);
    setup.app.dispose();

    const root = appRoot();
    const loader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const child = spawn(process.execPath, ['--import', loader, join(root, 'src-main', 'cli', 'main.ts'), 'feature', 'run', 'duo', '--candidates', '2', '--repo', repo.repo, '--data-dir', data.path, '--approve', 'allow'], { cwd: root, env: process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    await waitFor(() => server.mainRequests().length >= 2, `c1's stalled call (output so far: ${out})`, 90_000);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect((await candidateState(1))!.phases[0]!.status).toBe('running');
    expect((await candidateState(2))!.phases[0]!.status).toBe('pending');

    server.setScript([text('Done.'), PASS_NO_ITEMS, write('sum.mjs', `// c2\n${SUM_JS}`), text('Done.'), PASS_NO_ITEMS]);
    const host = (t.host = await startHostProcess({ dataDir: data.path }));
    for (const until = Date.now() + 150_000; ; ) {
      const states = await Promise.all([candidateState(1), candidateState(2)]);
      if (states.every((s) => s?.phases.every((p) => p.status === 'completed')) && completedRuns() === 2) break;
      if (Date.now() > until) throw new Error(`the candidates did not finish after the restart:\n${host.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    await host.stop();
    t.host = null;
    // c1 resumed its phase (one dev commit), c2 ran from the start in its own worktree.
    expect(commitSubjects(join(repo.repo, '.trees/duo--c1'), 'main..HEAD').filter((s) => s === 'feat(duo): work')).toHaveLength(1);

    const after = await startTestApp(data.path);
    try {
      const group = (await after.app.featureCandidates.compare(repo.repo, 'duo'))!;
      expect(group.status).toBe('open');
      expect(group.candidates.map((c) => [c.index, c.status])).toEqual([
        [1, 'finished'],
        [2, 'finished'],
      ]);
      const runs = after.app.featureRuns.history(repo.repo, 'duo');
      expect(runs.filter((r) => r.candidate === 'c1').map((r) => r.status).sort()).toEqual(['completed', 'interrupted']);
      expect(runs.filter((r) => r.candidate === 'c2').map((r) => r.status).sort()).toEqual(['completed', 'interrupted']);
    } finally {
      after.app.dispose();
    }
  }, 300_000);
});
