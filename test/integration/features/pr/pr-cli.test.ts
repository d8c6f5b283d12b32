/**
 * The pull request loop on the command line: `feature pr SLUG` (text and --json) shows the PR,
 * its checks and rounds; --merge is checked and asks for --yes; `feature merge` of a feature whose
 * PR is followed merges it with gh instead of locally; --stop and --follow.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readState } from '../../../../src-main/features/state';
import { activeStatePath } from '../../../../src-main/features/scanner';
import type { PrStatusView } from '../../../../src-main/features/pr/pr-service';
import { cli } from '../../../support/cli';
import { gitIn } from '../../../support/temp';
import { deliverAndFollow, PR_URL, prSetup, prTestState } from './support';

const t = prTestState();

describe('feature pr and feature merge on the command line', () => {
  it('shows the loop, refuses a bad method, asks before merging, and feature merge merges the followed PR with gh', async () => {
    const { repo, h, gh } = await prSetup(t, 'REVIEW_REQUIRED');
    await deliverAndFollow(h, repo);
    expect(h.app.inbox.list().entries.find((e) => e.title === 'Needs your review: widget')?.body).toBe(`The checks pass; the pull request needs an approving review. ${PR_URL}`);
    h.app.dispose();
    const at = ['--repo', repo.repo, '--data-dir', h.dataDir];

    const shown = await cli('feature', 'pr', 'widget', ...at);
    expect(shown.code).toBe(0);
    expect(shown.out).toContain(`Pull request #7: ${PR_URL}`);
    expect(shown.out).toContain('Status:  needs your review — The checks pass; the pull request needs an approving review.');
    expect(shown.out).toContain('Checks:  test pass');
    expect(shown.out).toContain('Rounds:  0 of at most 3');
    const json = await cli('feature', 'pr', 'widget', '--json', ...at);
    const s = JSON.parse(json.out) as PrStatusView;
    expect(s.follow).toMatchObject({ number: 7, status: 'needs_review' });
    expect(s.events.map((e) => e.kind)).toEqual(['opened', 'checks']);

    expect((await cli('feature', 'pr', 'widget', '--merge', 'octopus', ...at)).code).toBe(2);
    expect((await cli('feature', 'pr', 'widget', '--merge', 'squash', '--stop', ...at)).code).toBe(2);
    const unconfirmed = await cli('feature', 'pr', 'widget', '--merge', 'rebase', ...at);
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.out).toContain('Run again with --yes to merge pull request #7 (rebase)');
    const calls = () => readFileSync(join(gh.dir, 'calls.jsonl'), 'utf8');
    expect(calls()).not.toContain('"merge"');

    const stopped = await cli('feature', 'pr', 'widget', '--stop', ...at);
    expect(stopped.out).toContain('Status:  not followed (stopped)');
    const followed = await cli('feature', 'pr', 'widget', '--follow', ...at);
    expect(followed.out).toContain('Status:  watching');

    // feature merge of a followed PR: on GitHub with gh, not locally.
    const merged = await cli('feature', 'merge', 'widget', '--squash', '--yes', ...at);
    expect(merged.err).toBe('');
    expect(merged.out).toBe('Merged pull request #7 (squash).');
    expect(merged.code).toBe(0);
    expect(calls()).toContain('"argv":["pr","merge","7","--squash"]');
    expect((await readState(activeStatePath(repo.repo, 'widget'))).status).toBe('merged');
    expect((await cli('feature', 'pr', 'widget', ...at)).out).toContain('Status:  merged');
    // Nothing was merged into main locally.
    expect(gitIn(repo.repo, 'log', '--format=%s', 'main')).not.toContain('widget');
  }, 240_000);
});
