import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEventData } from '../../../../src-preload/contract';
import { readState, sumPhases } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { observeGit } from '../../../../src-main/git/git';
import { observeSpans } from '../../../../src-main/platform/spans';
import { gitIn } from '../../../support/temp';
import { waitFor } from '../../../support/processes';
import { CLEAN_REVIEW, commitSubjects, configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, SUM_TEST, text, VERIFY_PASS, write, type RunHarness, type RunRepo } from './support';

let repo: RunRepo | null = null;
let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  repo?.cleanup();
  h = null;
  repo = null;
});

type Ev<T extends RunEventData['type']> = Extract<RunEventData, { type: T }>;

describe('feature run: review rounds and verify attempts', () => {
  it('asks once for the format, fixes a major issue, verifies again after a failing node --test, and pushes with a compare URL when gh is missing', async () => {
    // The second check passes only on a clean tree: every attempt's commit, after a fix too, leaves one.
    repo = makeRunRepo({ remote: 'github', config: configYaml({ checks: ['node --test', 'test -z "$(git status --porcelain)"'] }) });
    const wt = await planFeature(repo.repo, 'calc', ['library']);
    const wrongTest = SUM_TEST.replace('5)', '6)');
    h = await runHarness([
      // dev phase
      write('sum.mjs', SUM_JS),
      text('Library written.'),
      // review round 1: no block, reminded once, still none → a failed round
      text('I reviewed it and it seems fine overall.'),
      text('Fine, really.'),
      // review round 2: a major issue, then the fix
      text('```yaml\nissues:\n  - severity: major\n    file: sum.mjs\n    description: there are no tests\n  - severity: minor\n    file: sum.mjs\n    line: 1\n    description: no doc comment\n```'),
      write('sum.test.mjs', wrongTest),
      text('Added a test.'),
      // review round 3: clean
      CLEAN_REVIEW,
      // verify attempt 1: the check fails (the test expects 6); the agent says pass, which is not enough
      VERIFY_PASS,
      write('sum.test.mjs', SUM_TEST),
      text('Fixed the expectation.'),
      // verify attempt 2: the check passes
      VERIFY_PASS,
    ]);
    // No gh on PATH here (none is installed on the test machines): push and the compare page.
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'calc' })).done;
    expect(r.message).toBeNull();
    expect(r.outcome).toBe('completed');
    expect(r.delivery).toEqual({ kind: 'compare', remote: 'origin', url: 'https://github.com/acme/widgets/compare/main...feature/calc?expand=1' });
    expect(h.server.pendingTurns()).toBe(0);

    await h.app.events.whenFlushed();
    const rounds = h.events.filter((e) => e.data.type === 'ReviewRound').map((e) => e.data as Ev<'ReviewRound'>);
    expect(rounds.map((x) => [x.round, x.parsed, x.issues.map((i) => i.severity)])).toEqual([
      [1, false, []],
      [2, true, ['major', 'minor']],
      [3, true, []],
    ]);
    const attempts = h.events.filter((e) => e.data.type === 'VerifyAttempt').map((e) => e.data as Ev<'VerifyAttempt'>);
    expect(attempts.map((a) => [a.attempt, a.result, a.agentResult, a.checks[0]!.exitCode])).toEqual([
      [1, 'fail', 'pass', 1],
      [2, 'pass', 'pass', 0],
    ]);
    expect(attempts[0]!.checks[0]!.output).toMatch(/fail/i);
    expect(attempts.map((a) => a.checks[1]!.passed)).toEqual([true, true]);

    // What the agent was told: the reminder, the issues to fix, the failing check's output.
    const asked = h.server.mainRequests().map((q) => q.userText ?? '');
    expect(asked.some((t) => t.includes('did not contain the fenced yaml block'))).toBe(true);
    expect(asked.some((t) => t.includes('[major] sum.mjs: there are no tests'))).toBe(true);
    expect(asked.some((t) => t.includes('The check `node --test` failed (exit 1)'))).toBe(true);

    const s = await readState(activeStatePath(repo.repo, 'calc'));
    const review = s.phases.find((p) => p.name === 'review')!;
    const verify = s.phases.find((p) => p.name === 'verify')!;
    // review: round 1 + reminder, round 2 + its fix (two calls), round 3 = 6 calls, accumulated in one phase
    expect(review.turns).toBe(6);
    expect(verify.turns).toBe(4);
    expect((review.details.rounds as unknown[]).length).toBe(3);
    expect(review.details.clean).toBe(true);
    expect((verify.details.attempts as unknown[]).length).toBe(2);
    expect(s.total).toEqual(sumPhases(s.phases));

    // The fixes were committed and the branch pushed to the bare origin as it is in the worktree.
    expect(gitIn(wt, 'show', 'HEAD:sum.test.mjs')).toBe(SUM_TEST);
    expect(gitIn(repo.origin!, 'rev-parse', 'refs/heads/feature/calc').trim()).toBe(gitIn(wt, 'rev-parse', 'HEAD').trim());
    // Each fix is named for the round that asked for it; nothing else calls itself a fix.
    const subjects = gitIn(wt, 'log', '--format=%s', 'main..HEAD').split('\n').filter(Boolean);
    expect(subjects.filter((x) => /fix/i.test(x))).toEqual(['fix(calc): verify fixes after verify attempt 1', 'fix(calc): review fixes after review round 2']);
    // A review fix holds the fix: the feature's record goes with the phase's own commit. A verify
    // fix holds the record too (the checks that follow see a clean tree).
    const files = (subject: string) => {
      const c = gitIn(wt, 'log', '--format=%H', `--grep=^${subject.replace(/[()]/g, '.')}$`, 'main..HEAD').trim();
      return gitIn(wt, 'show', '--name-only', '--format=', c).split('\n').filter(Boolean);
    };
    expect(files('fix(calc): review fixes after review round 2')).toEqual(['sum.test.mjs']);
    expect(files('fix(calc): verify fixes after verify attempt 1')).toEqual(['.flightdeck/calc/state.yml', 'sum.test.mjs']);
  }, 180_000);

  it("a review round's and a verify attempt's turn figures are written with their verdict: one state write each, nothing lost; no commit before the first round right after a phase's", async () => {
    // The check passes only on a clean tree: the record the run rewrote is committed before it.
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['test -z "$(git status --porcelain)"'] }) });
    await planFeature(repo.repo, 'writes', ['library']);
    h = await runHarness([write('sum.mjs', SUM_JS), text('Library written.'), CLEAN_REVIEW, VERIFY_PASS]);
    let writes = 0;
    observeSpans((name) => {
      if (name === 'state: write') writes++;
    });
    // Each call as its commands: a call that runs two (gitThen) as "first+then".
    const gits: string[] = [];
    observeGit((c) => gits.push(c.then ? `${c.args[0]}+${c.then[0]}` : c.args[0]!));
    try {
      const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'writes' })).done;
      expect(r.outcome).toBe('completed');
    } finally {
      observeSpans(null);
      observeGit(null);
    }
    // One add and one commit per phase, for the record before verify and at the end, each pair
    // one call. None before the review's first round, as no agent turn ran since the phase's
    // commit (an add and an empty commit for nothing): the review's diff marks untracked files
    // itself (-N), in the call that finds its merge base. The commit before verify is named for
    // what it holds: its add and the look at what is staged are one call, the commit another.
    expect(gits.filter((g) => /^(add|commit)\b/.test(g))).toEqual(['add+commit', 'add+merge-base', 'add+commit', 'add+diff', 'commit', 'add+commit', 'add+commit']);
    const verified = h.events.find((e) => e.data.type === 'VerifyAttempt')!.data as Extract<RunEventData, { type: 'VerifyAttempt' }>;
    expect(verified.checks.map((c) => [c.exitCode, c.passed])).toEqual([[0, true]]);
    expect(commitSubjects(repo.repo, 'main..feature/writes')).toEqual(['chore(writes): feature completed', 'feat(writes): verify', 'chore(writes): update the feature record before verify', 'feat(writes): review', 'feat(writes): library', 'feat(writes): initialize planning artifacts']);
    // Start; each phase: running, its turn (dev) or its turn with the verdict (review, verify), completed; delivery.
    expect(writes).toBe(1 + 3 * 3 + 1);
    const s = await readState(activeStatePath(repo.repo, 'writes'));
    const [dev, review, verify] = s.phases;
    expect([dev!.turns, review!.turns, verify!.turns]).toEqual([2, 1, 1]);
    expect(review!.cost.input_tokens).toBeGreaterThan(0);
    expect(verify!.cost.output_tokens).toBeGreaterThan(0);
    expect((review!.details.rounds as unknown[]).length).toBe(1);
    expect((verify!.details.attempts as unknown[]).length).toBe(1);
    expect(s.total).toEqual(sumPhases(s.phases));
  }, 120_000);

  it('a resumed review first commits what the stopped run left (not the record), and shows it', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['true'] }) });
    const wt = await planFeature(repo.repo, 'left', ['library']);
    h = await runHarness([
      write('sum.mjs', SUM_JS),
      text('Library written.'),
      // The review's answer hangs: the run is cancelled while it waits.
      { fault: { kind: 'stall', ms: 60_000 }, blocks: [{ type: 'text', text: 'never seen' }] },
    ]);
    const first = await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'left' });
    await waitFor(() => h!.server.mainRequests().length >= 3, 'the stalled review request', 60_000);
    expect(h.app.featureRuns.cancel(repo.repo, 'left')).toBe(true);
    expect((await first.done).outcome).toBe('cancelled');
    // Left in the worktree meanwhile (by the stopped turn, or by hand).
    writeFileSync(join(wt, 'notes.txt'), 'left behind\n');
    h.server.setScript([CLEAN_REVIEW, VERIFY_PASS]);
    const before = h.server.mainRequests().length;
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'left' })).done;
    expect(r.outcome).toBe('completed');
    expect(h.server.mainRequests()[before]!.userText).toContain('+++ b/notes.txt');
    const leftover = gitIn(wt, 'log', '--format=%H', '--grep=^feat(left): uncommitted changes before review$', 'main..HEAD').split('\n').filter(Boolean);
    expect(leftover).toHaveLength(1);
    expect(gitIn(wt, 'show', '--name-only', '--format=', leftover[0]!).split('\n').filter(Boolean)).toEqual(['notes.txt']);
  }, 180_000);

  it("a file made outside the agent's turns after a phase's commit is in the review's diff, and committed before the checks", async () => {
    // The check passes only on a clean tree.
    repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['test -z "$(git status --porcelain)"'] }) });
    const wt = await planFeature(repo.repo, 'outside', ['library']);
    h = await runHarness([write('sum.mjs', SUM_JS), text('Library written.'), CLEAN_REVIEW, VERIFY_PASS]);
    // Right after the dev phase's commit (a job the agent left running, the user, a generator),
    // and right after the review's (before the verify's first attempt). Written when git reports
    // the commit done, before the run goes on (run events reach subscribers in batches, later).
    const made: string[] = [];
    observeGit((c) => {
      const command = c.then ?? c.args;
      if (command[0] !== 'commit' || !c.ok) return;
      const name = command.includes('feat(outside): library') ? 'outside.txt' : command.includes('feat(outside): review') ? 'later.txt' : null;
      if (!name) return;
      writeFileSync(join(wt, name), 'made meanwhile\n');
      made.push(name);
    });
    try {
      expect((await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'outside' })).done).outcome).toBe('completed');
    } finally {
      observeGit(null);
    }
    expect(made).toEqual(['outside.txt', 'later.txt']);
    const review = h.server.mainRequests().map((q) => q.userText ?? '').find((t) => t.includes('Review round 1'));
    expect(review).toContain('+++ b/outside.txt');
    expect(gitIn(wt, 'status', '--porcelain')).toBe('');
    expect(gitIn(wt, 'log', '-1', '--format=%s', '--', 'outside.txt')).toBe('feat(outside): review\n');
    // The verify's commit took it with the record: not called bookkeeping, and the checks saw a clean tree.
    expect(gitIn(wt, 'log', '-1', '--format=%s', '--', 'later.txt')).toBe('feat(outside): uncommitted changes before verify\n');
    const verified = h.events.find((e) => e.data.type === 'VerifyAttempt')!.data as Extract<RunEventData, { type: 'VerifyAttempt' }>;
    expect(verified.checks.map((c) => c.passed)).toEqual([true]);
  }, 120_000);

  for (const autoCommit of [true, false]) {
    it(`the review is shown the phase's new file ${autoCommit ? 'committed by auto-commit' : 'left untracked (auto_commit: false)'}`, async () => {
      repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: ['true'] }).replace('auto_commit: true', `auto_commit: ${autoCommit}`) });
      const wt = await planFeature(repo.repo, 'shown', ['library']);
      h = await runHarness([write('sum.mjs', SUM_JS), text('Library written.'), CLEAN_REVIEW, VERIFY_PASS]);
      const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'shown' })).done;
      expect(r.outcome).toBe('completed');
      const review = h.server.mainRequests().map((q) => q.userText ?? '').find((t) => t.includes('Review round 1'));
      expect(review).toContain('+++ b/sum.mjs');
      expect(review).toContain('export function sum');
      // Committed on the branch, or still only in the work tree (marked intent-to-add for the diff).
      expect(gitIn(wt, 'log', '--format=%s', 'main..HEAD')).toMatch(autoCommit ? /feat\(shown\): library/ : /^(?![\s\S]*library)/);
      expect(gitIn(wt, 'status', '--porcelain', '--', 'sum.mjs')).toBe(autoCommit ? '' : ' A sum.mjs\n');
    }, 120_000);
  }

  it('fails the feature with the reason after max_retries + 1 failing verify attempts', async () => {
    repo = makeRunRepo({ remote: 'none', config: configYaml({ extra: '' }).replace('max_retries: 1', 'max_retries: 0').replace('enabled: true', 'enabled: false') });
    await planFeature(repo.repo, 'broken', ['library']);
    h = await runHarness([write('sum.mjs', SUM_JS), write('sum.test.mjs', SUM_TEST.replace('5)', '7)')), text('Done.'), VERIFY_PASS]);
    const r = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'broken' })).done;
    expect(r.outcome).toBe('failed');
    expect(r.message).toBe('Verification failed after 1 attempt: node --test (exit 1) failed.');
    const s = await readState(activeStatePath(repo.repo, 'broken'));
    expect(s.status).toBe('failed');
    expect(s.phases.map((p) => p.status)).toEqual(['completed', 'completed', 'failed']);
    expect(s.phases[1]!.details.skipped).toBe(true);
    expect(s.phases[2]!.details.reason).toBe(r.message);
  }, 120_000);
});
