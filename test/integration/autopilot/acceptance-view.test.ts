import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { waitFor } from '../../support/processes';
import { gitIn } from '../../support/temp';
import { autopilotHarness, turn, type AutopilotHarness } from './support';

let h: AutopilotHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('the acceptance command is watched live', () => {
  it('its output streams into a terminal titled with the command and its timeout, which ends with the outcome', async () => {
    h = await autopilotHarness([...turn([], 'Nothing to plan: the goal is met.')]);
    writeFileSync(join(h.repo, 'ok.test.js'), "require('node:test')('ok', () => {});\n");
    gitIn(h.repo, 'add', '.');
    gitIn(h.repo, 'commit', '-q', '-m', 'a passing test');
    const testCmd = 'echo ACCEPT-7731 && node --test';
    const run = await h.run({ goal: 'Keep the tests green', testCmd, acceptanceTimeoutS: 420 });
    expect(run.state.exitReason).toBe('done');
    const terminal = h.app.terminals.list().find((t) => t.title.startsWith('acceptance: '));
    expect(terminal?.title).toBe(`acceptance: ${testCmd} (timeout 7 min)`);
    expect(terminal?.owner).toMatchObject({ worktreePath: run.worktree, phase: 'acceptance' });
    await h.app.terminals.whenExited(terminal!.id);
    const shown = await waitFor(async () => {
      const { data } = await h!.app.terminals.attach(terminal!.id, 'test-conn');
      return data.includes('[acceptance command ended') ? data : null;
    }, 'the end line in the terminal');
    expect(shown).toContain('ACCEPT-7731');
    expect(shown).toMatch(/pass 1/);
    expect(shown).toContain('[acceptance command ended: exit 0]');
  }, 90_000);
});
