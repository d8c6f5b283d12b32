import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_MENTION_FILES, sessionFiles } from '../../../src-main/agents/session-files';
import { tempDir } from '../../support/temp';
import { harness, type Harness } from './harness';

let h: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0)) c();
});
const ctx = { origin: 'test' as const, connectionId: 't' };

describe('agents.files.suggest', () => {
  it('lists tracked and untracked files of the session root, never ignored ones, best matches first', async () => {
    h = await harness([]);
    writeFileSync(join(h.repo, '.gitignore'), 'secret-build/\n*.log\n');
    mkdirSync(join(h.repo, 'src', 'agents'), { recursive: true });
    mkdirSync(join(h.repo, 'secret-build'));
    writeFileSync(join(h.repo, 'src', 'agents', 'Composer.tsx'), 'export {};\n');
    writeFileSync(join(h.repo, 'src', 'compose-notes.md'), 'untracked\n');
    writeFileSync(join(h.repo, 'secret-build', 'composer.js'), 'ignored\n');
    writeFileSync(join(h.repo, 'composer.log'), 'ignored\n');
    const id = h.session();
    const r = (await h.app.router.dispatch('agents.files.suggest', { sessionId: id, query: 'composer' }, ctx)) as { ok: true; value: { paths: string[]; truncated: boolean } };
    expect(r.ok).toBe(true);
    expect(r.value.paths[0]).toBe('src/agents/Composer.tsx');
    expect(r.value.truncated).toBe(false);
    const all = (await h.app.router.dispatch('agents.files.suggest', { sessionId: id, query: '', limit: 50 }, ctx)) as { ok: true; value: { paths: string[] } };
    expect(all.value.paths).toEqual(expect.arrayContaining(['README.md', '.gitignore', 'src/compose-notes.md', 'src/agents/Composer.tsx']));
    expect(all.value.paths.some((p) => p.startsWith('secret-build') || p.endsWith('.log'))).toBe(false);
    expect(await h.app.router.dispatch('agents.files.suggest', { sessionId: 'ses-doesnotexist1', query: '' }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('outside a git repository walks the folder, skipping dot-folders and node_modules, and stops at its bound', async () => {
    const dir = tempDir('fd-mention-walk-');
    cleanups.push(() => dir.cleanup());
    mkdirSync(join(dir.path, 'lib'));
    mkdirSync(join(dir.path, '.hidden'));
    mkdirSync(join(dir.path, 'node_modules', 'x'), { recursive: true });
    writeFileSync(join(dir.path, 'lib', 'a.py'), '');
    writeFileSync(join(dir.path, '.hidden', 'b.py'), '');
    writeFileSync(join(dir.path, 'node_modules', 'x', 'c.js'), '');
    const listed = await sessionFiles(dir.path);
    expect(listed).toEqual({ files: ['lib/a.py'], truncated: false });
    expect(MAX_MENTION_FILES).toBeGreaterThan(1000);
  });
});
