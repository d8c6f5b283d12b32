import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('slash output carries its structure for the UI', () => {
  it('/help, /permissions and /model are tables (the current row marked), /diff is status plus a unified diff', async () => {
    h = await harness();
    const id = h.session();
    writeFileSync(join(h.repo, 'README.md'), '# changed\n');
    for (const input of ['/help', '/permissions', '/model', '/diff']) await h.app.agents.run(id, input);
    const results = h.events(id, 'command.result');
    const [help, perms, model, diff] = results;
    expect(help!.view).toMatchObject({ type: 'table', columns: ['Command', 'What it does'] });
    expect(help!.view?.type === 'table' && help!.view.rows.map((r) => r.cells[0])).toContain('/permissions [preset]');
    expect(perms!.view?.type === 'table' && perms!.view.rows.filter((r) => r.current).map((r) => r.cells[0])).toEqual(['balanced']);
    expect(model!.view?.type === 'table' && model!.view.rows.some((r) => r.current)).toBe(true);
    expect(diff!.view).toMatchObject({ type: 'diff', status: ' M README.md' });
    expect(diff!.view?.type === 'diff' && diff!.view.diff).toContain('+# changed');
    // The text stays for the CLI and the model.
    expect(diff!.text).toContain('+# changed');
    // Commands are not turns with the agent.
    expect(h.app.agents.getSession(id).turnCount).toBe(0);
  });
});
