import { describe, expect, it } from 'vitest';
import type { Script } from '../../fixtures/model-server/index.js';
import { harness } from '../agents/harness';
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
