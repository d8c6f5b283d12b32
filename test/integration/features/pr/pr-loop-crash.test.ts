/**
 * The pull request loop survives a SIGKILL of the host mid-round: a `flightdeck serve` process
 * follows the PR, starts a fix round from a failed check and is killed while the agent works on
 * it; the next host resumes the run with the same round (sent again, not a second round), pushes
 * the fix, and a later look finds the PR green and approved without feeding the failure again.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer } from '../../../fixtures/model-server/index';
import { waitFor } from '../../../support/processes';
import { gitIn, tempDir } from '../../../support/temp';
import { startTestApp } from '../../../support/app';
import { saveTestProfile } from '../../agents/harness';
import { startHostProcess, type HostProcess } from '../../hardening/support';
import { configYaml, makeRunRepo, planFeature, runHarness, SUM_JS, text, VERIFY_PASS, withFakeGh, write, type RunRepo } from '../run/support';

let repo: RunRepo | null = null;
let server: ModelServer | null = null;
let host: HostProcess | null = null;
let data: { path: string; cleanup(): void } | null = null;
let gh: ReturnType<typeof withFakeGh> | null = null;
const savedEnv = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };
afterEach(async () => {
  process.env.PATH = savedEnv.PATH;
  if (savedEnv.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
  else process.env.GH_CONFIG_DIR = savedEnv.GH_CONFIG_DIR;
  await host?.stop();
  await server?.close();
  repo?.cleanup();
  data?.cleanup();
  gh?.cleanup();
  host = server = repo = data = gh = null;
});

const PR_URL = 'https://github.com/acme/widgets/pull/7';
const FIXED = '/** Adds two numbers. */\nexport function sum(a, b) {\n  return a + b;\n}\n';
const check = (name: string, bucket: string, run: number) => ({ name, bucket, workflow: 'CI', link: `https://github.com/acme/widgets/actions/runs/${run}/job/${run + 1}` });

function dbRow<T>(sql: string): T | undefined {
  const db = new Database(join(data!.path, 'flightdeck.db'), { readonly: true, fileMustExist: true });
  try {
    return db.prepare(sql).get() as T | undefined;
  } finally {
    db.close();
  }
}

describe('the pull request loop across a SIGKILL of the host', () => {
  it('a round cut off by the kill is sent again by the next host, pushed once, and never becomes a second round', async () => {
    repo = makeRunRepo({ remote: 'github', config: configYaml({ checks: [] }).replace('enabled: true', 'enabled: false') });
    gh = withFakeGh({
      prs: [],
      pull: {
        number: 7,
        url: PR_URL,
        origin: repo.origin,
        branch: 'feature/widget',
        stages: [
          { checks: [check('test', 'fail', 200)], logs: { '200': 'AssertionError: sum is undocumented\n' }, reviewDecision: '' },
          { checks: [check('test', 'pass', 400)], reviewDecision: 'APPROVED', reviews: [{ id: 'PRR_1', author: { login: 'alice' }, state: 'APPROVED', body: '' }] },
        ],
      },
    });
    process.env.PATH = gh.env.PATH;
    process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
    await planFeature(repo.repo, 'widget', ['library']);
    server = await startModelServer({
      script: [
        // The delivering run: dev, verify, the PR opened by the agent.
        write('sum.mjs', SUM_JS),
        text('Done.'),
        VERIFY_PASS,
        text(`Opened the pull request: ${PR_URL}`),
        // The fix round in the first host: the agent's first call hangs until the host is killed.
        { fault: { kind: 'stall', ms: 120_000 }, blocks: [{ type: 'text', text: 'never seen' }] },
        // The same round, resumed by the second host.
        write('sum.mjs', FIXED),
        text('Documented sum.'),
        VERIFY_PASS,
      ],
    });
    data = tempDir('fd-pr-crash-data-');
    const setup = await startTestApp(data.path);
    saveTestProfile(setup.app, server.url);
    setup.app.dispose();

    // The delivering run, in this process: it records PR #7 as followed.
    const first = await runHarness([], { dataDir: data.path });
    saveTestProfile(first.app, server.url);
    const done = await (await first.app.featureRuns.enqueue({ projectPath: repo.repo, slug: 'widget' })).done;
    expect(done.delivery).toMatchObject({ kind: 'pr', number: 7 });
    await waitFor(() => first.app.prFollow.repo.get(repo!.repo, 'widget'), 'the PR followed');
    first.app.dispose();
    await first.server.close();

    // The first host looks at once, starts round 1, and is killed while the agent works on it.
    host = await startHostProcess({ dataDir: data.path });
    await waitFor(() => dbRow<{ status: string }>("SELECT status FROM pr_rounds WHERE round = 1")?.status === 'sent', 'round 1 sent to the agent', 90_000, 100);
    await waitFor(() => server!.mainRequests().length >= 5, 'the stalled call', 30_000, 50);
    expect(server.mainRequests()[4]!.userText).toContain('AssertionError: sum is undocumented');
    host.process.kill('SIGKILL');
    await host.exited;
    host = null;
    expect(dbRow<{ status: string }>("SELECT status FROM pr_follows")?.status).toBe('fixing');

    // The next host takes the round up: the run resumes with it, the fix is pushed, the loop watches again.
    host = await startHostProcess({ dataDir: data.path });
    await waitFor(() => dbRow<{ status: string }>("SELECT status FROM pr_follows")?.status === 'watching', 'the round done after the restart', 120_000, 100);
    await host.stop();
    host = null;
    const resent = server.mainRequests().slice(5).find((r) => (r.userText ?? '').includes('AssertionError: sum is undocumented'));
    expect(resent?.userText).toContain('fix round 1 of at most 3');
    expect(gitIn(repo.origin!, 'log', '--format=%s', 'feature/widget').split('\n').filter((s) => s === 'fix(widget): pull request feedback (round 1)')).toHaveLength(1);
    expect(gitIn(repo.origin!, 'show', 'feature/widget:sum.mjs')).toBe(FIXED);

    // A look at the new head: green and approved; the old failure was not fed again.
    const last = await runHarness([], { dataDir: data.path });
    try {
      await last.app.prFollow.look(repo.repo, 'widget');
      const status = await last.app.prFollow.status(repo.repo, 'widget');
      expect(status.follow?.status).toBe('ready');
      expect(status.rounds.map((r) => [r.round, r.status])).toEqual([[1, 'fixed']]);
      expect(status.rounds[0]!.costUsd).toBeGreaterThan(0);
      expect(status.events.map((e) => e.kind)).toEqual(['opened', 'checks', 'fix_round', 'round_done', 'checks', 'review', 'ready']);
      const logCalls = readFileSync(join(gh.dir, 'calls.jsonl'), 'utf8').split('\n').filter((l) => l.includes('--log-failed'));
      expect(logCalls).toHaveLength(1);
    } finally {
      await last.cleanup();
    }
  }, 300_000);
});
