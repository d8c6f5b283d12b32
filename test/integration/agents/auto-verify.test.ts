import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Script } from '../../fixtures/model-server/index.js';
import { harness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

/** A real npm project whose `npm test` passes once fixed.txt exists. */
function npmProject(root: string): void {
  const test = `node -e "process.exit(require('fs').existsSync('fixed.txt') ? 0 : (console.log('FAIL: fixed.txt is missing'), 1))" --`;
  writeFileSync(join(root, 'package.json'), JSON.stringify({ name: 'tiny', version: '1.0.0', private: true, scripts: { test } }, null, 2));
}

function config(root: string, yaml: string): void {
  mkdirSync(join(root, '.flightdeck'), { recursive: true });
  writeFileSync(join(root, '.flightdeck/config.yml'), yaml);
}

const write = (path: string, content = 'x'): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content } }] });
const say = (text: string, userPattern?: string): Script[number] => ({ ...(userPattern ? { match: { userPattern } } : {}), blocks: [{ type: 'text', text }] });

describe('auto-verify (seed 001 §8)', () => {
  it('runs the whitelisted command after edits in auto-edit mode and passes', async () => {
    h = await harness([write('fixed.txt'), say('Fixed.')]);
    npmProject(h.repo);
    const id = h.session({ mode: 'auto-edit' });
    const r = await h.app.agents.run(id, 'fix it');
    expect(r.outcome).toBe('completed');
    expect(h.events(id, 'verify.started')).toEqual([{ type: 'verify.started', command: 'npm test', attempt: 1, maxAttempts: 2, timeoutMs: h.app.agents.settings().bashTimeoutMs }]);
    expect(h.events(id, 'verify.result')[0]).toMatchObject({ passed: true, exitCode: 0, attempt: 1 });
    expect(h.server.mainRequests()).toHaveLength(2);
  });

  it('a node:test project: the test command is `npm test` with CI=true, it ends by itself and its failure is the runner\'s own', async () => {
    // Issue 21: `npm test -- --watch=false` put Node's runner in watch mode and every turn hung until the bash timeout.
    h = await harness([write('fixed.txt'), say('Fixed.'), write('other.txt'), say('cannot fix')]);
    writeFileSync(join(h.repo, 'package.json'), JSON.stringify({ name: 'nt', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2));
    writeFileSync(
      join(h.repo, 'fixed.test.js'),
      "const test = require('node:test');\nconst assert = require('node:assert');\ntest('fixed and in CI', () => { assert.strictEqual(process.env.CI, 'true'); assert.ok(require('fs').existsSync('fixed.txt'), 'fixed.txt exists'); });\n",
    );
    const id = h.session({ mode: 'auto-edit' });
    expect((await h.app.agents.run(id, 'fix it')).outcome).toBe('completed');
    expect(h.events(id, 'verify.started').map((v) => v.command)).toEqual(['npm test']);
    expect(h.events(id, 'verify.result')[0]).toMatchObject({ passed: true, exitCode: 0, output: expect.stringContaining('# pass 1') });
    // Broken: the runner's own assertion message reaches the repair prompt.
    writeFileSync(join(h.repo, 'fixed.test.js'), "const test = require('node:test');\nconst assert = require('node:assert');\ntest('broken', () => { assert.strictEqual(1 + 1, 3, 'arithmetic is broken'); });\n");
    await h.app.agents.run(id, 'fix it again');
    expect(h.events(id, 'verify.result').slice(1).map((v) => v.passed)).toEqual([false]);
    expect(h.events(id, 'verify.result')[1]!.output).toContain('arithmetic is broken');
  });

  it('injects a repair prompt on failure and verifies again after the fix', async () => {
    h = await harness([write('src.txt'), say('Done, I think.'), { match: { userPattern: 'Auto-verify' }, ...write('fixed.txt') }, say('Now it is fixed.')]);
    npmProject(h.repo);
    const id = h.session({ mode: 'yolo' });
    const r = await h.app.agents.run(id, 'fix it');
    expect(r.outcome).toBe('completed');
    expect(h.events(id, 'verify.result').map((v) => [v.attempt, v.passed])).toEqual([
      [1, false],
      [2, true],
    ]);
    const repair = h.app.agents.messages.live(id).find((m) => m.kind === 'verify')!;
    const text = (repair.blocks[0] as { text: string }).text;
    expect(text).toContain('Auto-verify: `npm test` failed with exit code 1 (attempt 1 of 2)');
    expect(text).toContain('FAIL: fixed.txt is missing');
    expect(h.server.pendingTurns()).toBe(0);
  });

  it('stops after max_verify_attempts from the project config', async () => {
    h = await harness([write('a.txt'), say('try 1'), write('b.txt'), say('try 2'), write('c.txt'), say('try 3'), say('never reached')]);
    npmProject(h.repo);
    config(h.repo, 'workflow:\n  max_verify_attempts: 3\n');
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'fix it');
    expect(h.events(id, 'verify.result').map((v) => v.passed)).toEqual([false, false, false]);
    expect(h.events(id, 'verify.skipped')).toEqual([
      { type: 'verify.skipped', reason: 'attempts_exhausted', message: expect.stringContaining('still fails after 3 attempts (max_verify_attempts = 3)') },
    ]);
    expect(h.server.mainRequests()).toHaveLength(6);
  });

  it('refuses a configured command that is not on the whitelist', async () => {
    h = await harness([write('fixed.txt'), say('ok')]);
    npmProject(h.repo);
    // The old default, which hangs Node's own test runner (it reads --watch=false as --watch).
    config(h.repo, 'workflow:\n  verify_command: "npm test -- --watch=false"\n');
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'fix it');
    expect(h.events(id, 'verify.started')).toHaveLength(0);
    const s = h.events(id, 'verify.skipped')[0]!;
    expect(s.reason).toBe('not_whitelisted');
    expect(s.message).toContain('"npm test -- --watch=false" (workflow.verify_command) is not on the whitelist');
    expect(s.message).toContain('npm test | npm test -- --run | npm test -- --watchAll=false | pnpm test');
    expect(s.message).toContain('python3 -m pytest -q');
  });

  it('says explicitly that auto-verify did not run when nothing applies', async () => {
    h = await harness([write('src.py'), say('ok')]);
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'write code');
    expect(h.events(id, 'verify.skipped')[0]).toMatchObject({ reason: 'no_command', message: expect.stringMatching(/^Auto-verify not run: no whitelisted test command applies/) });
  });

  it('honours every trigger condition', async () => {
    h = await harness([
      write('a.txt'), say('default, not asked'),
      { match: { userPattern: 'and run the tests' }, ...write('fixed.txt') }, say('default, asked'),
      write('docs/guide.md'), say('docs only'),
      write('b.txt'), say('disabled in config'),
      write('c.txt'), say('bash off'),
    ]);
    npmProject(h.repo);
    const id = h.session();
    h.app.agents.gate.setAutoAnswer(id, async () => ({ decision: 'approve_once' }));
    await h.app.agents.run(id, 'edit a');
    expect(h.events(id, 'verify.skipped').at(-1)!.reason).toBe('not_requested');
    await h.app.agents.run(id, 'fix it and run the tests');
    expect(h.events(id, 'verify.result').at(-1)).toMatchObject({ passed: true });
    h.app.agents.updateSession({ sessionId: id, mode: 'auto-edit' });
    await h.app.agents.run(id, 'docs');
    expect(h.events(id, 'verify.skipped').at(-1)!.reason).toBe('docs_only');
    config(h.repo, 'workflow:\n  auto_verify_after_edit: false\n');
    await h.app.agents.run(id, 'b');
    expect(h.events(id, 'verify.skipped').at(-1)!.reason).toBe('disabled');
    config(h.repo, 'workflow:\n  auto_verify_after_edit: true\n');
    h.app.agents.updateSession({ sessionId: id, disabledTools: ['bash'] });
    await h.app.agents.run(id, 'c');
    expect(h.events(id, 'verify.skipped').at(-1)!.reason).toBe('bash_unavailable');
    expect(h.events(id, 'verify.started')).toHaveLength(1);
  });
});
