import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIn } from '../../support/temp';
import type { Script } from '../../fixtures/model-server/index.js';
import { harness } from '../agents/harness';
import { call } from '../features/support';
import { buildProject, CORPUS, type CorpusProject } from './projects';

/**
 * Issue 21: every capability on real code nobody here wrote, with its real test runner. For each
 * project of the corpus: `feature init` detects the project's real test command (in its
 * non-watch form), an edit turn's auto-verify runs it and passes, and a deliberately broken edit
 * fails with the runner's own message. Projects run concurrently (each has its own app and
 * model server); the agents are the stand-in model server's.
 */
const OVERVIEW = '<overview_md>\n# project\n\nA small library with its own tests; build and test with the detected command.\n</overview_md>';

function script(p: CorpusProject): Script {
  return [
    { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text', text: 'A small library with tests.' }] },
    { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'text', text: OVERVIEW }] },
    { match: { userPattern: 'add a usage note' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'usage-note.txt', content: 'Use it.\n' } }] },
    { blocks: [{ type: 'text', text: 'Added the note.' }] },
    { match: { userPattern: 'simplify the code' }, blocks: [{ type: 'tool_use', name: 'write', input: p.broken }] },
    { blocks: [{ type: 'text', text: 'Simplified.' }] },
    { match: { userPattern: 'Auto-verify' }, blocks: [{ type: 'text', text: 'I cannot fix that here.' }] },
  ];
}

describe.concurrent('real projects: init detects the test command, auto-verify passes and fails with the runner\'s message', () => {
  for (const p of CORPUS) {
    it(p.name, async () => {
      const project = buildProject(p);
      const h = await harness(script(p), { repo: project.dir });
      try {
        const init = await h.app.planning.init({ repo: project.dir, executor: 'builtin' });
        expect(init.checks).toEqual([p.expected]);

        const id = h.session({ mode: 'auto-edit' });
        const ok = await h.app.agents.run(id, 'add a usage note');
        expect(ok.outcome).toBe('completed');
        const first = h.events(id, 'verify.result')[0];
        expect(h.events(id, 'verify.started')[0]?.command).toBe(p.expected);
        expect(first, JSON.stringify(h.events(id, 'verify.skipped'))).toBeDefined();
        expect(first!.passed, first!.output).toBe(true);

        await h.app.agents.run(id, 'simplify the code');
        const broken = h.events(id, 'verify.result')[1];
        expect(broken?.passed).toBe(false);
        expect(broken!.output).toMatch(p.failure);
      } finally {
        await h.cleanup();
        project.cleanup();
      }
    }, 240_000);
  }

  it('keeps the corpus at ten projects or more', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(10);
  });
});

const DESIGN = '# usage-note: a usage note\n\n## Design\n\nA short usage note next to the code.\n\n## Development Phases\n\n### Phase 1: Add the note\n\nWrite usage-note.txt.\n';
const VERIFICATION = '# Verification: usage-note\n\n- usage-note.txt exists\n- the tests pass\n';
/** What a project's setup leaves behind that its .gitignore does not name (a build folder). */
const SETUP = 'mkdir -p build && echo built > build/stamp.txt';

/** Two runners, one Node and one Python: enough to show a whole run on real code without doubling the suite's time. */
const RUN_PROJECTS = CORPUS.filter((p) => p.name === 'ms (node:test)' || p.name === 'textstats (pytest)');

describe.concurrent('real projects: a feature run with setup to a pushed branch, and git in a worktree session', () => {
  for (const p of RUN_PROJECTS) {
    it(p.name, async () => {
      const project = buildProject(p);
      const h = await harness(
        [
          { match: { userPattern: 'Add the note' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'usage-note.txt', content: 'Use it.\n' } }] },
          { blocks: [{ type: 'text', text: 'Added the note.' }] },
          { blocks: [{ type: 'text', text: 'All items hold.\n\n```yaml\nresult: pass\nitems:\n  - item: the tests pass\n    result: pass\n```' }] },
          { match: { userPattern: 'commit the note' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'git add session-note.txt && git commit -q -m "session note" && git log --oneline -1' } }] },
          { blocks: [{ type: 'text', text: 'Committed.' }] },
        ],
        { repo: project.dir },
      );
      try {
        // The project's config as init would write it, with a setup command; trusted by the user.
        const cfg = `checks:\n  - "${p.expected}"\nreview:\n  enabled: false\nworktree:\n  setup:\n    - "${SETUP}"\n`;
        writeFileSync(join(project.dir, '.gitignore'), `${readFileSync(join(project.dir, '.gitignore'), 'utf8')}.trees/\n`);
        mkdirSync(join(project.dir, '.flightdeck'), { recursive: true });
        writeFileSync(join(project.dir, '.flightdeck', 'config.yml'), cfg);
        gitIn(project.dir, 'add', '.');
        gitIn(project.dir, 'commit', '-q', '-m', 'flightdeck config');
        gitIn(project.dir, 'push', '-q', 'origin', 'main');
        await h.app.trust.trust(project.dir);

        const feature = await h.app.planning.finalize({ repo: project.dir, slug: 'usage-note', designMd: DESIGN, verificationMd: VERIFICATION, phases: ['Add the note'], agent: { executor: 'builtin', profile: null, model: null, mode: 'yolo' } });
        // Setup runs in the new worktree once it is made, and leaves its build folder there.
        expect((await h.app.worktreeSetups.wait(feature.worktreePath))?.state).toBe('done');
        expect(existsSync(join(feature.worktreePath, 'build', 'stamp.txt'))).toBe(true);
        // It is said once, with the ignore rule to add (the feature view's offer).
        const added = await h.app.projects.add(project.dir);
        expect(await call(h.app, 'features.setupFiles.offer', { projectId: added.id, slug: 'usage-note' })).toEqual({ patterns: ['/build/'] });
        expect(await call(h.app, 'features.setupFiles.answer', { projectId: added.id, slug: 'usage-note', add: true })).toEqual({ added: ['/build/'] });
        expect(readFileSync(join(project.dir, '.gitignore'), 'utf8')).toContain('\n/build/\n');
        expect(await call(h.app, 'features.setupFiles.offer', { projectId: added.id, slug: 'usage-note' })).toEqual({ patterns: [] });
        const run = await (await h.app.featureRuns.enqueue({ projectPath: project.dir, slug: 'usage-note' })).done;
        expect(run.outcome, run.message ?? '').toBe('completed');
        // The branch is on origin with the agent's work, and nothing setup made.
        const pushed = gitIn(project.origin, 'ls-tree', '-r', '--name-only', 'feature/usage-note');
        expect(pushed).toContain('usage-note.txt');
        expect(pushed).not.toContain('build/');

        // git inside a session's own worktree: status, log and a commit on its branch.
        const { session, worktree } = await h.app.sessionWorktrees.startSession({ projectId: added.id, placement: 'worktree', mode: 'yolo' });
        const status = await h.app.agents.run(session.id, '!git status --short --branch');
        expect(status.outcome, JSON.stringify(h.events(session.id, 'command.result').at(-1))).toBe('completed');
        expect(h.events(session.id, 'command.result').at(-1)!.text).toContain(`## ${worktree!.branch}`);
        writeFileSync(join(session.root, 'session-note.txt'), 'from the session\n');
        await h.app.agents.run(session.id, 'commit the note');
        expect(gitIn(project.dir, 'log', '-1', '--format=%s', worktree!.branch).trim()).toBe('session note');
      } finally {
        await h.cleanup();
        project.cleanup();
      }
    }, 240_000);
  }
});
