import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { gitIn } from '../../support/temp';
import { call, planningHarness, type PlanningHarness } from './support';

/**
 * Issue 21 item 6: in YOLO mode `feature init`'s Coder wrote a stray file into the user's
 * checkout. Init's agents change nothing: their file tools are refused and their commands run
 * in a read-only sandbox; Flightdeck writes init's own files (.flightdeck/, .gitignore).
 */
let h: PlanningHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const SETUP = '<config_yml>\nchecks: ["npm test"]\n</config_yml>\n<overview_md>\n# sample\n\nA sample project with vitest tests and eslint, nothing more to say here really.\n</overview_md>';

describe('feature init writes only its own files', () => {
  it('the agents\' file writes and shell writes into the checkout are refused; init writes its files', async () => {
    h = await planningHarness([
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'PLANNER-STRAY.md', content: 'x' } }] },
      { blocks: [{ type: 'text', text: 'A sample.' }] },
      { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'STRAY.md', content: 'stray' } }] },
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'echo stray > STRAY-BASH.txt; echo more > .flightdeck-stray; cat package.json' } }] },
      { blocks: [{ type: 'text', text: SETUP }] },
    ]);
    const before = gitIn(h.repo, 'status', '--porcelain', '--ignored');
    const r = await call<{ configPath: string; sessionIds: string[] }>(h.app, 'features.init', { projectId: h.projectId });
    for (const stray of ['PLANNER-STRAY.md', 'STRAY.md', 'STRAY-BASH.txt', '.flightdeck-stray']) expect(existsSync(join(h.repo, stray)), stray).toBe(false);
    expect(readFileSync(r.configPath, 'utf8')).toContain('npm test');
    // What changed in the checkout is init's own: .flightdeck/ and the .gitignore entry.
    const after = gitIn(h.repo, 'status', '--porcelain', '--ignored').split('\n').filter((l) => l !== '' && !before.includes(l));
    expect(after.map((l) => l.slice(3)).sort()).toEqual(['.flightdeck/', '.gitignore']);
    // The agent was told why: the file tool by the policy, the shell by the sandbox.
    const results = h.server.mainRequests().map((q) => JSON.stringify(q.body));
    expect(results.some((b) => b.includes('read-only preset does not allow changing files'))).toBe(true);
    expect(results.some((b) => b.includes('Read-only file system'))).toBe(true);
  }, 120_000);

  it('the app proposes first: nothing is written until the user writes the proposal; a dropped one writes nothing', async () => {
    const steps = [
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text' as const, text: 'A sample.' }] },
      { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'text' as const, text: SETUP }] },
    ];
    h = await planningHarness([...steps, ...steps]);
    const cfg = join(h.repo, '.flightdeck', 'config.yml');
    const first = await call<{ proposalId: string; files: { path: string; text: string }[] }>(h.app, 'features.init.propose', { projectId: h.projectId });
    expect(first.files.map((f) => f.path)).toEqual([cfg, join(h.repo, '.flightdeck', 'overview.md'), join(h.repo, '.gitignore')]);
    expect(first.files[0]!.text).toContain('npm test');
    expect(existsSync(cfg)).toBe(false);
    expect(await call(h.app, 'features.init.write', { proposalId: first.proposalId, write: false })).toBeNull();
    expect(existsSync(cfg)).toBe(false);
    await expect(call(h.app, 'features.init.write', { proposalId: first.proposalId, write: true })).rejects.toThrow(/no longer waiting/);

    const second = await call<{ proposalId: string; files: { path: string; text: string }[] }>(h.app, 'features.init.propose', { projectId: h.projectId });
    const written = await call<{ configPath: string }>(h.app, 'features.init.write', { proposalId: second.proposalId, write: true });
    expect(readFileSync(written.configPath, 'utf8')).toBe(second.files[0]!.text);
  }, 120_000);
});
