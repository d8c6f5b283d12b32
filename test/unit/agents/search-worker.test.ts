import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SearchTimeoutError, runSearchJob, type SearchJob } from '../../../src-main/agents/tools/search-worker';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function job(root: string, pattern: string, over: Partial<SearchJob> = {}): SearchJob {
  return { mode: 'grep', realRoot: root, baseRel: '.', baseIsDir: true, pattern, flags: '', glob: null, maxMatches: 300, maxFiles: 50_000, maxFileBytes: 2 << 20, skippedDirs: ['.git', 'node_modules'], ...over };
}

describe('grep in a worker', () => {
  it('finds matches with path and line', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, 'a.txt'), 'one\nneedle here\nthree\n');
    writeFileSync(join(d.path, 'b.bin'), Buffer.from([0, 1, 2, 110, 101, 101, 100, 108, 101]));
    const r = await runSearchJob(job(d.path, 'needle'), { signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(r.lines).toEqual(['a.txt:2: needle here']);
  });

  it('a catastrophic pattern is stopped at the deadline while the main thread keeps running', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, 'evil.txt'), 'a'.repeat(40) + 'b\n');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = Date.now();
    await expect(runSearchJob(job(d.path, '(a+)+$'), { signal: new AbortController().signal, timeoutMs: 300 })).rejects.toBeInstanceOf(SearchTimeoutError);
    clearInterval(ticker);
    // The main thread was never blocked: timers kept firing while the worker backtracked.
    expect(ticks).toBeGreaterThan(5);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
  });

  it('cancel stops it at once', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, 'evil.txt'), 'a'.repeat(40) + 'b\n');
    const ac = new AbortController();
    const p = runSearchJob(job(d.path, '(a+)+$'), { signal: ac.signal, timeoutMs: 60_000 });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toThrow('cancelled');
  });
});

describe('glob in the worker', () => {
  it('matches paths relative to the searched folder, skipping .git and node_modules unless asked', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(d.path, 'src/deep'), { recursive: true });
    mkdirSync(join(d.path, 'node_modules/x'), { recursive: true });
    writeFileSync(join(d.path, 'src/a.ts'), '');
    writeFileSync(join(d.path, 'src/deep/b.ts'), '');
    writeFileSync(join(d.path, 'node_modules/x/c.ts'), '');
    const re = /^(?:(?:^|\/|(?:(?:(?!(?:^|\/)\.{1,2}(?:\/|$)).)*?)\/)[^/]*?\.ts)$/;
    const r = await runSearchJob(job(d.path, '', { mode: 'glob', glob: { source: re.source, flags: '' }, globFrom: '.' }), { signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(r.lines.sort()).toEqual(['src/a.ts', 'src/deep/b.ts']);
    const sub = await runSearchJob(job(d.path, '', { mode: 'glob', baseRel: 'src', glob: { source: '^[^/]*\\.ts$', flags: '' }, globFrom: 'src' }), { signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(sub.lines).toEqual(['src/a.ts']);
  });
});
