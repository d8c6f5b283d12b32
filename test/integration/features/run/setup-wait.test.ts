/**
 * Issue 23 §4: a feature's worktree is usable as soon as it is made, and its setup runs after.
 * A feature run needs what setup installs: its first agent turn (and its checks) wait for the
 * setup to end, saying so; a setup that failed refuses the run, naming the command and its exit
 * code, and the run starts once the setup has been run again.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../../support/processes';
import { cleanupRunTest, configYaml, DESIGN, makeRunRepo, PASS_NO_ITEMS, runHarness, runTest, SUM_JS, text, VERIFICATION, write } from './support';

const t = runTest();
afterEach(() => cleanupRunTest(t));

/** Waits until the test puts a file named `release` in the worktree, then leaves what the check looks for. */
const BLOCKED_SETUP = 'while [ ! -f release ]; do sleep 0.05; done; echo ran > setup-ran.txt';
const AGENT = { executor: 'builtin' as const, profile: null, model: null, mode: 'yolo' as const };
const config = (setup: string) => `${configYaml({ checks: ['test -f setup-ran.txt'] }).replace('enabled: true', 'enabled: false')}\nworktree:\n  setup:\n    - ${JSON.stringify(setup)}\n`;

describe('a feature run waits for its worktree setup', () => {
  it('does not start its first agent turn before setup ends; its check sees what setup made', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: config(BLOCKED_SETUP) }));
    const h = (t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), PASS_NO_ITEMS]));
    const feature = await h.app.planning.finalize({ repo: repo.repo, slug: 'waits', designMd: DESIGN(['work']), verificationMd: VERIFICATION, phases: ['work'], agent: AGENT });
    const tree = feature.worktreePath;
    // finalize returned with the worktree made and its setup still running.
    expect(h.app.worktreeSetups.status(tree)?.state).toMatch(/^(pending|running)$/);
    const run = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'waits' });
    await waitFor(() => h.events.some((e) => e.data.type === 'Notice' && /Waiting for the worktree's setup to finish/.test(e.data.message)), 'the run to say it waits for setup');
    // The run is waiting: no model call, no agent session started, no phase begun.
    expect(h.server.mainRequests()).toHaveLength(0);
    expect(h.events.some((e) => e.data.type === 'RunStarting' || e.data.type === 'PhaseStarting')).toBe(false);
    expect(h.app.worktreeSetups.status(tree)?.state).toMatch(/^(pending|running)$/);

    writeFileSync(join(tree, 'release'), '');
    const result = await run.done;
    expect(result.outcome, result.message ?? '').toBe('completed');
    expect(h.app.worktreeSetups.status(tree)?.state).toBe('done');
    expect(h.server.mainRequests().length).toBeGreaterThan(0);
    const finished = await waitFor(() => h.events.find((e) => e.data.type === 'RunFinished'), 'the run to finish');
    expect(finished.data.type === 'RunFinished' && finished.data.success).toBe(true);
  }, 180_000);

  it('a failed setup refuses the run with the command and exit code; once run again, the run starts', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: config('test -f fixed || exit 9') }));
    const h = (t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), PASS_NO_ITEMS]));
    const feature = await h.app.planning.finalize({ repo: repo.repo, slug: 'broken', designMd: DESIGN(['work']), verificationMd: VERIFICATION, phases: ['work'], agent: AGENT });
    const tree = feature.worktreePath;
    const refused = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'broken' })).done;
    expect(refused.outcome).toBe('failed');
    expect(refused.message).toContain("The run did not start: the worktree's setup failed at `test -f fixed || exit 9`: exited with code 9");
    expect(refused.message).toContain('flightdeck worktree setup broken');
    expect(h.server.mainRequests()).toHaveLength(0);

    writeFileSync(join(tree, 'fixed'), '');
    writeFileSync(join(tree, 'setup-ran.txt'), '');
    await h.app.worktreeSetups.rerun(repo.repo, tree);
    const run = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'broken' });
    const result = await run.done;
    expect(result.outcome, result.message ?? '').toBe('completed');
    expect(h.server.mainRequests().length).toBeGreaterThan(0);
    expect(existsSync(join(tree, 'sum.mjs'))).toBe(true);
  }, 180_000);

  it('after a restart cut its setup off, a run runs the setup again and waits for it before its first turn', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: config(BLOCKED_SETUP) }));
    let h = (t.h = await runHarness([]));
    const feature = await h.app.planning.finalize({ repo: repo.repo, slug: 'restarted', designMd: DESIGN(['work']), verificationMd: VERIFICATION, phases: ['work'], agent: AGENT });
    const tree = feature.worktreePath;
    await waitFor(() => h.app.worktreeSetups.status(tree)?.state === 'running', 'the setup to run');
    // The app stops mid-setup (quit, crash): the next start reads it as interrupted.
    h.app.dispose();
    const first = h;
    h = t.h = await runHarness([write('sum.mjs', SUM_JS), text('Done.'), PASS_NO_ITEMS], { dataDir: first.dataDir });
    expect(h.app.worktreeSetups.status(tree)?.state).toBe('interrupted');

    const run = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'restarted' });
    await waitFor(() => h.events.some((e) => e.data.type === 'Notice' && /Waiting for the worktree's setup to finish/.test(e.data.message)), 'the run to wait for the setup run again');
    expect(h.app.worktreeSetups.status(tree)?.state).toMatch(/^(pending|running)$/);
    expect(h.server.mainRequests()).toHaveLength(0);
    writeFileSync(join(tree, 'release'), '');
    const result = await run.done;
    expect(result.outcome, result.message ?? '').toBe('completed');
    expect(h.app.worktreeSetups.status(tree)?.state).toBe('done');
    expect(existsSync(join(tree, 'setup-ran.txt'))).toBe(true);
    await first.server.close();
  }, 180_000);

  it('a run cancelled while it waits for setup ends cancelled without starting; the setup runs on', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: config(BLOCKED_SETUP) }));
    const h = (t.h = await runHarness([]));
    const feature = await h.app.planning.finalize({ repo: repo.repo, slug: 'stopped', designMd: DESIGN(['work']), verificationMd: VERIFICATION, phases: ['work'], agent: AGENT });
    const run = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'stopped' });
    await waitFor(() => h.events.some((e) => e.data.type === 'Notice' && /Waiting for the worktree's setup/.test(e.data.message)), 'the run to wait for setup');
    h.app.featureRuns.cancel(repo.repo, 'stopped');
    const result = await run.done;
    expect(result.outcome).toBe('cancelled');
    expect(h.server.mainRequests()).toHaveLength(0);
    expect(h.events.some((e) => e.data.type === 'RunStarting')).toBe(false);
    expect(h.app.worktreeSetups.status(feature.worktreePath)?.state).toMatch(/^(pending|running)$/);
    writeFileSync(join(feature.worktreePath, 'release'), '');
    const setup = await h.app.worktreeSetups.wait(feature.worktreePath);
    expect(setup?.state, JSON.stringify(setup?.failed)).toBe('done');
  }, 120_000);
});
