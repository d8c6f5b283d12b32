import { describe, expect, it } from 'vitest';
import { toBoardCards } from '../../../../src-renderer/src/features/board-model';
import { placeWithPr, prKey } from '../../../../src-renderer/src/features/pr-placement';
import type { ListedFeature, ProjectFeatures } from '../../../../src-preload/contract/features';
import type { FeatureRunInfo } from '../../../../src-preload/contract/feature-runs';

const summary = (slug: string, over: Partial<ListedFeature> = {}): ListedFeature => ({
  slug,
  source: 'active',
  status: 'completed',
  branch: `feature/${slug}`,
  baseBranch: 'main',
  worktreePath: `.trees/${slug}`,
  turns: 3,
  costUsd: 0.25,
  currentPhase: null,
  createdAt: '2026-11-23T10:00:00.000Z',
  updatedAt: '2026-11-23T10:05:00.000Z',
  problem: null,
  ...over,
});
const project = (features: ListedFeature[]): ProjectFeatures => ({ projectId: 'p1', name: 'shop', repoRoot: '/repos/shop', features, problems: [], error: null });
const running: FeatureRunInfo = { id: 'frun-auth00001', projectPath: '/repos/shop', slug: 'auth', executor: 'builtin', status: 'running', position: null, phase: 'review', message: null, startedAt: 5000, endedAt: null, queuedAt: 4000 };

describe('the board and the pull request loop', () => {
  it('a PR that needs the user puts its feature under Needs input with the reason; ready and waiting for a review say so under Completed', () => {
    const prs = new Map([
      [prKey('/repos/shop/', 'stuck'), { status: 'needs_input' as const, reason: '1 check failed (test) after 3 fix rounds', number: 4 }],
      [prKey('/repos/shop', 'green'), { status: 'ready' as const, reason: null, number: 5 }],
      [prKey('/repos/shop', 'asks'), { status: 'needs_review' as const, reason: 'x', number: 6 }],
    ]);
    const cards = toBoardCards([project([summary('stuck'), summary('green'), summary('asks'), summary('plain')])], [], new Map(), new Map(), prs);
    const by = new Map(cards.map((c) => [c.slug, c]));
    expect(by.get('stuck')).toMatchObject({ column: 'needs_input', reason: 'PR #4: 1 check failed (test) after 3 fix rounds', waiting: 1 });
    expect(by.get('green')).toMatchObject({ column: 'completed', reason: 'Ready to merge (PR #5)' });
    expect(by.get('asks')).toMatchObject({ column: 'completed', reason: 'PR #6 needs your review' });
    expect(by.get('plain')).toMatchObject({ column: 'completed', reason: null });
  });

  it('a live run (a fix round) places the card itself', () => {
    const prs = new Map([[prKey('/repos/shop', 'auth'), { status: 'needs_input' as const, reason: 'r', number: 4 }]]);
    const [c] = toBoardCards([project([summary('auth', { status: 'in_progress' })])], [running], new Map(), new Map(), prs);
    expect(c!.column).toBe('in_progress');
    expect(placeWithPr({ column: 'failed', reason: 'x', resume: true }, { status: 'ready', reason: null, number: 1 }, false)).toEqual({ column: 'failed', reason: 'x', resume: true });
  });
});
