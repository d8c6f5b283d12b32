/**
 * Best-of-N (issue 24 §3) against the scripted model and real git, real checks (node --test):
 * three candidates of one plan, one of which fails verify; the comparison, the diff between two,
 * the judge, the refusals, then the pick (the winner becomes the feature's branch and is
 * delivered; every candidate archived under refs/flightdeck/archive/, its worktree gone).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readState, writeState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { gitIn } from '../../../support/temp';
import { waitFor } from '../../../support/processes';
import { CLEAN_REVIEW, makeRunRepo, planFeature, runHarness, SUM_JS, SUM_TEST, text, VERIFY_PASS, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

const MINOR_REVIEW = text('One nit.\n\n```yaml\nissues:\n  - severity: minor\n    file: sum.mjs\n    description: no doc comment\n```');
const JUDGE = text('```yaml\nranking:\n  - candidate: c3\n    reason: passes the checks and documents the function\n  - candidate: c1\n    reason: passes the checks\n  - candidate: c2\n    reason: its sum subtracts; node --test fails\nsummary: c3 is the most complete.\n```');

function settled(h: RunHarness, repoPath: string, runs: number): boolean {
  const rows = h.app.featureRuns.history(repoPath, 'calc');
  return rows.length >= runs && rows.every((r) => r.status !== 'queued' && r.status !== 'running' && r.status !== 'cancelling');
}

describe('feature candidates (best-of-N)', () => {
  it('runs three candidates under the parallel limit, compares them, judges, refuses a failed pick, and delivers the picked one with the others archived', async () => {
    repo = makeRunRepo({ remote: 'none' });
    const featureTree = await planFeature(repo.repo, 'calc', ['library']);
    h = await runHarness([
      // c1: sum with a test; clean review; verify passes
      write('sum.mjs', SUM_JS),
      write('sum.test.mjs', SUM_TEST),
      text('Library written.'),
      CLEAN_REVIEW,
      VERIFY_PASS,
      // c2: sum subtracts; its test fails at both verify attempts
      write('sum.mjs', 'export function sum(a, b) { return a - b; }\n'),
      write('sum.test.mjs', SUM_TEST),
      text('Library written.'),
      CLEAN_REVIEW,
      VERIFY_PASS,
      text('I could not find the problem.'),
      VERIFY_PASS,
      // c3: documented sum with a test; a minor review issue (not blocking); verify passes
      write('sum.mjs', `/** Adds two numbers. */\n${SUM_JS}`),
      write('sum.test.mjs', SUM_TEST),
      text('Library written.'),
      MINOR_REVIEW,
      VERIFY_PASS,
      // the judge
      JUDGE,
    ]);
    // One at a time: the scripted answers then go to the candidates in order (the limit is the queue's).
    h.app.featureRuns.setMaxParallel(1);
    const specs = [{ executor: 'builtin' as const }, { executor: 'builtin' as const, model: 'scripted-model' }, { executor: 'builtin' as const }];

    const preview = await h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'calc', candidates: specs, budget: { mode: 'split' }, confirm: false });
    expect(preview.started).toBe(false);
    expect(preview.totalBudgetUsd).toBe(20);
    expect(preview.candidates.map((c) => [c.branch, c.worktree, c.budgetUsd])).toEqual([
      ['feature/calc--c1', '.trees/calc--c1', 6.66],
      ['feature/calc--c2', '.trees/calc--c2', 6.66],
      ['feature/calc--c3', '.trees/calc--c3', 6.66],
    ]);
    expect(existsSync(join(repo.repo, '.trees/calc--c1'))).toBe(false);

    const started = await h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'calc', candidates: specs, budget: { mode: 'split' }, confirm: true });
    expect(started.started).toBe(true);
    expect(started.runs.map((r) => r.status)).toEqual(['running', 'queued', 'queued']);
    // Each run says which candidate it is (the board and the feature page tell them from runs of the feature).
    expect(started.runs.map((r) => r.candidate)).toEqual(['c1', 'c2', 'c3']);
    // A plain run of the feature is refused while its candidates are open.
    await expect(h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'calc' })).rejects.toThrow(/has 3 candidates open/);
    await expect(h.app.featureCandidates.start({ projectPath: repo.repo, slug: 'calc', candidates: specs, budget: { mode: 'split' }, confirm: true })).rejects.toThrow(/already has open candidates/);

    const midway = await h.app.featureCandidates.compare(repo.repo, 'calc');
    expect(midway!.candidates.map((c) => c.status)).toEqual(['running', 'queued', 'queued']);

    await waitFor(() => settled(h!, repo!.repo, 3), 'the three candidate runs', 180_000, 100);
    expect(h.server.pendingTurns()).toBe(1); // the judge's answer is left
    // The inbox names each candidate's end; none says the feature finished (it has not: nothing was delivered).
    await h.app.events.whenFlushed();
    const titles = h.app.inbox.list().entries.map((e) => e.title);
    expect(titles).toEqual(expect.arrayContaining(['Candidate c1 finished: calc', 'Candidate c2 failed: calc', 'Candidate c3 finished: calc']));
    expect(titles).not.toContain('Feature finished: calc');
    expect(h.app.featureRuns.events(started.runs[1]!.id).every((e) => e.candidate === 'c2')).toBe(true);

    const cmp = (await h.app.featureCandidates.compare(repo.repo, 'calc'))!;
    expect(cmp.status).toBe('open');
    const [c1, c2, c3] = cmp.candidates;
    expect([c1!.status, c2!.status, c3!.status]).toEqual(['finished', 'failed', 'finished']);
    expect(c1!.checks).toEqual([{ command: 'node --test', verdict: 'passed' }]);
    expect(c2!.checks).toEqual([{ command: 'node --test', verdict: 'failed' }]);
    expect(c2!.verifyAttempts).toBe(2);
    expect(c2!.message).toMatch(/Verification failed after 2 attempts: node --test/);
    expect(c3!.reviewIssues).toEqual({ critical: 0, major: 0, minor: 1, info: 0 });
    expect(c1!.reviewIssues.minor).toBe(0);
    expect(c1!.filesChanged).toBe(2);
    expect(c3!.linesAdded).toBe(c1!.linesAdded + 1);
    expect(c1!.testsAdded).toEqual(['sum.test.mjs']);
    expect(c2!.model).toBe('scripted-model');
    for (const c of cmp.candidates) {
      expect(c.inputTokens).toBeGreaterThan(0);
      expect(c.wallSecs).toBeGreaterThan(0);
      expect(c.head).toMatch(/^[0-9a-f]{40}$/);
    }
    // Each candidate worked in its own worktree on its own branch; the feature's worktree is untouched.
    expect(readFileSync(join(repo.repo, '.trees/calc--c2/sum.mjs'), 'utf8')).toContain('a - b');
    expect(existsSync(join(featureTree, 'sum.mjs'))).toBe(false);
    expect(gitIn(join(repo.repo, '.trees/calc--c3'), 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feature/calc--c3');

    const d = await h.app.featureCandidates.diff(repo.repo, 'calc', 2, 1);
    expect(d.from).toBe('c1');
    expect(d.files.map((f) => f.path)).toEqual(['sum.mjs']);
    expect(d.text).toContain('-export function sum(a, b) { return a + b; }');
    expect(d.text).toContain('+export function sum(a, b) { return a - b; }');
    const own = await h.app.featureCandidates.diff(repo.repo, 'calc', 1);
    expect(own.from).toBe('start');
    expect(own.text).not.toContain('.flightdeck');

    // The failed candidate's own record says otherwise (its agent can write it): the comparison goes by what the runner saw.
    const forgedPath = join(repo.repo, '.trees/calc--c2/.flightdeck/calc/state.yml');
    const forged = await readState(forgedPath);
    writeState(forgedPath, { ...forged, status: 'in_progress', phases: forged.phases.map((p) => ({ ...p, status: 'completed', details: p.name === 'verify' ? { attempts: [{ attempt: 1, result: 'pass', failed_checks: [] }] } : p.details })) });
    const again = (await h.app.featureCandidates.compare(repo.repo, 'calc'))!.candidates[1]!;
    expect([again.status, again.checks[0]!.verdict]).toEqual(['failed', 'failed']);
    await expect(h.app.featureCandidates.pick(repo.repo, 'calc', 2)).rejects.toThrow(/c2 did not finish \(failed/);

    const ranking = await h.app.featureCandidates.judge(repo.repo, 'calc');
    expect(ranking.ranking.map((r) => r.candidate)).toEqual([3, 1, 2]);
    expect(ranking.ranking[2]!.reason).toMatch(/subtracts/);
    expect(ranking.inputTokens).toBeGreaterThan(0);
    const judgePrompt = h.server.mainRequests().at(-1)!.userText ?? '';
    expect(judgePrompt).toContain('Candidate c2');
    expect(judgePrompt).toContain('`node --test` failed');
    expect(judgePrompt).toContain('sum(2, 3) is 5'); // the verification plan
    expect((await h.app.featureCandidates.compare(repo.repo, 'calc'))!.judge!.summary).toBe('c3 is the most complete.');

    const heads = Object.fromEntries(cmp.candidates.map((c) => [c.index, c.head!]));
    const picked = await h.app.featureCandidates.pick(repo.repo, 'calc', 3);
    expect(picked.run).not.toBeNull();
    expect(picked.group.status).toBe('picked');
    expect(picked.group.winner).toBe(3);
    // Every candidate kept under its archive ref, worktree and branch gone.
    for (const c of picked.group.candidates) {
      expect(c.archivedRef).toBe(`refs/flightdeck/archive/calc/${picked.group.id}/c${c.index}`);
      const kept = gitIn(repo.repo, 'rev-parse', c.archivedRef!).trim();
      expect(kept).toBe(c.head);
      // The failed candidate's last record (its failed phase) was uncommitted: committed on top before archiving.
      if (c.index === 2) expect(gitIn(repo.repo, 'rev-parse', `${kept}^`).trim()).toBe(heads[2]);
      else expect(kept).toBe(heads[c.index]);
      expect(existsSync(join(repo.repo, c.worktree))).toBe(false);
      expect(gitIn(repo.repo, 'branch', '--list', c.branch).trim()).toBe('');
    }
    expect(gitIn(repo.repo, 'worktree', 'list').split('\n').filter(Boolean)).toHaveLength(2);
    // The comparison still reads them from the archive.
    expect(picked.group.candidates.map((c) => c.status)).toEqual(['finished', 'failed', 'finished']);

    // The winner is the feature's branch now, delivered by a run of the feature (no remote: completed locally).
    await waitFor(() => settled(h!, repo!.repo, 4), 'the delivering run', 60_000, 100);
    expect(h.app.featureRuns.history(repo.repo, 'calc')[0]!.candidate).toBeUndefined();
    const state = await readState(activeStatePath(repo.repo, 'calc'));
    expect(state.status).toBe('completed');
    expect(state.git).toEqual({ worktree_path: '.trees/calc', branch: 'feature/calc', base_branch: 'main' });
    expect(readFileSync(join(featureTree, 'sum.mjs'), 'utf8')).toContain('Adds two numbers');
    expect(gitIn(repo.repo, 'merge-base', '--is-ancestor', heads[3]!, 'feature/calc')).toBe('');
    // The feature can be run plainly again (its candidates are closed): it is completed, so that is what it says.
    await expect(h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'calc' })).rejects.toThrow(/already completed/);
  }, 300_000);
});
