import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const lastResult = (id: string) => h.events(id, 'command.result').at(-1)!;

describe('the hard floor in yolo is visible and says where it is turned off', () => {
  it('/permissions says the floor is on in this yolo session, what it refuses and where to turn it off; OFF when it is off', async () => {
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, '/permissions');
    const on = lastResult(id);
    expect(on.text).toContain('Hard floor: on — catastrophic commands (rm -rf / or ~, mkfs, dd onto a disk, fork bombs, force push to the base branch, DROP DATABASE) are refused in every mode, this YOLO session included.');
    expect(on.text).toContain('Turn it off in Settings → Agents → Hard floor');
    // The structured view carries the same note.
    expect(on.view?.type === 'table' && on.view.notes.some((n) => n.startsWith('Hard floor: on'))).toBe(true);

    h.app.agents.updateSettings({ hardFloor: false });
    await h.app.agents.run(id, '/permissions');
    expect(lastResult(id).text).toContain('Hard floor: OFF — nothing is refused, catastrophic commands included. Turn it back on in Settings → Agents → Hard floor');
  });

  it('a command refused in yolo says it is the hard floor and where the user can turn it off', async () => {
    h = await harness();
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, '!rm -rf ~');
    const d = h.events(id, 'tool.decision').at(-1)!;
    expect(d).toMatchObject({ decision: 'deny', source: 'hard_floor' });
    expect(d.reason).toContain('refused in every mode, yolo included; the user can turn the hard floor off in Settings → Agents → Hard floor.');
  });
});
