/**
 * Worktree creation through Flightdeck (WorktreeManager.create: slug check, base detection, the
 * branch-in-use check, the ignore entry, `git worktree add`, the listing of the result — and the
 * default preparation of a new worktree: copying the env files) against a bare
 * `git worktree add -b` on the same repository. The ratio is what Flightdeck's safety costs.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { defaultConfig } from '../../src-main/features/config';
import { WorktreeManager } from '../../src-main/worktrees/worktree-manager';
import { prepareWorktree } from '../../src-main/worktrees/worktree-prepare';
import { gitIn, makeRepo } from '../support/temp';

/** A middling project: enough files that checking them out is real work, as it is for users. */
const FILES = 2_000;
const RUNS = 8;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

export async function run(): Promise<Record<string, unknown>> {
  const repo = makeRepo('fd-bench-wt-');
  try {
    for (let i = 0; i < FILES; i++) {
      const dir = join(repo.path, 'src', `m${i % 40}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `f${i}.ts`), `export const v${i} = ${i};\n`.repeat(20));
    }
    writeFileSync(join(repo.path, '.gitignore'), '.trees/\n.env\n');
    writeFileSync(join(repo.path, '.env'), 'SECRET=1\n');
    gitIn(repo.path, 'add', '.');
    gitIn(repo.path, 'commit', '-q', '-m', 'files');
    const manager = new WorktreeManager();
    const config = defaultConfig().worktree;
    const raw: number[] = [];
    const flightdeck: number[] = [];
    // Interleaved so that caches and machine load affect both alike.
    for (let i = 0; i < RUNS; i++) {
      let t = performance.now();
      execFileSync('git', ['worktree', 'add', '-q', '-b', `raw/r${i}`, join(repo.path, '.trees', `raw-${i}`), 'main'], { cwd: repo.path });
      raw.push(performance.now() - t);
      t = performance.now();
      const { entry } = await manager.create(repo.path, `fd-${i}`);
      await prepareWorktree({ root: repo.path, worktree: entry.path, config });
      flightdeck.push(performance.now() - t);
    }
    const rawMs = median(raw);
    const fdMs = median(flightdeck);
    return { files: FILES, runs: RUNS, rawGitMedianMs: Math.round(rawMs), flightdeckMedianMs: Math.round(fdMs), ratio: Math.round((fdMs / rawMs) * 100) / 100 };
  } finally {
    repo.cleanup();
  }
}
