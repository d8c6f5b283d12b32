import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_FOLDER_SUGGESTIONS, suggestFolders } from '../../../src-main/projects/folder-suggest';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

function fixture() {
  const home = tempDir('fd-home-');
  const outside = tempDir('fd-outside-');
  cleanups.push(home.cleanup, outside.cleanup);
  for (const d of ['code/app-one', 'code/App-two', 'code/api', 'code/.hidden', 'docs']) mkdirSync(join(home.path, d), { recursive: true });
  writeFileSync(join(home.path, 'code/app-notes.txt'), 'a file, never suggested');
  mkdirSync(join(outside.path, 'secret-project'));
  symlinkSync(outside.path, join(home.path, 'code/app-escape'));
  symlinkSync(join(home.path, 'docs'), join(home.path, 'code/app-docs-link'));
  return { home: home.path, outside: outside.path };
}

describe('folder suggestions for Add project (confined to the home folder)', () => {
  it('completes a typed name with folders only, case-insensitively, links that stay inside included', () => {
    const { home } = fixture();
    const r = suggestFolders(join(home, 'code/ap'), home);
    expect(r.problem).toBeNull();
    expect(r.suggestions.map((s) => s.name)).toEqual(['api', 'app-docs-link', 'app-one', 'App-two']);
    expect(r.suggestions[0]!.path).toBe(join(home, 'code/api'));
    expect(suggestFolders('~/code/', home).suggestions.map((s) => s.name)).toEqual(['api', 'app-docs-link', 'app-one', 'App-two']);
    expect(suggestFolders('~/code/.', home).suggestions.map((s) => s.name)).toEqual(['.hidden']);
    expect(suggestFolders('', home).suggestions.map((s) => s.name)).toEqual(['code', 'docs']);
  });

  it('never lists outside the home folder, through .. or through a symbolic link', () => {
    const { home, outside } = fixture();
    expect(suggestFolders(outside + '/', home)).toMatchObject({ folder: null, suggestions: [], problem: expect.stringMatching(/inside your home folder/) });
    expect(suggestFolders('~/../', home).suggestions).toEqual([]);
    expect(suggestFolders('/', home).suggestions).toEqual([]);
    const viaLink = suggestFolders('~/code/app-escape/', home);
    expect(viaLink.suggestions).toEqual([]);
    expect(viaLink.problem).toMatch(/leads outside your home folder/);
    expect(suggestFolders('~/nope/', home).problem).toMatch(/does not exist/);
  });

  it('is bounded', () => {
    const { home } = fixture();
    for (let i = 0; i < MAX_FOLDER_SUGGESTIONS + 10; i++) mkdirSync(join(home, 'docs', `d${String(i).padStart(3, '0')}`));
    const r = suggestFolders('~/docs/', home);
    expect(r.suggestions).toHaveLength(MAX_FOLDER_SUGGESTIONS);
    expect(r.truncated).toBe(true);
  });
});
