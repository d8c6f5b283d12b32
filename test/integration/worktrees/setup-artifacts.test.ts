import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultConfig } from '../../../src-main/features/config';
import { DefaultGitOps } from '../../../src-main/features/git-ops';
import { branchDiff } from '../../../src-main/features/run/run-git';
import { boundedDiff } from '../../../src-main/git/bounded-diff';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { silentLogger } from '../../../src-main/platform/logger';
import { TerminalService } from '../../../src-main/terminals/terminal-service';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { prepareWorktree, worktreeEnv } from '../../../src-main/worktrees/worktree-prepare';
import { setupArtifacts } from '../../../src-main/worktrees/setup-artifacts';
import { gitIn, makeRepo } from '../../support/temp';

/**
 * Issue 21 item 3: feature setup ran `npm install`, the first phase's auto-commit took
 * node_modules (25,840 files) and review failed with Node's "stdout maxBuffer length exceeded".
 */
let repo: { path: string; cleanup(): void };
let manager: WorktreeManager;
let terminals: TerminalService;

beforeAll(() => {
  repo = makeRepo('fd-setup-art-');
  writeFileSync(join(repo.path, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', scripts: { test: 'node --test' } }, null, 2));
  gitIn(repo.path, 'add', '.');
  gitIn(repo.path, 'commit', '-q', '-m', 'package');
  manager = new WorktreeManager({ settleMs: 20 });
  terminals = new TerminalService({ hub: new EventHub(), projects: { get: () => { throw new Error('no projects here'); } }, log: silentLogger, envFor: worktreeEnv });
  terminals.start();
}, 30_000);

afterAll(async () => {
  await terminals.shutdown();
  repo.cleanup();
});

/** What `npm install` leaves in a repository that ignores nothing: a dependency tree and a lockfile. */
const NPM_INSTALL_LIKE = 'mkdir -p node_modules/dep/lib && for i in $(seq 1 400); do echo "module.exports = $i;" > node_modules/dep/lib/f$i.js; done && echo "{}" > package-lock.json';

describe('setup artifacts', () => {
  it('what setup created is recorded, never committed by auto-commit, and not part of the review diff', async () => {
    const { entry } = await manager.create(repo.path, 'setup-art');
    const wt = entry.path;
    writeFileSync(join(wt, 'notes.txt'), 'untracked before setup\n');
    const r = await prepareWorktree({ root: repo.path, worktree: wt, config: { ...defaultConfig().worktree, setup: [NPM_INSTALL_LIKE] }, runner: terminals });
    expect(r.setup?.ok).toBe(true);
    // The file that was there before setup is the user's (or the agent's), not setup's.
    expect(r.setupArtifacts).toEqual(['node_modules/', 'package-lock.json']);
    expect(await setupArtifacts(wt)).toEqual(['node_modules/', 'package-lock.json']);
    // Recorded in the worktree's git data, not in the checkout.
    expect(gitIn(wt, 'status', '--porcelain')).not.toContain('flightdeck-setup');

    // The agent's work.
    writeFileSync(join(wt, 'index.js'), 'module.exports = (a, b) => a + b;\n');
    const made = await new DefaultGitOps().commit(wt, 'feat: phase 1');
    expect(made).toBe(true);
    const committed = gitIn(wt, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n');
    expect(committed.sort()).toEqual(['index.js', 'notes.txt']);
    expect(gitIn(wt, 'status', '--porcelain')).toContain('?? node_modules/');

    const diff = await branchDiff(wt, 'main');
    expect(diff.truncated).toBe(false);
    expect(diff.text).toContain('index.js');
    expect(diff.text).not.toContain('node_modules');
    expect(diff.text).not.toContain('package-lock.json');
    // Nothing of setup's was put in the index either (intent-to-add would commit it later).
    expect(gitIn(wt, 'ls-files', '--', 'node_modules', 'package-lock.json')).toBe('');
  }, 60_000);

  it('a diff too big to read is cut with a marker that says how much was shown, never a maxBuffer error', async () => {
    const { entry } = await manager.create(repo.path, 'big-diff');
    const wt = entry.path;
    writeFileSync(join(wt, 'small.js'), 'export const x = 1;\n');
    writeFileSync(join(wt, 'huge.txt'), Array.from({ length: 60_000 }, (_, i) => `line ${i}`).join('\n') + '\n');
    // One 40 MB line: more than git's whole output buffer, in a single "line".
    writeFileSync(join(wt, 'minified.js'), 'x'.repeat(40 * 1024 * 1024));
    gitIn(wt, 'add', '.');
    gitIn(wt, 'commit', '-q', '-m', 'big');
    const diff = await branchDiff(wt, 'main');
    expect(diff.truncated).toBe(true);
    expect(diff.text).toContain('small.js');
    expect(diff.text).toMatch(/… diff truncated: \d+ of 3 files, \d+ of 60002 changed lines shown/);
    expect(diff.text).toContain('huge.txt (60000 lines)');
    expect(diff.text.length).toBeLessThan(200_000);

    // The byte budget alone (few lines, many bytes) is cut the same way.
    const bytes = await boundedDiff(wt, ['main'], ['minified.js'], { maxChars: 10_000 });
    expect(bytes.truncated).toBe(true);
    expect(bytes.text).toContain('… diff truncated:');
    expect(bytes.text).toContain('minified.js');
  }, 60_000);
});
