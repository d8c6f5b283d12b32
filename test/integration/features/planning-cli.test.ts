/**
 * `feature init` and `feature plan` on the command line (in-process, real data folder, real
 * repository with a bare origin, the scripted model server behind the default profile).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { readState } from '../../../src-main/features/state';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index';
import { cli } from '../../support/cli';
import { gitIn, tempDir } from '../../support/temp';
import { DESIGN_SPEC, repoWithOrigin, saveScriptedProfile, VERIFICATION_PLAN } from './support';

interface CliHarness {
  server: ModelServer;
  repo: string;
  data: string;
  files: string;
  run(...argv: string[]): ReturnType<typeof cli>;
  cleanup(): Promise<void>;
}

let h: CliHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function harness(script: Script): Promise<CliHarness> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-plan-cli-data-');
  const files = tempDir('fd-plan-cli-files-');
  const r = repoWithOrigin();
  // The profile the CLI's agents use, saved as a user would before running the command.
  const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' } });
  saveScriptedProfile(app, server.url);
  app.dispose();
  return {
    server,
    repo: r.repo,
    data: data.path,
    files: files.path,
    run: (...argv) => cli(...argv, '--data-dir', data.path),
    async cleanup() {
      await server.close();
      data.cleanup();
      files.cleanup();
      r.cleanup();
    },
  };
}

function initByHand(repo: string): void {
  writeFileSync(join(repo, '.gitignore'), '.trees/\n');
  gitIn(repo, 'add', '.gitignore');
  gitIn(repo, 'commit', '-q', '-m', 'ignore trees');
  mkdirSync(join(repo, '.flightdeck'), { recursive: true });
  writeFileSync(join(repo, '.flightdeck', 'config.yml'), 'checks: ["npm test"]\ngit:\n  branch_prefix: feat\n');
}

/** The user reviewed the config they wrote and trusted it (its checks are then used without a warning). */
async function trustRepo(hh: CliHarness): Promise<void> {
  const t = await hh.run('projects', 'trust', hh.repo, '--yes');
  expect(t.code, t.err).toBe(0);
}

describe('feature init (CLI)', () => {
  it('initializes, then refuses with exit 1 and the config error on stderr', async () => {
    h = await harness([
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text', text: 'A sample.' }] },
      { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'text', text: '<config_yml>\nchecks: ["npm run -s build"]\n</config_yml>\n<overview_md>\n# sample\n\nA sample project with vitest tests and eslint.\n</overview_md>' }] },
    ]);
    const first = await h.run('feature', 'init', '--repo', h.repo, '--json');
    expect(first.err).toBe('');
    expect(first.code).toBe(0);
    const r = JSON.parse(first.out) as { checks: string[]; configPath: string };
    expect(r.checks).toEqual(['npm run -s lint', 'npm test', 'npm run -s build']);
    expect(readFileSync(r.configPath, 'utf8')).toContain('npm run -s build');
    const second = await h.run('feature', 'init', '--repo', h.repo);
    expect(second.code).toBe(1);
    expect(second.out).not.toContain('Init will write:');
    expect(second.err).toMatch(/^error: config error: .*\.flightdeck\/config\.yml: the project is already initialized/);
  });
});

describe('feature init shows what it will write (CLI)', () => {
  it('prints each file before writing it, then says where it wrote', async () => {
    h = await harness([
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text', text: 'A sample.' }] },
      { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'text', text: '<config_yml>\nchecks: ["npm run -s build"]\n</config_yml>\n<overview_md>\n# sample\n\nA sample project with vitest tests and eslint, overview text OVERVIEW-4411.\n</overview_md>' }] },
    ]);
    const r = await h.run('feature', 'init', '--repo', h.repo);
    expect(r.code, r.err).toBe(0);
    const shown = r.out.indexOf('Init will write:');
    expect(shown).toBeGreaterThanOrEqual(0);
    expect(r.out.indexOf('OVERVIEW-4411')).toBeGreaterThan(shown);
    expect(r.out.indexOf('npm run -s build')).toBeGreaterThan(shown);
    expect(r.out).toContain(`── ${join(h.repo, '.gitignore')} ──\n.trees/ (appended unless it is already ignored)`);
    expect(r.out.indexOf('Initialized')).toBeGreaterThan(r.out.indexOf('OVERVIEW-4411'));
  });
});

