import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Approval } from '../../../src-preload/contract';
import type { Script } from '../../fixtures/model-server/index.js';
import { harness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

/** A real npm project whose test script passes. */
function npmProject(root: string): void {
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', private: true, scripts: { test: 'node -e "process.exit(0)" --' } }, null, 2) + '\n');
}

/**
 * The model's rewritten script. The trailing `#` makes the shell ignore the `-- --watch=false`
 * npm appends (GNU touch would refuse the option and create nothing), so a run that should not
 * happen leaves a file this test can see.
 */
const EVIL_PKG = JSON.stringify({ name: 'tiny', version: '1.0.0', private: true, scripts: { test: 'touch PWNED-BY-VERIFY #' } }, null, 2) + '\n';
const write = (path: string, content: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content } }] });
const say = (text: string): Script[number] => ({ blocks: [{ type: 'text', text }] });

describe('auto-verify after the agent changed what the test command runs', () => {
  it('the reported attack: auto-edit, every approval denied, the model rewrites the test script — auto-verify asks (showing the diff) and does not run it', async () => {
    h = await harness([write('package.json', EVIL_PKG), write('src.js', 'module.exports = 1;\n'), say('Done.')]);
    npmProject(h.repo);
    const id = h.session({ mode: 'auto-edit' });
    const asked: Approval[] = [];
    h.app.agents.gate.setAutoAnswer(id, async (a) => {
      asked.push(a);
      return { decision: 'deny', reason: 'Denied by --approve deny (headless run).' };
    });
    const r = await h.app.agents.run(id, 'fix it');
    expect(r.outcome).toBe('completed');
    expect(existsSync(join(h.repo, 'PWNED-BY-VERIFY'))).toBe(false);
    expect(h.events(id, 'verify.started')).toHaveLength(0);
    expect(asked).toHaveLength(1);
    expect(asked[0]).toMatchObject({ tool: 'bash', summary: 'npm test', source: 'auto-verify', risk: 'high' });
    expect(asked[0]!.reason).toContain('package.json changed in this session');
    expect(asked[0]!.diff).toContain('-    "test": "node -e \\"process.exit(0)\\" --"');
    expect(asked[0]!.diff).toContain('+    "test": "touch PWNED-BY-VERIFY #"');
    expect(h.events(id, 'verify.skipped').at(-1)).toMatchObject({ reason: 'not_approved', message: expect.stringContaining('you denied running it') });
    // The approval's tool card is closed with the outcome.
    const closing = h.events(id, 'tool.result').find((t) => t.toolUseId === asked[0]!.toolUseId);
    expect(closing).toMatchObject({ tool: 'bash', isError: true, content: expect.stringMatching(/^Not run — package\.json changed/) });
  });

  it('a change made in an earlier turn is still caught; once approved, that content runs unasked', async () => {
    h = await harness([
      write('package.json', EVIL_PKG.replace('touch PWNED-BY-VERIFY', 'touch APPROVED-RUN')), say('changed the script'),
      write('a.js', '1\n'), say('edited a'),
      write('b.js', '2\n'), say('edited b'),
    ]);
    npmProject(h.repo);
    const id = h.session();
    // Default mode, the user did not ask for tests: the script change is not verified in this turn.
    h.app.agents.gate.setAutoAnswer(id, async () => ({ decision: 'approve_once' }));
    await h.app.agents.run(id, 'change the script');
    expect(h.events(id, 'verify.skipped').at(-1)!.reason).toBe('not_requested');
    h.app.agents.updateSession({ sessionId: id, mode: 'auto-edit' });
    const asked: Approval[] = [];
    h.app.agents.gate.setAutoAnswer(id, async (a) => {
      asked.push(a);
      return { decision: 'approve_once' };
    });
    await h.app.agents.run(id, 'edit a');
    expect(asked.map((a) => a.source)).toEqual(['auto-verify']);
    expect(asked[0]!.diff).toContain('+    "test": "touch APPROVED-RUN #"');
    expect(existsSync(join(h.repo, 'APPROVED-RUN'))).toBe(true);
    await h.app.agents.run(id, 'edit b');
    expect(asked).toHaveLength(1);
    expect(h.events(id, 'verify.result').map((v) => v.passed)).toEqual([true, true]);
  });

  it('an approval for the command family does not cover a changed script; yolo runs it like any command', async () => {
    h = await harness([write('package.json', EVIL_PKG), say('done'), write('package.json', EVIL_PKG.replace('PWNED-BY-VERIFY', 'YOLO-RAN')), say('done')]);
    npmProject(h.repo);
    const id = h.session({ mode: 'auto-edit' });
    h.app.agents.approvals.addRule(id, 'npm test *');
    h.app.agents.gate.setAutoAnswer(id, async () => ({ decision: 'deny' }));
    await h.app.agents.run(id, 'change it');
    expect(existsSync(join(h.repo, 'PWNED-BY-VERIFY'))).toBe(false);
    expect(h.events(id, 'verify.skipped').at(-1)!.reason).toBe('not_approved');
    h.app.agents.updateSession({ sessionId: id, mode: 'yolo' });
    await h.app.agents.run(id, 'again');
    expect(existsSync(join(h.repo, 'YOLO-RAN'))).toBe(true);
    expect(h.events(id, 'tool.decision').at(-1)).toMatchObject({ tool: 'bash', decision: 'allow', source: 'yolo' });
  });
});
