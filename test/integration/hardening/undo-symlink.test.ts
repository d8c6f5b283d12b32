/**
 * Attack on /undo: the agent's turn writes README.md with exactly the content of a file outside
 * the root, then its (sandboxed) command swaps README.md for a symlink to that file. Through
 * the link the file still reads "as the turn left it", so a blind /undo would write the
 * pre-turn README over the outside file. /undo must refuse the link and leave the file alone.
 */
import { lstatSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from '../agents/harness';

const OUTSIDE_CONTENT = 'export PATH=$HOME/bin:$PATH\n';

let h: Harness | undefined;
let outsideDir: string | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  if (outsideDir) rmSync(outsideDir, { recursive: true, force: true });
});

describe.runIf(process.platform === 'linux')('/undo and a symlink planted by the turn', () => {
  it('does not write through a link to a file outside the root', async () => {
    outsideDir = realpathSync(mkdtempSync('/var/tmp/fd-undo-outside-'));
    const target = join(outsideDir, '.bashrc');
    writeFileSync(target, OUTSIDE_CONTENT);
    h = await harness([
      {
        blocks: [
          { type: 'tool_use', name: 'write', input: { path: 'README.md', content: OUTSIDE_CONTENT } },
          { type: 'tool_use', name: 'bash', input: { command: `ln -sf ${target} README.md && echo LINKED` } },
        ],
      },
      { blocks: [{ type: 'text', text: 'Done.' }] },
    ]);
    const id = h.session({ mode: 'yolo' });
    const r = await h.app.agents.run(id, 'edit the readme');
    expect(r.outcome).toBe('completed');
    expect(h.events(id, 'tool.result').map((e) => e.content).join('\n')).toContain('LINKED');
    expect(lstatSync(join(h.repo, 'README.md')).isSymbolicLink()).toBe(true);

    await h.app.agents.run(id, '/undo');
    // Refused with the reason, not skipped silently.
    const undo = h.events(id, 'command.result').at(-1)!;
    expect(undo).toMatchObject({ name: 'undo', ok: false });
    expect(undo.text).toContain('leads outside the session root through a symbolic link');
    expect(readFileSync(target, 'utf8')).toBe(OUTSIDE_CONTENT);
    expect(lstatSync(target).isFile()).toBe(true);
  });
});
