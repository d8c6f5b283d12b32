import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { changedBetween, collectFacts, commitAll, revertPaths, snapshotTree } from '../../../src-main/autopilot/workspace';
import { runAcceptance } from '../../../src-main/autopilot/acceptance';
import { gitIn, makeRepo } from '../../support/temp';

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
