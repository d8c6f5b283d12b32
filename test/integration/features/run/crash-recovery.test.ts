import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { appRoot } from '../../../../src-main/platform/paths';
import { readState, sumPhases, type FeatureState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { startModelServer } from '../../../fixtures/model-server/index';
import { startTestApp } from '../../../support/app';
import { waitFor } from '../../../support/processes';
import { tempDir } from '../../../support/temp';
import { saveTestProfile } from '../../agents/harness';
import { startHostProcess } from '../../hardening/support';
import { CLEAN_REVIEW, cleanupHostTest, commitSubjects, hostTest, makeRunRepo, planFeature, SUM_JS, SUM_TEST, text, VERIFY_PASS, write } from './support';

const t = hostTest();
afterEach(() => cleanupHostTest(t));

async function stateOf(slug: string): Promise<FeatureState | null> {
  return readState(activeStatePath(t.repo!.repo, slug)).catch(() => null); // Mid-write reads are retried by the caller.
}

describe('feature run crash recovery', () => {
  it('after SIGKILL of the process running it mid-phase, the next start resumes the feature: no completed phase or commit repeated, totals the sum of the phases', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none' }));
    const wt = await planFeature(repo.repo, 'crashy', ['library', 'tests']);
    const server = (t.server = await startModelServer({
      script: [
        write('sum.mjs', SUM_JS),
        text('Library done.'),
        write('sum.test.mjs', SUM_TEST),
        // Phase two's second call hangs: the process is killed while it waits.
        { fault: { kind: 'stall', ms: 120_000 }, blocks: [{ type: 'text', text: 'never seen' }] },
      ],
    }));
    const data = (t.data = tempDir('fd-crash-data-'));
    const setup = await startTestApp(data.path);
    saveTestProfile(setup.app, server.url);
    setup.app.dispose();

    // `feature run` in a real process (node itself, no wrapper, so SIGKILL hits the app).
    const root = appRoot();
    const loader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
    const child = spawn(process.execPath, ['--import', loader, join(root, 'src-main', 'cli', 'main.ts'), 'feature', 'run', 'crashy', '--repo', repo.repo, '--data-dir', data.path, '--approve', 'allow'], {
      cwd: root,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    const exited = new Promise<NodeJS.Signals | null>((r) => child.once('exit', (_code, signal) => r(signal)));
    await waitFor(() => server.mainRequests().length >= 4, `phase two's stalled call (output so far: ${out})`, 90_000);
    child.kill('SIGKILL');
    expect(await exited).toBe('SIGKILL');

    const killed = (await stateOf('crashy'))!;
    expect(killed.status).toBe('in_progress');
    expect(killed.phases.map((p) => p.status)).toEqual(['completed', 'running', 'pending', 'pending']);
    const libraryRecord = killed.phases[0]!;
    expect(commitSubjects(wt, 'main..HEAD')).toEqual(['feat(crashy): library', 'feat(crashy): initialize planning artifacts']);

    // The next start (browser mode, a long-lived host) resumes it by itself.
    server.setScript([text('The test is written.'), CLEAN_REVIEW, VERIFY_PASS]);
    const before = server.mainRequests().length;
    const host = (t.host = await startHostProcess({ dataDir: data.path }));
    let done: FeatureState | null = null;
    for (const until = Date.now() + 120_000; !done; ) {
      const s = await stateOf('crashy');
      if (s && (s.status === 'completed' || s.status === 'failed')) done = s;
      else if (Date.now() > until) throw new Error(`the resumed run did not finish:\n${host.output()}`);
      else await new Promise((r) => setTimeout(r, 200));
    }
    expect(done.phases.map((p) => p.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    expect(done.status).toBe('completed');
    // The completed phase was not run again: same record, one commit, and the first call after the restart resumed phase two.
    expect(done.phases[0]).toEqual(libraryRecord);
    const subjects = commitSubjects(wt, 'main..HEAD');
    expect(subjects.filter((s) => s === 'feat(crashy): library')).toHaveLength(1);
    expect(subjects).toContain('feat(crashy): tests');
    const resumed = server.mainRequests()[before]!.userText ?? '';
    expect(resumed).toContain('This phase, "tests", was started before and interrupted');
    expect(resumed).toContain('+++ b/sum.test.mjs');
    expect(server.mainRequests().slice(before).some((q) => (q.userText ?? '').includes('Development phase 1 of 2'))).toBe(false);
    expect(done.total).toEqual(sumPhases(done.phases));
  }, 240_000);
});