describe('feature plan (CLI)', () => {
  it('--spec/--verification finalize at once', async () => {
    h = await harness([]);
    initByHand(h.repo);
    await trustRepo(h);
    writeFileSync(join(h.files, 'design.md'), DESIGN_SPEC);
    writeFileSync(join(h.files, 'verification.md'), VERIFICATION_PLAN);
    const r = await h.run('feature', 'plan', 'add-login', '--repo', h.repo, '--spec', join(h.files, 'design.md'), '--verification', join(h.files, 'verification.md'), '--executor', 'claude-code', '--mode', 'yolo');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Phases: password-hashing → login-endpoint → review → verify');
    const tree = join(h.repo, '.trees', 'add-login');
    // The project's own branch prefix.
    expect(gitIn(tree, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('feat/add-login');
    expect(gitIn(tree, 'log', '-1', '--format=%s%n%an').trim()).toBe('feat(add-login): initialize planning artifacts\nPlan Tester');
    expect(readFileSync(join(tree, '.flightdeck', 'add-login', 'specs', 'design.md'), 'utf8')).toBe(DESIGN_SPEC);
    const state = await readState(join(tree, '.flightdeck', 'add-login', 'state.yml'));
    expect(state.status).toBe('planned');
    expect(state.agent).toEqual({ executor: 'claude-code', profile: null, model: null, mode: 'yolo' });
    expect(h.server.mainRequests()).toHaveLength(0);
  });

  it('a plan approved without --mode runs unattended: feature run with no --approve runs its shell commands and finishes; --mode default stops at the first one (exit 3)', async () => {
    // Issue 21: approval saved auto-edit, so a headless run exited 3 at its first command.
    const bash = (command: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'bash', input: { command } }] });
    const say = (t: string): Script[number] => ({ blocks: [{ type: 'text', text: t }] });
    h = await harness([bash('echo hashed > hashing.txt'), say('Done.'), say('Done.'), say('```yaml\nresult: pass\nitems: []\n```'), bash('echo again > again.txt')]);
    initByHand(h.repo);
    await trustRepo(h);
    writeFileSync(join(h.repo, '.flightdeck', 'config.yml'), 'checks: []\nreview:\n  enabled: false\n');
    writeFileSync(join(h.files, 'design.md'), DESIGN_SPEC);
    writeFileSync(join(h.files, 'verification.md'), VERIFICATION_PLAN);
    const plan = await h.run('feature', 'plan', 'add-login', '--repo', h.repo, '--spec', join(h.files, 'design.md'), '--verification', join(h.files, 'verification.md'));
    expect(plan.code).toBe(0);
    const tree = join(h.repo, '.trees', 'add-login');
    expect((await readState(join(tree, '.flightdeck', 'add-login', 'state.yml'))).agent?.mode).toBe('yolo');
    const run = await h.run('feature', 'run', 'add-login', '--repo', h.repo);
    expect(run.out).not.toContain('Waiting for a human');
    expect(run.code).toBe(0);
    expect(readFileSync(join(tree, 'hashing.txt'), 'utf8')).toBe('hashed\n');

    // A stricter mode for one run: the first command waits, and headless that is exit 3.
    const plan2 = await h.run('feature', 'plan', 'strict', '--repo', h.repo, '--spec', join(h.files, 'design.md'), '--verification', join(h.files, 'verification.md'));
    expect(plan2.code).toBe(0);
    const strict = await h.run('feature', 'run', 'strict', '--repo', h.repo, '--mode', 'default');
    expect(strict.code).toBe(3);
    expect(strict.out).toContain('[Waiting for a human]');
    expect(existsSync(join(h.repo, '.trees', 'strict', 'again.txt'))).toBe(false);
    expect((await h.run('feature', 'run', 'strict', '--repo', h.repo, '--mode', 'plan')).code).toBe(2);
  }, 180_000);

  it('setup that leaves files the repository does not ignore is named once, with the ignore rules to add', async () => {
    h = await harness([]);
    initByHand(h.repo);
    writeFileSync(join(h.repo, '.flightdeck', 'config.yml'), 'checks: []\nworktree:\n  setup: ["mkdir -p build && echo x > build/out.txt && echo {} > deps.lock"]\n');
    gitIn(h.repo, 'add', '.');
    gitIn(h.repo, 'commit', '-q', '-m', 'setup');
    const app = await AppServices.create({ dataDir: h.data, logger: silentLogger, platform: { runtime: 'browser' } });
    await app.trust.trust(h.repo);
    app.dispose();
    writeFileSync(join(h.files, 'design.md'), DESIGN_SPEC);
    writeFileSync(join(h.files, 'verification.md'), VERIFICATION_PLAN);
    const plan = (slug: string) => h!.run('feature', 'plan', slug, '--repo', h!.repo, '--spec', join(h!.files, 'design.md'), '--verification', join(h!.files, 'verification.md'));
    const first = await plan('one');
    expect(first.code, first.err).toBe(0);
    expect(first.out).toContain("Setup created files this repository does not ignore: /build/, /deps.lock (they are kept out of the feature's commits).");
    expect(first.out).toContain(`To ignore them, add to ${h.repo}/.gitignore:\n  /build/\n  /deps.lock`);
    // Said once per repository.
    const second = await plan('two');
    expect(second.code, second.err).toBe(0);
    expect(existsSync(join(h.repo, '.trees', 'two', 'build', 'out.txt')), `the second setup left no build/out.txt:\n${second.err}\n${second.out}`).toBe(true);
    expect(second.out).not.toContain('Setup created files');
    // The rules the offer adds, never twice.
    const { addIgnoreRules } = await import('../../../src-main/worktrees/setup-artifacts');
    expect(addIgnoreRules(h.repo, ['/build/', '/deps.lock', '../x', '/a\nb'])).toEqual(['/build/', '/deps.lock']);
    expect(addIgnoreRules(h.repo, ['/build/'])).toEqual([]);
    expect(readFileSync(join(h.repo, '.gitignore'), 'utf8')).toBe('.trees/\n# created by the worktree setup (flightdeck)\n/build/\n/deps.lock\n');
  }, 120_000);

  it('a spec without development phases: exit 1, plan error, nothing created', async () => {
    h = await harness([]);
    initByHand(h.repo);
    await trustRepo(h);
    writeFileSync(join(h.files, 'design.md'), '# x\n\n## Design\n\n### Phase 1: not in the section\n');
    writeFileSync(join(h.files, 'verification.md'), VERIFICATION_PLAN);
    const r = await h.run('feature', 'plan', 'no-phases', '--repo', h.repo, '--spec', join(h.files, 'design.md'), '--verification', join(h.files, 'verification.md'));
    expect(r.code).toBe(1);
    expect(r.err).toContain('plan error:');
    expect(r.err).toContain('## Development Phases');
    expect(existsSync(join(h.repo, '.trees', 'no-phases'))).toBe(false);
    expect(gitIn(h.repo, 'branch', '--list', 'feat/no-phases')).toBe('');
  });

  it('a chat over two calls continues the same draft, then --approve --done finalizes', async () => {
    h = await harness([
      { match: { userPattern: 'I want users to log in' }, blocks: [{ type: 'text', text: 'Password or OAuth?' }] },
      { match: { userPattern: 'Password, please' }, blocks: [{ type: 'text', text: 'Scrypt it is.' }] },
      { match: { userPattern: 'approved the design we discussed' }, blocks: [{ type: 'text', text: DESIGN_SPEC }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }] },
    ]);
    initByHand(h.repo);
    await trustRepo(h);
    const a = await h.run('feature', 'plan', 'add-login', '--repo', h.repo, '--message', 'I want users to log in');
    expect(a.err).toBe('');
    expect(a.code).toBe(0);
    expect(a.out).toContain('Planner: Password or OAuth?');
    expect(existsSync(join(h.repo, '.trees', 'add-login'))).toBe(false);
    const b = await h.run('feature', 'plan', 'add-login', '--repo', h.repo, '--message', 'Password, please', '--approve', '--done', '--json');
    expect(b.err).toBe('');
    expect(b.code).toBe(0);
    const out = JSON.parse(b.out) as { draft: { status: string; sessionId: string }; replies: string[]; revision: { number: number; phasesFound: boolean }; feature: { branch: string; phases: string[] } };
    expect(out.replies).toEqual(['Scrypt it is.']);
    expect(out.revision).toMatchObject({ number: 1, phasesFound: true });
    expect(out.draft.status).toBe('approved');
    expect(out.feature).toMatchObject({ branch: 'feat/add-login', phases: ['password-hashing', 'login-endpoint', 'review', 'verify'] });
    // One Planner session throughout: the second call's first message carries the whole history.
    const second = h.server.mainRequests()[1]!.body as { messages: { role: string }[] };
    expect(second.messages.length).toBeGreaterThan(2);
    expect(a.out).toContain(`session ${out.draft.sessionId}`);
  });

  it('usage errors exit 2', async () => {
    h = await harness([]);
    expect((await h.run('feature', 'plan')).code).toBe(2);
    expect((await h.run('feature', 'plan', 'x', '--spec', 'a.md')).code).toBe(2);
    expect((await h.run('feature', 'plan', 'x', '--spec', 'a.md', '--verification', 'b.md', '--message', 'hi')).code).toBe(2);
    expect((await h.run('feature', 'plan', 'x', '--message', 'hi', '--executor', 'gpt')).code).toBe(2);
    expect((await h.run('feature', 'init', 'extra')).code).toBe(2);
  });
});
