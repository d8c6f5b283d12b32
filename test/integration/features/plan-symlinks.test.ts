/**
 * Issue 20 §2.6: `feature plan` never writes through a committed symlink under `.flightdeck/`
 * (the feature's folder or one below it): it refuses, naming the link, and nothing lands where
 * the link points. Against the real app, the real git and the scripted model server.
 */
import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { PlanDraft, PlanRevision } from '../../../src-preload/contract';
import { newFeatureState, writeState } from '../../../src-main/features/state';
import { gitIn, tempDir } from '../../support/temp';
import { call, DESIGN_SPEC, planningHarness, VERIFICATION_PLAN, type PlanningHarness } from './support';

let h: PlanningHarness | null = null;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.cleanup();
  h = null;
  for (const c of cleanups.splice(0)) c();
});

function outsideDir(): string {
  const d = tempDir('fd-plan-outside-');
  cleanups.push(d.cleanup);
  return d.path;
}

function commitRepo(repo: string, build: () => void): void {
  mkdirSync(join(repo, '.flightdeck'), { recursive: true });
  writeFileSync(join(repo, '.flightdeck', 'config.yml'), 'checks: ["npm test"]\n');
  writeFileSync(join(repo, '.gitignore'), '.trees/\n');
  build();
  gitIn(repo, 'add', '-A');
  gitIn(repo, 'commit', '-q', '-m', 'a repository with a planted link');
}

const SCRIPT = [
  { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text' as const, text: VERIFICATION_PLAN }] },
  { match: { userPattern: '' }, blocks: [{ type: 'text' as const, text: DESIGN_SPEC }] },
];

describe('feature plan and committed symlinks under .flightdeck', () => {
  it('a committed .flightdeck/<slug> folder symlink: planning that slug is refused at once, naming the link', async () => {
    h = await planningHarness(SCRIPT);
    const outside = outsideDir();
    const repo = h.repo;
    commitRepo(repo, () => symlinkSync(outside, join(repo, '.flightdeck', 'leak')));
    await expect(call(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'leak' })).rejects.toThrow(`${join(repo, '.flightdeck', 'leak')} is a symbolic link`);
    expect(readdirSync(outside)).toEqual([]);
    expect(h.server.mainRequests()).toHaveLength(0);
  });

  it('a committed symlink below the feature folder (specs): approving is refused naming it, nothing is written through it, no worktree is left', async () => {
    h = await planningHarness(SCRIPT);
    const outside = outsideDir();
    const repo = h.repo;
    commitRepo(repo, () => {
      mkdirSync(join(repo, '.flightdeck', 'leak'));
      symlinkSync(outside, join(repo, '.flightdeck', 'leak', 'specs'));
    });
    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'leak' });
    const v1 = await call<{ revision: PlanRevision }>(h.app, 'features.plan.approveDraft', { draftId: draft.id });
    const err = await call(h.app, 'features.plan.approve', { draftId: draft.id, revision: 1, designMd: v1.revision.designMd, verificationMd: v1.revision.verificationMd, phases: ['Login endpoint'], executor: 'builtin' }).then(
      () => null,
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain('refusing to write the specs');
    expect(err?.message).toContain(`${join(repo, '.trees', 'leak', '.flightdeck', 'leak', 'specs')} is a symbolic link`);
    expect(readdirSync(outside)).toEqual([]);
    expect(gitIn(repo, 'worktree', 'list', '--porcelain')).not.toContain('.trees/leak');
  });

  it('the state writer refuses a symlinked feature folder, naming it', () => {
    const wt = outsideDir();
    const outside = outsideDir();
    mkdirSync(join(wt, '.flightdeck'));
    symlinkSync(outside, join(wt, '.flightdeck', 'x'));
    const state = newFeatureState({ slug: 'x', now: new Date('2026-02-10T10:30:00Z'), worktreePath: '.trees/x', branch: 'feature/x', baseBranch: 'main', devPhases: ['one'] });
    expect(() => writeState(join(wt, '.flightdeck', 'x', 'state.yml'), state)).toThrow(`refusing to write the feature state: ${join(wt, '.flightdeck', 'x')} is a symbolic link`);
    expect(readdirSync(outside)).toEqual([]);
  });
});
