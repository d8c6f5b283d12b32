import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempDir } from '../../support/temp';

/** While set, every fs.watch fails as it does when the system has no inotify watches left. */
let watchesLeft = true;
vi.mock('node:fs', async (importOriginal) => {
  const fs = await importOriginal<typeof import('node:fs')>();
  return {
    ...fs,
    watch: (...args: Parameters<typeof fs.watch>) => {
      if (!watchesLeft) throw Object.assign(new Error('ENOSPC: System limit for number of file watchers reached'), { code: 'ENOSPC' });
      return fs.watch(...args);
    },
  };
});

const { StateWatcher } = await import('../../../src-main/features/state-watcher');

const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  watchesLeft = true;
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('StateWatcher', () => {
  it('with no watches left, each sync reports the folders it could not watch once, with their number, and says it is incomplete', () => {
    const d = tempDir('fd-state-watcher-');
    dirs.push(d);
    const states = ['a', 'b', 'c'].map((slug) => {
      mkdirSync(join(d.path, '.flightdeck', slug), { recursive: true });
      const file = join(d.path, '.flightdeck', slug, 'state.yml');
      writeFileSync(file, 'slug: x\n');
      return file;
    });
    const errors: Array<{ folder: string; failed: number }> = [];
    const w = new StateWatcher(d.path, { isWatched: () => true, onChange: () => undefined, onError: (folder, _e, failed) => errors.push({ folder, failed }) });
    watchesLeft = false;
    // The root, .flightdeck and the three feature folders are there (.trees is not): five failed.
    expect(w.sync(states)).toEqual({ added: 0, complete: false });
    expect(errors).toEqual([{ folder: d.path, failed: 5 }]);
    expect(w.sync(states)).toEqual({ added: 0, complete: false });
    expect(errors).toHaveLength(2);
    // Watches freed again: every folder is watched, nothing more is reported.
    watchesLeft = true;
    expect(w.sync(states)).toEqual({ added: 5, complete: true });
    expect(errors).toHaveLength(2);
    expect(w.watched()).toHaveLength(5);
    w.close();
  });
});
