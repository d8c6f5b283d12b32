import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readState, sumPhases } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { cli } from '../../../support/cli';
import { gitIn } from '../../../support/temp';
import { CLEAN_REVIEW, commitSubjects, configYaml, makeRunRepo, planFeature, runHarness, showFile, SUM_JS, SUM_TEST, text, VERIFY_PASS, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

describe('feature run: dev phases, review, verify, delivery (built-in executor)', () => {
  it('runs two dev phases with auto-commit, a clean review and a passing verify, completes locally without a remote, then merges', async () => {
    repo = makeRunRepo({ remote: 'none' });
    const wt = await planFeature(repo.repo, 'demo', ['library', 'tests']);
    h = await runHarness([
      write('sum.mjs', SUM_JS),
      text('Phase one done: sum.mjs.'),
      write('sum.test.mjs', SUM_TEST),
      text('Phase two done: the test.'),
      CLEAN_REVIEW,
      VERIFY_PASS,
    ]);
    const { done, ...info } = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo' });
    expect(info.status).toBe('running'); // Below the parallel limit it starts at once.
    const r = await done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(r.delivery).toEqual({ kind: 'local' });

    // state.yml: every phase completed, per-phase figures, totals equal to the sum of the phases.
    const s = await readState(activeStatePath(repo.repo, 'demo'));
    expect(s.status).toBe('completed');
    expect(s.phases.map((p) => [p.name, p.status, p.turns])).toEqual([
      ['library', 'completed', 2],
      ['tests', 'completed', 2],
      ['review', 'completed', 1],
      ['verify', 'completed', 1],
    ]);
    expect(s.total).toEqual(sumPhases(s.phases));
    expect(s.total.cost_usd).toBeGreaterThan(0);
    expect(s.total.cost.input_tokens).toBeGreaterThan(0);
    // The phase costs are the recorded model calls of the run's session, split per interaction.
    const recorded = h.app.db.prepare('SELECT COALESCE(SUM(usd), 0) AS usd, COUNT(*) AS calls FROM agent_costs').get() as { usd: number; calls: number };
    expect(s.total.cost_usd).toBeCloseTo(recorded.usd, 6);
    expect(s.total.turns).toBe(recorded.calls);

    // One commit per phase, then the record. The record the run rewrites between phases goes with
    // the phase's commit; only before verify is it committed on its own (the checks see a clean tree).
    const subjects = commitSubjects(wt, 'main..HEAD');
    expect(subjects).toEqual(['chore(demo): feature completed', 'feat(demo): verify', 'chore(demo): update the feature record before verify', 'feat(demo): review', 'feat(demo): tests', 'feat(demo): library', 'feat(demo): initialize planning artifacts']);
    // No fix round came before review or verify: no commit calls itself a fix (issue 21).
    expect(subjects.filter((s) => /fix/i.test(s))).toEqual([]);
    expect(showFile(wt, 'HEAD', 'sum.mjs')).toBe(SUM_JS);
    expect(gitIn(wt, 'status', '--porcelain')).toBe('');
    // The committed record says completed.
    expect(showFile(wt, 'HEAD', '.flightdeck/demo/state.yml')).toContain('status: completed');

    // The run events, in order, persisted (replayable) and published alike.
    await h.app.events.whenFlushed();
    const types = h.events.map((e) => e.data.type);
    expect(types).toEqual(['RunStarting', 'PhaseStarting', 'PhaseCompleted', 'PhaseStarting', 'PhaseCompleted', 'PhaseStarting', 'ReviewRound', 'PhaseCompleted', 'PhaseStarting', 'VerifyAttempt', 'PhaseCompleted', 'CreatingPr', 'PrCreated', 'RunFinished']);
    const replay = h.app.featureRuns.events(info.id);
    expect(replay.map((e) => e.data)).toEqual(h.events.map((e) => e.data));
    const verify = h.events.find((e) => e.data.type === 'VerifyAttempt')!.data as Extract<(typeof h.events)[number]['data'], { type: 'VerifyAttempt' }>;
    expect(verify.checks).toEqual([expect.objectContaining({ command: 'node --test', exitCode: 0, passed: true })]);
    // The check ran in a terminal the user can open.
    expect(h.app.terminals.get(verify.checks[0]!.terminalId!).command).toContain('node --test');
    const finished = h.events.at(-1)!.data as { type: 'RunFinished'; success: boolean; totals: { costUsd: number } };
    expect(finished.success).toBe(true);
    expect(finished.totals.costUsd).toBeCloseTo(s.total.cost_usd, 6);
    expect(h.app.featureRuns.history(repo.repo, 'demo')[0]).toMatchObject({ status: 'completed' });

    // A second run of a completed feature is refused.
    await expect(h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'demo' })).rejects.toThrow(/already completed/);

    // feature merge: asks first, then merges into main locally.
    const dataDir = h.dataDir;
    h.app.dispose();
    const dry = await cli('feature', 'merge', 'demo', '--repo', repo.repo, '--data-dir', dataDir);
    expect(dry.code).toBe(1);
    expect(dry.out).toMatch(/Would merge \d+ commits of feature\/demo into main/);
    expect(existsSync(join(repo.repo, 'sum.mjs'))).toBe(false);
    const merged = await cli('feature', 'merge', 'demo', '--repo', repo.repo, '--data-dir', dataDir, '--yes');
    expect(merged.err).toBe('');
    expect(merged.code).toBe(0);
    expect(readFileSync(join(repo.repo, 'sum.mjs'), 'utf8')).toBe(SUM_JS);
    expect(gitIn(repo.repo, 'log', '-1', '--format=%s')).toContain('Merge(demo)');
    expect(showFile(repo.repo, 'main', '.flightdeck/demo/state.yml')).toContain('status: merged');
  }, 120_000);

  it('feature merge refuses a base that moved in a conflicting way, and squashes into one commit when it merges', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') });
    await planFeature(repo.repo, 'clash', ['work']);
    await planFeature(repo.repo, 'squashy', ['work']);
    const pass = text('```yaml\nresult: pass\nitems: []\n```');
    h = await runHarness([write('shared.txt', 'from the feature\n'), text('Done.'), pass, write('other.txt', 'squashed\n'), text('Done.'), pass]);
    expect((await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'clash' })).done).outcome).toBe('completed');
    expect((await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'squashy' })).done).outcome).toBe('completed');
    // main gets its own shared.txt meanwhile: the feature's conflicts with it.
    writeFileSync(join(repo.repo, 'shared.txt'), 'from main\n');
    gitIn(repo.repo, 'add', 'shared.txt');
    gitIn(repo.repo, 'commit', '-q', '-m', 'main moves');
    const mainBefore = gitIn(repo.repo, 'rev-parse', 'main').trim();
    await expect(h.app.featureRuns.merge({ projectPath: repo.repo, slug: 'clash', squash: false, confirm: true })).rejects.toThrow(/main has moved in a way that conflicts with feature\/clash \(shared\.txt\)/);
    expect(gitIn(repo.repo, 'rev-parse', 'main').trim()).toBe(mainBefore);
    expect((await readState(activeStatePath(repo.repo, 'clash'))).status).toBe('completed');

    // The merge's record cannot be committed (an editor's git holds the worktree's index): nothing
    // is merged, and the feature stays completed, so the merge can be tried again.
    const squashyTree = join(repo.repo, '.trees', 'squashy');
    const lock = join(gitIn(squashyTree, 'rev-parse', '--path-format=absolute', '--git-dir').trim(), 'index.lock');
    writeFileSync(lock, '');
    await expect(h.app.featureRuns.merge({ projectPath: repo.repo, slug: 'squashy', squash: true, confirm: true })).rejects.toThrow(/index\.lock/);
    expect(gitIn(repo.repo, 'rev-parse', 'main').trim()).toBe(mainBefore);
    expect((await readState(activeStatePath(repo.repo, 'squashy'))).status).toBe('completed');
    rmSync(lock);

    // squashy merges (main moved, but not in its files): one new commit on main, its change in it.
    const plan = await h.app.featureRuns.merge({ projectPath: repo.repo, slug: 'squashy', squash: true, confirm: false });
    expect(plan.message).toContain('(main has moved since; it merges cleanly)');
    const r = await h.app.featureRuns.merge({ projectPath: repo.repo, slug: 'squashy', squash: true, confirm: true });
    expect(r).toMatchObject({ merged: true, method: 'squash' });
    expect(gitIn(repo.repo, 'rev-list', '--count', `${mainBefore}..main`).trim()).toBe('1');
    expect(gitIn(repo.repo, 'rev-list', '--parents', '-1', 'main').trim().split(' ')).toHaveLength(2);
    expect(readFileSync(join(repo.repo, 'other.txt'), 'utf8')).toBe('squashed\n');
    expect(showFile(repo.repo, 'main', '.flightdeck/squashy/state.yml')).toContain('status: merged');
  }, 120_000);
});
