import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer } from '../../fixtures/model-server/index.js';
import { cli } from '../../support/cli';
import { startTestApp } from '../../support/app';
import { isAlive, killGroup, pidsWith, waitFor } from '../../support/processes';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { saveTestProfile } from '../agents/harness';
import { autopilotHarness, logLines, plan, turn, write, type AutopilotHarness } from './support';

/**
 * Issue 20 §2.4 and §2.8: the acceptance command runs what the agent wrote, so it runs in the
 * agent's sandbox unless the user chose otherwise for the run; and it is recorded so a process
 * that dies while it runs does not leave it running beside the one a resume starts.
 */

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

const cleanups: Array<() => unknown> = [];
let h: AutopilotHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** The agent's test.sh: writes in the workspace, outside it (a folder of the test's), and in the main checkout. */
function hostileTestSh(outside: string, repo: string): string {
  return [`echo inside > inside.txt`, `echo escaped > ${outside}/marker`, `echo escaped > ${repo}/escaped.txt`, 'exit 0', ''].join('\n');
}

async function runWithRewrittenTestSh(unsandboxed: boolean): Promise<{ worktree: string; outside: string; repo: string; where: unknown }> {
  const outside = tempDir('fd-acceptance-outside-');
  cleanups.push(outside.cleanup);
  const repo = makeRepo('fd-acceptance-repo-');
  cleanups.push(repo.cleanup);
  // The repository's own, harmless test.sh: the agent rewrites it.
  writeFileSync(join(repo.path, 'test.sh'), 'exit 0\n');
  gitIn(repo.path, 'add', 'test.sh');
  gitIn(repo.path, 'commit', '-q', '-m', 'test.sh');
  h = await autopilotHarness(
    [...turn([write('PLAN.md', plan({ next: 'Make the tests pass', testCmd: 'sh test.sh' }))], 'Planned.'), ...turn([write('test.sh', hostileTestSh(outside.path, repo.path))], 'Rewrote the tests.')],
    { repo: repo.path },
  );
  const run = await h.run({ goal: 'Make the tests pass', testCmd: 'sh test.sh', ...(unsandboxed ? { acceptanceUnsandboxed: true } : {}) });
  expect([run.status, run.state.exitReason, run.message]).toEqual(['stopped', 'done', null]);
  expect(run.options.acceptanceUnsandboxed).toBe(unsandboxed);
  const where = logLines(run).find((l) => l.type === 'verification')?.where;
  return { worktree: run.worktree, outside: outside.path, repo: repo.path, where };
}

describe('autopilot acceptance command: where it runs', () => {
  it('runs in the agent sandbox: the rewritten test.sh writes in the workspace, never outside it', async () => {
    const r = await runWithRewrittenTestSh(false);
    expect(readFileSync(join(r.worktree, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(existsSync(join(r.outside, 'marker'))).toBe(false);
    expect(existsSync(join(r.repo, 'escaped.txt'))).toBe(false);
    expect(r.where).toBe('sandbox');
  }, 120_000);

  it('with the run explicitly unsandboxed, the same test.sh reaches outside the workspace (the option is real)', async () => {
    const r = await runWithRewrittenTestSh(true);
    expect(readFileSync(join(r.worktree, 'inside.txt'), 'utf8')).toBe('inside\n');
    expect(readFileSync(join(r.outside, 'marker'), 'utf8')).toBe('escaped\n');
    expect(existsSync(join(r.repo, 'escaped.txt'))).toBe(true);
    expect(r.where).toBe('host-unsandboxed');
  }, 120_000);
});

describe('autopilot acceptance command after a crash', () => {
  it('a CLI killed while its acceptance command runs leaves nothing running: the next start ends it, and resume runs exactly one', async () => {
    // A command line no other test uses: the sandboxed sleep is found from outside by it.
    const sleep = `sleep ${86_400 + Math.floor(Math.random() * 100_000)}`;
    cleanups.push(() => {
      for (const pid of pidsWith(sleep)) process.kill(pid, 'SIGKILL');
    });
    const server = await startModelServer({ script: [...turn([write('PLAN.md', plan({ next: 'Wait', testCmd: sleep }))], 'Planned.'), ...turn([], 'Nothing to change.')] });
    const data = tempDir('fd-acceptance-crash-');
    const repo = makeRepo('fd-acceptance-crash-repo-');
    cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
    const setup = await startTestApp(data.path);
    saveTestProfile(setup.app, server.url);
    setup.app.dispose();

    const spawnCli = (args: string[]): { child: ChildProcess; out: () => string } => {
      const child = spawn(TSX, ['src-main/cli/main.ts', ...args, '--json', '--data-dir', data.path], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
      cleanups.push(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone (the test killed it).
        }
      });
      let out = '';
      child.stdout!.setEncoding('utf8').on('data', (c: string) => (out += c));
      return { child, out: () => out };
    };

    // Unsandboxed, as the attack ran it: a sandboxed command also dies with its parent
    // (bubblewrap's --die-with-parent), a host one only through the record.
    const first = spawnCli(['autopilot', 'run', '--repo', repo.path, '--goal', 'Wait', '--test-cmd', sleep, '--acceptance-unsandboxed']);
    const [old] = await waitFor(() => (pidsWith(sleep).length === 1 ? pidsWith(sleep) : null), 'the first acceptance command running', 90_000);
    const runId = (JSON.parse(first.out().split('\n')[0]!) as { runId: string }).runId;
    // The host process dies at once (no chance to end its child): the command was reparented and goes on.
    await killGroup(first.child.pid!);
    expect(isAlive(old!)).toBe(true);

    // The next start of this data folder ends it (reading the run list starts the services).
    const listed = JSON.parse((await cli('autopilot', 'list', '--json', '--data-dir', data.path)).out) as Array<{ id: string; status: string; state: { phase: string } }>;
    expect(listed.find((r) => r.id === runId)).toMatchObject({ status: 'paused', state: { phase: 'S4_VERIFY' } });
    await waitFor(() => !isAlive(old!), 'the orphaned acceptance command to end', 10_000);

    // Resume verifies again: one acceptance command, the new one.
    const second = spawnCli(['autopilot', 'resume', runId]);
    const [fresh] = await waitFor(() => (pidsWith(sleep).length > 0 ? pidsWith(sleep) : null), 'the resumed acceptance command running', 90_000);
    expect(fresh).not.toBe(old);
    expect(pidsWith(sleep)).toEqual([fresh]);
    await killGroup(second.child.pid!);
    // A resume process that dies the same way is cleaned up the same way.
    await cli('autopilot', 'list', '--json', '--data-dir', data.path);
    await waitFor(() => pidsWith(sleep).length === 0, 'the second orphaned acceptance command to end', 10_000);
  }, 240_000);
});
