import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { GrepTimeoutError, runGrepJob, type GrepJob } from '../../../src-main/agents/tools/grep-worker';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function job(root: string, pattern: string, over: Partial<GrepJob> = {}): GrepJob {
  return { realRoot: root, baseRel: '.', baseIsDir: true, pattern, flags: '', glob: null, maxMatches: 300, maxFiles: 50_000, maxFileBytes: 2 << 20, skippedDirs: ['.git', 'node_modules'], ...over };
}

describe('grep in a worker', () => {
  it('finds matches with path and line', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, 'a.txt'), 'one\nneedle here\nthree\n');
    writeFileSync(join(d.path, 'b.bin'), Buffer.from([0, 1, 2, 110, 101, 101, 100, 108, 101]));
    const r = await runGrepJob(job(d.path, 'needle'), { signal: new AbortController().signal, timeoutMs: 10_000 });
    expect(r.lines).toEqual(['a.txt:2: needle here']);
  });

  it('a catastrophic pattern is stopped at the deadline while the main thread keeps running', async () => {
    const d = tempDir();
    cleanups.push(d.cleanup);
    writeFileSync(join(d.path, 'evil.txt'), 'a'.repeat(40) + 'b\n');
    let ticks = 0;
    const ticker = setInterval(() => ticks++, 10);
    const started = Date.now();
    await expect(runGrepJob(job(d.path, '(a+)+$'), { signal: new AbortController().signal, timeoutMs: 300 })).rejects.toBeInstanceOf(GrepTimeoutError);
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
    const p = runGrepJob(job(d.path, '(a+)+$'), { signal: ac.signal, timeoutMs: 60_000 });
    setTimeout(() => ac.abort(), 50);
    await expect(p).rejects.toThrow('cancelled');
  });
});
