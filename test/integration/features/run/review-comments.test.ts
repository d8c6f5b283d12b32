/**
 * Diff comments back to the agent: comments anchored to lines of the feature's branch, sent as
 * one fix round by the next run (which then reviews and verifies again), and judged after the
 * fix — addressed (their lines changed), outdated (their lines are gone) or open (left as they
 * were) — kept across a restart; the command line's comment, comments and fix.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { reopenFeatureForFix } from '../../../../src-main/features/run/fix-round';
import { readState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import { cli } from '../../../support/cli';
import { gitIn } from '../../../support/temp';
import { bash, CLEAN_REVIEW, cleanupRunTest, commitSubjects, configYaml, makeRunRepo, planFeature, runHarness, runTest, text, VERIFY_PASS, write } from './support';

const t = runTest();
afterEach(() => cleanupRunTest(t));

const LIB = 'export function sum(a, b) {\n  return a + b;\n}\n\nexport const VERSION = 1;\n';
const HELPER = 'export const helper = 1;\n';
const FIXED = '/** Adds two numbers. */\nexport function sum(a, b) {\n  return a + b;\n}\n\nexport const VERSION = 1;\n';

describe('review comments sent to the agent', () => {
  it('sends open comments as one fix round before review, then judges each: addressed, outdated, open; kept across a restart', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }) }));
    const wt = await planFeature(repo.repo, 'widget', ['library']);
    const h = (t.h = await runHarness([
      // The first run: the library, a clean review, a passing verify.
      write('sum.mjs', LIB),
      write('helper.mjs', HELPER),
      text('Library written.'),
      CLEAN_REVIEW,
      VERIFY_PASS,
      // The fix round: a doc comment on sum, the helper removed; VERSION left alone.
      write('sum.mjs', FIXED),
      bash('rm helper.mjs'),
      text('1. Added a doc comment. 2. Removed the helper. 3. Left VERSION.'),
      CLEAN_REVIEW,
      VERIFY_PASS,
    ]));
    const first = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' })).done;
    expect(first.outcome).toBe('completed');

    const c = h.app.reviewComments;
    const onSum = await c.add({ repoRoot: repo.repo, slug: 'widget', file: 'sum.mjs', lineStart: 1, lineEnd: 3, body: 'Document what sum does.' });
    const onHelper = await c.add({ repoRoot: repo.repo, slug: 'widget', file: 'helper.mjs', lineStart: 1, lineEnd: 1, body: 'Nobody uses this: remove it.' });
    const onVersion = await c.add({ repoRoot: repo.repo, slug: 'widget', file: 'sum.mjs', lineStart: 5, lineEnd: 5, body: 'Is VERSION still needed?' });
    expect(onSum).toMatchObject({ status: 'open', quote: 'export function sum(a, b) {\n  return a + b;\n}', revision: gitIn(wt, 'rev-parse', 'HEAD').trim() });
    // Refused: lines past the end, a file not in the commit, a path out of the worktree.
    await expect(c.add({ repoRoot: repo.repo, slug: 'widget', file: 'sum.mjs', lineStart: 40, lineEnd: 41, body: 'x' })).rejects.toThrow(/has 5 lines .* there is no line 41/);
    await expect(c.add({ repoRoot: repo.repo, slug: 'widget', file: 'nope.mjs', lineStart: 1, lineEnd: 1, body: 'x' })).rejects.toThrow(/not in the feature's last commit/);
    await expect(c.add({ repoRoot: repo.repo, slug: 'widget', file: '../../x', lineStart: 1, lineEnd: 1, body: 'x' })).rejects.toThrow(/not a path inside/);

    // A round whose process was killed left one comment "sent": it goes again with the next round.
    c.markSent([onVersion.id], 'deadbeef');
    expect(c.list(repo.repo, 'widget', 'sent').map((x) => x.id)).toEqual([onVersion.id]);
    await reopenFeatureForFix(repo.repo, 'widget', new Date());
    const reopened = await readState(activeStatePath(repo.repo, 'widget'));
    expect(reopened.status).toBe('in_progress');
    expect(reopened.phases.map((p) => p.status)).toEqual(['completed', 'pending', 'pending']);
    const before = h.server.mainRequests().length;
    const second = await (await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' })).done;
    expect(second.message).toBeNull();
    expect(second.outcome).toBe('completed');

    // One fix round: every comment anchored as file, lines, the quoted code and the text.
    const asked = h.server.mainRequests()[before]!.userText ?? '';
    expect(asked).toContain('left 3 comments on it');
    expect(asked).toContain('### 1. sum.mjs, lines 1-3\n\n```\nexport function sum(a, b) {\n  return a + b;\n}\n```\n\nDocument what sum does.');
    expect(asked).toContain('### 2. helper.mjs, line 1');
    expect(asked).toContain('### 3. sum.mjs, line 5');
    // The dev phase did not run again: the fix round (write, rm, answer), then review and verify.
    expect(h.server.mainRequests().length - before).toBe(5);
    expect(commitSubjects(wt, 'main..HEAD')).toContain('fix(widget): address 3 review comments');
    expect(existsSync(join(wt, 'helper.mjs'))).toBe(false);
    const s = await readState(activeStatePath(repo.repo, 'widget'));
    expect(s.status).toBe('completed');
    // The fix round is the review phase's: the first review (1 call), the fix (3), the second review (1).
    expect(s.phases.find((p) => p.name === 'review')!.turns).toBe(5);

    const judged = new Map(c.list(repo.repo, 'widget').map((x) => [x.id, x]));
    expect(judged.get(onSum.id)!.status).toBe('addressed');
    expect(judged.get(onHelper.id)!.status).toBe('outdated');
    expect(judged.get(onVersion.id)!.status).toBe('open');
    expect(judged.get(onSum.id)!.sentRevision).toBe(onSum.revision);

    // The user reopens one; the stored comments outlive the app.
    c.reopen(onSum.id);
    const dataDir = h.dataDir;
    h.app.dispose();
    const again = await runHarness([], { dataDir });
    const kept = again.app.reviewComments.list(repo.repo, 'widget');
    expect(kept.map((x) => x.status)).toEqual(['open', 'outdated', 'open']);
    await again.cleanup();
  }, 240_000);

  it('comment, comments and fix on the command line', async () => {
    const repo = (t.repo = makeRunRepo({ remote: 'none', config: configYaml({ checks: [] }) }));
    const wt = await planFeature(repo.repo, 'widget', ['library']);
    const h = (t.h = await runHarness([write('sum.mjs', LIB), text('Done.'), CLEAN_REVIEW, VERIFY_PASS, write('sum.mjs', FIXED), text('Documented.'), CLEAN_REVIEW, VERIFY_PASS]));
    const data = ['--data-dir', h.dataDir, '--repo', repo.repo];
    const nothing = await cli('feature', 'fix', 'widget', ...data);
    expect(nothing.code).toBe(1);
    expect(nothing.err).toMatch(/no open review comments on widget/);
    expect((await h.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' }).then((r) => r.done)).outcome).toBe('completed');
    h.app.dispose();

    expect((await cli('feature', 'comment', 'widget', '--file', 'sum.mjs', ...data, 'x')).code).toBe(2);
    expect((await cli('feature', 'comment', 'widget', '--file', 'sum.mjs', '--line', '3-1', ...data, 'x')).code).toBe(2);
    expect((await cli('feature', 'comment', 'widget', '--file', 'sum.mjs', '--line', '1', ...data)).code).toBe(2);
    const added = await cli('feature', 'comment', 'widget', '--file', 'sum.mjs', '--line', '1-3', ...data, 'Document', 'it.');
    expect(added.err).toBe('');
    expect(added.code).toBe(0);
    expect(added.out).toMatch(/^Comment rc-\S+ on sum\.mjs:1-3 at [0-9a-f]{8}\. Send the open comments with: feature fix widget$/);
    const listed = await cli('feature', 'comments', 'widget', ...data);
    expect(listed.out).toMatch(/^open {6}sum\.mjs:1-3 {2}Document it\. {2}\(rc-\S+\)$/);

    const fixed = await cli('feature', 'fix', 'widget', ...data, '--json');
    expect(fixed.err).toBe('');
    expect(fixed.code).toBe(0);
    expect(gitIn(wt, 'show', 'HEAD:sum.mjs')).toBe(FIXED);
    const after = JSON.parse((await cli('feature', 'comments', 'widget', ...data, '--json')).out) as Array<{ status: string }>;
    expect(after.map((x) => x.status)).toEqual(['addressed']);
  }, 240_000);
});
