import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, toolThenText, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const lastResult = (id: string) => h.events(id, 'command.result').at(-1)!;
const read = (rel: string) => readFileSync(join(h.repo, rel), 'utf8');
const blob = (sha: string) => execFileSync('git', ['cat-file', 'blob', sha], { cwd: h.repo, encoding: 'utf8' });

describe('/undo never destroys later edits', () => {
  it('the reported case: the agent creates src/app.js, the user appends a line, /undo keeps the file and reports the conflict', async () => {
    h = await harness(toolThenText('write', { path: 'src/app.js', content: 'console.log("agent");\n' }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'create the app');
    appendFileSync(join(h.repo, 'src/app.js'), 'console.log("mine");\n');

    const r = await h.app.agents.run(id, '/undo');
    expect(r.outcome).toBe('failed');
    expect(read('src/app.js')).toBe('console.log("agent");\nconsole.log("mine");\n');
    const text = lastResult(id).text;
    expect(text).toContain('Nothing undone yet');
    expect(text).toContain('  src/app.js');
    expect(text).toContain('/undo keep');
    expect(text).toContain('/undo pre');
    expect(text).toContain('/undo merge');
    // In the app the same choices are buttons that send those inputs.
    expect(lastResult(id).actions?.map((a) => a.input)).toEqual(['/undo keep', '/undo pre', '/undo merge']);

    // Keeping theirs: the file stays as the user left it, and the undo step is used up.
    await h.app.agents.run(id, '/undo keep');
    expect(lastResult(id)).toMatchObject({ ok: true });
    expect(lastResult(id).text).toContain('kept src/app.js as you changed it');
    expect(read('src/app.js')).toBe('console.log("agent");\nconsole.log("mine");\n');
  });

  it('/undo pre takes the pre-turn version after saving the user\'s; /redo brings the user\'s version back', async () => {
    h = await harness(toolThenText('write', { path: 'src/app.js', content: 'agent\n' }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'create it');
    appendFileSync(join(h.repo, 'src/app.js'), 'mine\n');
    await h.app.agents.run(id, '/undo');
    await h.app.agents.run(id, '/undo pre');
    expect(existsSync(join(h.repo, 'src/app.js'))).toBe(false);
    // The folder the turn created is gone too, now that it is empty.
    expect(existsSync(join(h.repo, 'src'))).toBe(false);
    const text = lastResult(id).text;
    const saved = /your version is saved as git blob ([0-9a-f]{12})/.exec(text)![1]!;
    expect(blob(saved)).toBe('agent\nmine\n');
    expect(text).toContain('removed the empty folder src/');

    await h.app.agents.run(id, '/redo');
    expect(lastResult(id)).toMatchObject({ ok: true });
    expect(read('src/app.js')).toBe('agent\nmine\n');
    // Back on the undo list: /undo sees the same conflict again.
    await h.app.agents.run(id, '/undo');
    expect(lastResult(id).text).toContain('Nothing undone yet');
  });

  it('/undo merge takes the turn\'s change out and keeps the user\'s edit', async () => {
    h = await harness();
    writeFileSync(join(h.repo, 'notes.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\n');
    execFileSync('git', ['add', '-A'], { cwd: h.repo });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'notes'], { cwd: h.repo });
    h.server.setScript(toolThenText('patch', { path: 'notes.txt', edits: [{ search: 'two\n', replace: 'TWO BY AGENT\n' }] }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'change two');
    writeFileSync(join(h.repo, 'notes.txt'), read('notes.txt').replace('six\n', 'six and mine\n'));
    await h.app.agents.run(id, '/undo');
    expect(read('notes.txt')).toBe('one\nTWO BY AGENT\nthree\nfour\nfive\nsix and mine\n');
    await h.app.agents.run(id, '/undo merge');
    expect(lastResult(id).text).toContain("merged notes.txt: the turn's change taken out, your edits kept");
    expect(read('notes.txt')).toBe('one\ntwo\nthree\nfour\nfive\nsix and mine\n');
    // Undoing the merge restores exactly what was there before it.
    await h.app.agents.run(id, '/redo');
    expect(read('notes.txt')).toBe('one\nTWO BY AGENT\nthree\nfour\nfive\nsix and mine\n');
  });

  it('files still as the turn left them are reverted at once; /redo re-applies the turn', async () => {
    h = await harness(toolThenText('write', { path: 'lib/deep/made.js', content: 'made\n' }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'make it');
    await h.app.agents.run(id, '/undo');
    expect(lastResult(id).ok).toBe(true);
    expect(lastResult(id).text).toContain('deleted lib/deep/made.js (created by that turn)');
    expect(existsSync(join(h.repo, 'lib'))).toBe(false);
    await h.app.agents.run(id, '/redo');
    expect(read('lib/deep/made.js')).toBe('made\n');
    await h.app.agents.run(id, '/undo');
    expect(existsSync(join(h.repo, 'lib'))).toBe(false);
    expect((await h.app.agents.run(id, '/undo')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('Nothing to undo');
  });

  it('what the turn left is recorded when it ends: a command of the same turn changing the file is not a conflict', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'a.txt', content: 'agent\n' } }] },
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: "printf 'formatted\\n' >> a.txt" } }] },
      { blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, 'write and format');
    expect(read('a.txt')).toBe('agent\nformatted\n');
    await h.app.agents.run(id, '/undo');
    expect(lastResult(id)).toMatchObject({ ok: true });
    expect(existsSync(join(h.repo, 'a.txt'))).toBe(false);
  });

  it('a file swapped for a symlink out of the root stops /undo with the reason, touching nothing outside', async () => {
    h = await harness(toolThenText('write', { path: 'a.txt', content: 'agent\n' }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'write a');
    const outside = join(h.dataDir, 'outside.txt');
    writeFileSync(outside, 'not yours\n');
    unlinkSync(join(h.repo, 'a.txt'));
    symlinkSync(outside, join(h.repo, 'a.txt'));
    expect((await h.app.agents.run(id, '/undo pre')).outcome).toBe('failed');
    expect(lastResult(id).text).toMatch(/^\/undo stopped: a\.txt leads outside the session root/);
    expect(readFileSync(outside, 'utf8')).toBe('not yours\n');
  });

  it('a created file the user deleted since counts as already undone; /redo then has nothing to put back', async () => {
    h = await harness(toolThenText('write', { path: 'a.txt', content: 'agent\n' }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'write a');
    unlinkSync(join(h.repo, 'a.txt'));
    await h.app.agents.run(id, '/undo');
    // Deleted since, and the turn created it: it is already as before the turn.
    expect(lastResult(id).text).toContain('a.txt: already as before the turn');
    await h.app.agents.run(id, '/redo');
    expect(existsSync(join(h.repo, 'a.txt'))).toBe(false);
  });
});
