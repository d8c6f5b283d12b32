/**
 * Features from GitHub issues on the command line: the open issues listed through gh (scripted
 * here), `feature new --from-issue` planning from one (its title, body and comments are the
 * Planner's first message), the feature recording the issue when approved, and a machine
 * without gh told how to enable it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { parseIssueRecord } from '../../../src-main/features/issue-input';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index';
import { cli } from '../../support/cli';
import { gitIn, tempDir } from '../../support/temp';
import { withFakeGh } from './run/support';
import { DESIGN_SPEC, repoWithOrigin, saveScriptedProfile, VERIFICATION_PLAN } from './support';

const ISSUES = [
  {
    number: 12,
    state: 'OPEN',
    url: 'https://github.com/acme/widgets/issues/12',
    title: 'Login redirect loses the page',
    body: 'After logging in, users land on /home instead of the page they asked for.',
    labels: [{ name: 'bug' }],
    assignees: [{ login: 'ana' }],
    author: { login: 'bo' },
    comments: [{ author: { login: 'ana' }, body: 'Keep the ?next= parameter through the OAuth round trip.' }],
  },
  { number: 13, state: 'OPEN', url: 'https://github.com/acme/widgets/issues/13', title: 'Dark mode', body: '', labels: [{ name: 'ui' }], assignees: [], author: { login: 'cy' }, comments: [] },
  { number: 9, state: 'CLOSED', url: 'https://github.com/acme/widgets/issues/9', title: 'Old', body: '', labels: [], assignees: [], author: null, comments: [] },
];

const saved = { PATH: process.env.PATH, GH_CONFIG_DIR: process.env.GH_CONFIG_DIR };
const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  process.env.PATH = saved.PATH;
  if (saved.GH_CONFIG_DIR === undefined) delete process.env.GH_CONFIG_DIR;
  else process.env.GH_CONFIG_DIR = saved.GH_CONFIG_DIR;
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function setup(script: Script): Promise<{ server: ModelServer; repo: string; run: (...argv: string[]) => ReturnType<typeof cli> }> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-issue-cli-data-');
  const r = repoWithOrigin();
  cleanups.push(() => server.close(), data.cleanup, r.cleanup);
  const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' } });
  saveScriptedProfile(app, server.url);
  app.dispose();
  writeFileSync(join(r.repo, '.gitignore'), '.trees/\n');
  mkdirSync(join(r.repo, '.flightdeck'), { recursive: true });
  writeFileSync(join(r.repo, '.flightdeck', 'config.yml'), 'checks: []\n');
  gitIn(r.repo, 'add', '.');
  gitIn(r.repo, 'commit', '-q', '-m', 'init features');
  return { server, repo: r.repo, run: (...argv) => cli(...argv, '--data-dir', data.path) };
}

function useGh(scenario: unknown): string {
  const gh = withFakeGh(scenario);
  cleanups.push(() => gh.cleanup());
  process.env.PATH = gh.env.PATH;
  process.env.GH_CONFIG_DIR = gh.env.GH_CONFIG_DIR;
  return gh.dir;
}

describe('features from issues (CLI)', () => {
  it('lists open issues by label and assignee, plans one from its number, and the approved feature records it', async () => {
    const h = await setup([
      { match: { userPattern: 'Plan this feature from issue #12' }, blocks: [{ type: 'text', text: 'Should ?next= survive a sign-up too?' }] },
      { match: { userPattern: 'Yes, sign-up too' }, blocks: [{ type: 'text', text: 'Understood.' }] },
      { match: { userPattern: 'approved the design we discussed' }, blocks: [{ type: 'text', text: DESIGN_SPEC }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }] },
    ]);
    const ghDir = useGh({ issues: ISSUES });

    const all = await h.run('feature', 'issues', '--repo', h.repo);
    expect(all.err).toBe('');
    expect(all.code).toBe(0);
    expect(all.lines).toEqual(['#12     Login redirect loses the page  [bug]  @ana', '#13     Dark mode  [ui]', 'Plan one: feature new --from-issue N']);
    const bugs = await h.run('feature', 'issues', '--repo', h.repo, '--label', 'bug', '--json');
    expect((JSON.parse(bugs.out) as Array<{ number: number }>).map((i) => i.number)).toEqual([12]);
    const mine = await h.run('feature', 'issues', '--repo', h.repo, '--assignee', 'nobody');
    expect(mine.out).toBe('No open issues.');

    const started = await h.run('feature', 'new', '--from-issue', 'https://github.com/acme/widgets/issues/12', '--repo', h.repo);
    expect(started.err).toBe('');
    expect(started.code).toBe(0);
    expect(started.out).toContain('Planning login-redirect-loses-the-page-12 from issue #12: Login redirect loses the page');
    expect(started.out).toContain('Planner: Should ?next= survive a sign-up too?');
    // The issue's title, body, labels and discussion are the Planner's first message.
    const first = h.server.mainRequests()[0]!.userText ?? '';
    expect(first).toContain('Plan this feature from issue #12: Login redirect loses the page\nhttps://github.com/acme/widgets/issues/12');
    expect(first).toContain('After logging in, users land on /home instead of the page they asked for.');
    expect(first).toContain('Labels: bug');
    expect(first).toContain('**ana:**\nKeep the ?next= parameter through the OAuth round trip.');
    const views = readFileSync(join(ghDir, 'calls.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { argv: string[] }).argv).filter((a) => a[1] === 'view');
    expect(views[0]!.slice(0, 3)).toEqual(['issue', 'view', 'https://github.com/acme/widgets/issues/12']);

    // Planning goes on by its slug, and the approved feature keeps the issue with its specs.
    const slug = 'login-redirect-loses-the-page-12';
    const done = await h.run('feature', 'plan', slug, '--repo', h.repo, '--message', 'Yes, sign-up too', '--approve', '--done');
    expect(done.err).toBe('');
    expect(done.code).toBe(0);
    const tree = join(h.repo, '.trees', slug);
    const record = parseIssueRecord(readFileSync(join(tree, '.flightdeck', slug, 'issue.yml'), 'utf8'));
    expect(record).toEqual({ number: 12, url: 'https://github.com/acme/widgets/issues/12', title: 'Login redirect loses the page' });
    // Committed with the planning artifacts on the feature's branch.
    expect(gitIn(tree, 'show', `HEAD:.flightdeck/${slug}/issue.yml`)).toContain('number: 12');
    // The list (the board's cards) links it.
    const listed = JSON.parse((await h.run('feature', 'list', '--repo', h.repo, '--json')).out) as { projects: Array<{ features: Array<{ slug: string; issue?: unknown }> }> };
    expect(listed.projects[0]!.features.find((f) => f.slug === slug)!.issue).toEqual({ number: 12, url: 'https://github.com/acme/widgets/issues/12', title: 'Login redirect loses the page' });
  }, 120_000);

  it('names an issue that does not exist, refuses a malformed reference, and says how to get gh when it is missing', async () => {
    const h = await setup([]);
    useGh({ issues: ISSUES });
    const missing = await h.run('feature', 'new', '--from-issue', '404', '--repo', h.repo);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/gh issue view failed: GraphQL: Could not resolve to an issue .* 404/);
    expect((await h.run('feature', 'new', '--from-issue', 'twelve', '--repo', h.repo)).code).toBe(2);
    expect((await h.run('feature', 'new', '--repo', h.repo)).code).toBe(2);
    expect(existsSync(join(h.repo, '.trees'))).toBe(false);

    // A PATH with git and without gh.
    const bin = tempDir('fd-issue-nogh-');
    cleanups.push(bin.cleanup);
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin.path, 'git'));
    process.env.PATH = bin.path;
    const nogh = await h.run('feature', 'issues', '--repo', h.repo);
    expect(nogh.code).toBe(1);
    expect(nogh.err).toContain('Features from issues read them with the GitHub CLI (gh), which is not installed or not on PATH. Install it from https://cli.github.com and run "gh auth login"');
    expect(h.server.mainRequests()).toHaveLength(0);
  }, 120_000);
});
