import { mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DRAFTS_DIR, newDraftId, PlanDraftStore, type StoredDraft } from '../../../src-main/features/plan-drafts';
import { tempDir } from '../../support/temp';

let dir: { path: string; cleanup(): void } | undefined;
afterEach(() => dir?.cleanup());

function draft(slug: string, createdAt: number): StoredDraft {
  return {
    draft: { id: newDraftId(), projectId: 'project-1', slug, sessionId: 'ses-abcdef123456', executor: 'builtin', status: 'discussing', revision: null, error: null, createdAt, updatedAt: createdAt },
    root: '/repo',
    profile: null,
    model: null,
    messagesSent: 0,
    revisions: [],
  };
}

describe('PlanDraftStore', () => {
  it('saves owner-only files, loads them back newest first, and removes them', () => {
    dir = tempDir('fd-drafts-');
    const store = new PlanDraftStore(dir.path);
    const a = draft('a', 1);
    const b = draft('b', 2);
    store.save(a);
    store.save(b);
    const file = join(dir.path, DRAFTS_DIR, `${a.draft.id}.json`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const again = new PlanDraftStore(dir.path);
    again.load();
    expect(again.all().map((d) => d.draft.slug)).toEqual(['b', 'a']);
    again.remove(a.draft.id);
    expect(readdirSync(join(dir.path, DRAFTS_DIR))).toEqual([`${b.draft.id}.json`]);
  });

  it('skips unreadable or malformed files without losing the good ones, and leaves them on disk', () => {
    dir = tempDir('fd-drafts-');
    const store = new PlanDraftStore(dir.path);
    const good = draft('good', 1);
    store.save(good);
    const folder = join(dir.path, DRAFTS_DIR);
    writeFileSync(join(folder, 'plan-broken1.json'), '{ not json');
    writeFileSync(join(folder, 'plan-broken2.json'), JSON.stringify({ draft: { id: 'plan-broken2' } }));
    mkdirSync(join(folder, 'plan-adirectory.json'));
    const again = new PlanDraftStore(dir.path);
    again.load();
    expect(again.all().map((d) => d.draft.id)).toEqual([good.draft.id]);
    expect(readdirSync(folder).sort()).toHaveLength(4);
  });

  it('refuses to save a draft outside its schema', () => {
    dir = tempDir('fd-drafts-');
    const store = new PlanDraftStore(dir.path);
    const bad = draft('x', 1);
    expect(() => store.save({ ...bad, draft: { ...bad.draft, id: 'nope' } })).toThrow();
    expect(store.all()).toEqual([]);
  });

  it('a missing data folder means no drafts', () => {
    const store = new PlanDraftStore('/nonexistent/flightdeck-data');
    store.load();
    expect(store.all()).toEqual([]);
  });
});
