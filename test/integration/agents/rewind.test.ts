import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, toolThenText, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const lastResult = (id: string) => h.events(id, 'command.result').at(-1)!;
const read = (rel: string) => readFileSync(join(h.repo, rel), 'utf8');
/** Every text the model was sent in the last main request, joined. */
const lastRequestText = () => JSON.stringify((h.server.mainRequests().at(-1)!.body as { messages: unknown[] }).messages);

/** Three turns: edit a tracked file, create a file in a new folder, edit again and create another. */
async function threeTurns(): Promise<string> {
  writeFileSync(join(h.repo, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\n');
  execFileSync('git', ['add', '-A'], { cwd: h.repo });
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'a'], { cwd: h.repo });
  h.server.setScript([
    ...toolThenText('patch', { path: 'a.txt', edits: [{ search: 'two\n', replace: 'TWO-1\n' }] }, 'first done'),
    ...toolThenText('write', { path: 'lib/deep/made.txt', content: 'made in two\n' }, 'second done'),
    { blocks: [{ type: 'tool_use', name: 'patch', input: { path: 'a.txt', edits: [{ search: 'three\n', replace: 'THREE-3\n' }] } }] },
    ...toolThenText('write', { path: 'c.txt', content: 'made in three\n' }, 'third done'),
  ]);
  const id = h.session({ mode: 'auto-edit' });
  await h.app.agents.run(id, 'turn-one please');
  await h.app.agents.run(id, 'turn-two please');
  await h.app.agents.run(id, 'turn-three please');
  expect(read('a.txt')).toBe('one\nTWO-1\nTHREE-3\nfour\nfive\nsix\n');
  expect(read('lib/deep/made.txt')).toBe('made in two\n');
  expect(read('c.txt')).toBe('made in three\n');
  return id;
}

describe('/rewind puts files and conversation back to a turn', () => {
  it('after three turns that edited and created files, rewinds to turn 1 across a restart; the next request holds only turn 1; /rewind undo takes it back', async () => {
    h = await harness();
    const id = await threeTurns();

    await h.app.agents.run(id, '/rewind');
    expect(lastResult(id).text).toContain('1  turn-one please');
    expect(lastResult(id).text).toContain('3  turn-three please');

    // A restart between the turns and the rewind: checkpoints and messages are on disk.
    await h.restart();
    const r = await h.app.agents.run(id, '/rewind 1');
    expect(r.outcome).toBe('completed');
    expect(lastResult(id).text).toContain('Rewound to turn 1');
    expect(lastResult(id).actions?.map((a) => a.input)).toEqual(['/rewind undo']);
    expect(read('a.txt')).toBe('one\nTWO-1\nthree\nfour\nfive\nsix\n');
    expect(existsSync(join(h.repo, 'c.txt'))).toBe(false);
    expect(existsSync(join(h.repo, 'lib'))).toBe(false);
    expect(h.app.agents.getSession(id).turnCount).toBe(1);

    // The conversation the model sees next: turn 1 only.
    await h.restart();
    h.server.setScript([{ blocks: [{ type: 'text', text: 'carrying on' }] }]);
    await h.app.agents.run(id, 'after-rewind question');
    const sent = lastRequestText();
    expect(sent).toContain('turn-one please');
    expect(sent).toContain('first done');
    expect(sent).toContain('after-rewind question');
    expect(sent).not.toContain('turn-two please');
    expect(sent).not.toContain('second done');
    expect(sent).not.toContain('turn-three please');

    // A turn ran since: the rewind cannot be taken back any more.
    expect((await h.app.agents.run(id, '/rewind undo')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('A turn ran since the rewind');
  });

  it('/rewind undo restores the files and the conversation (after a restart)', async () => {
    h = await harness();
    const id = await threeTurns();
    await h.app.agents.run(id, '/rewind 0');
    expect(read('a.txt')).toBe('one\ntwo\nthree\nfour\nfive\nsix\n');
    expect(existsSync(join(h.repo, 'c.txt'))).toBe(false);
    await h.restart();
    await h.app.agents.run(id, '/rewind undo');
    expect(lastResult(id)).toMatchObject({ ok: true });
    expect(read('a.txt')).toBe('one\nTWO-1\nTHREE-3\nfour\nfive\nsix\n');
    expect(read('lib/deep/made.txt')).toBe('made in two\n');
    expect(read('c.txt')).toBe('made in three\n');
    expect(h.app.agents.getSession(id).turnCount).toBe(3);
    h.server.setScript([{ blocks: [{ type: 'text', text: 'ok' }] }]);
    await h.app.agents.run(id, 'fourth');
    const sent = lastRequestText();
    for (const t of ['turn-one please', 'turn-two please', 'second done', 'turn-three please', 'third done', 'fourth']) expect(sent).toContain(t);
  });

  it('a file the user changed after the checkpoint is handled as /undo does: nothing changes until keep, pre or merge', async () => {
    h = await harness();
    const id = await threeTurns();
    writeFileSync(join(h.repo, 'a.txt'), 'one\nTWO-1\nTHREE-3\nfour\nfive\nsix mine\n');

    expect((await h.app.agents.run(id, '/rewind 1')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('Nothing rewound yet');
    expect(lastResult(id).text).toContain('  a.txt');
    expect(lastResult(id).actions?.map((a) => a.input)).toEqual(['/rewind 1 keep', '/rewind 1 pre', '/rewind 1 merge']);
    // Untouched: files and conversation.
    expect(existsSync(join(h.repo, 'c.txt'))).toBe(true);
    expect(h.app.agents.getSession(id).turnCount).toBe(3);

    await h.app.agents.run(id, '/rewind 1 merge');
    expect(lastResult(id)).toMatchObject({ ok: true });
    // Turn 3's change taken out, the user's line kept; turn 2's and 3's new files gone.
    expect(read('a.txt')).toBe('one\nTWO-1\nthree\nfour\nfive\nsix mine\n');
    expect(existsSync(join(h.repo, 'c.txt'))).toBe(false);
    expect(existsSync(join(h.repo, 'lib'))).toBe(false);

    await h.app.agents.run(id, '/rewind undo');
    expect(read('a.txt')).toBe('one\nTWO-1\nTHREE-3\nfour\nfive\nsix mine\n');
    expect(read('c.txt')).toBe('made in three\n');
  });

  it('refuses a turn that does not exist, and a word that is not a number', async () => {
    h = await harness();
    const id = await threeTurns();
    expect((await h.app.agents.run(id, '/rewind 7')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('There is no turn 7: this session has 3 turns.');
    expect((await h.app.agents.run(id, '/rewind x')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('is not a turn number');
  });
});

describe('fork at a turn', () => {
  it('starts a new session in a new worktree with turn 1\'s files and conversation; both continue independently, across a restart', async () => {
    h = await harness();
    const id = await threeTurns();
    // An uncommitted edit of the user's before the fork travels with the files (it is part of the working tree).
    writeFileSync(join(h.repo, 'user-notes.txt'), 'mine\n');

    const f = await h.app.sessionWorktrees.fork(id, 1);
    expect(f).toMatchObject({ turn: 1 });
    const forkId = f.session.id;
    const wt = f.session.root;
    expect(wt).not.toBe(h.repo);
    expect(f.session.worktree?.path).toBe(wt);
    expect(f.session.turnCount).toBe(1);
    const inFork = (rel: string) => readFileSync(join(wt, rel), 'utf8');
    expect(inFork('a.txt')).toBe('one\nTWO-1\nthree\nfour\nfive\nsix\n');
    expect(existsSync(join(wt, 'c.txt'))).toBe(false);
    expect(existsSync(join(wt, 'lib'))).toBe(false);
    expect(inFork('user-notes.txt')).toBe('mine\n');
    // The original is untouched: files and conversation.
    expect(read('a.txt')).toBe('one\nTWO-1\nTHREE-3\nfour\nfive\nsix\n');
    expect(read('c.txt')).toBe('made in three\n');
    expect(h.app.agents.getSession(id).turnCount).toBe(3);

    await h.restart();
    // The fork goes on from turn 1: its request holds turn 1 only, and its write lands in its worktree.
    h.server.setScript(toolThenText('write', { path: 'fork-only.txt', content: 'fork\n' }, 'fork answered'));
    await h.app.agents.run(forkId, 'fork-question');
    let sent = lastRequestText();
    expect(sent).toContain('turn-one please');
    expect(sent).toContain('fork-question');
    expect(sent).not.toContain('turn-two please');
    expect(inFork('fork-only.txt')).toBe('fork\n');
    // The fork's transcript shows the conversation it continues from (turn 1), then its own turn.
    const inputs = (sid: string) => h.app.agents.sink.read(sid, 1, 100_000).flatMap((e) => (e.data.type === 'turn.started' ? [e.data.input] : []));
    expect(inputs(forkId)).toEqual(['turn-one please', 'fork-question']);
    expect(h.app.agents.sink.read(forkId, 1, 100_000).some((e) => e.data.type === 'notice' && e.data.text.includes(`(${id}) at turn 1`))).toBe(true);
    expect(existsSync(join(h.repo, 'fork-only.txt'))).toBe(false);

    // The original goes on from turn 3, not seeing the fork's turn.
    h.server.setScript([{ blocks: [{ type: 'text', text: 'original answered' }] }]);
    await h.app.agents.run(id, 'original-question');
    sent = lastRequestText();
    for (const t of ['turn-one please', 'turn-two please', 'turn-three please', 'original-question']) expect(sent).toContain(t);
    expect(sent).not.toContain('fork-question');

    // The fork's own checkpoints work: rewinding it to turn 1 takes its write out and leaves the original alone.
    await h.app.agents.run(forkId, '/rewind 1');
    expect(lastResult(forkId)).toMatchObject({ ok: true });
    expect(existsSync(join(wt, 'fork-only.txt'))).toBe(false);
    expect(read('c.txt')).toBe('made in three\n');
  });

  it('refuses a turn the session does not have', async () => {
    h = await harness();
    const id = await threeTurns();
    await expect(h.app.sessionWorktrees.fork(id, 4)).rejects.toThrow('There is no turn 4: this session has 3 turns.');
  });
});

describe('sessions that are not rewound in place', () => {
  it("a feature's or mailbox task's session (a role) refuses /rewind and points at fork, whichever executor runs it", async () => {
    h = await harness();
    const coder = h.app.agents.createSession({ root: h.repo, role: 'coder' }).id;
    expect((await h.app.agents.run(coder, '/rewind 0')).outcome).toBe('failed');
    expect(lastResult(coder).text).toContain('it cannot be rewound in place. Fork it from the turn instead');
    h.app.coder.updateSession({ sessionId: coder, executor: 'claude-code' });
    expect((await h.app.agents.run(coder, '/rewind 0')).outcome).toBe('failed');
    expect(lastResult(coder).text).toContain('it cannot be rewound in place. Fork it from the turn instead');
    // Claude Code sessions of the user's own are rewound and forked (test/integration/coder/rewind-fork.test.ts).
  });
});

describe('/rewind after a compaction', () => {
  it('keeps the summary of turns before the checkpoint, and a rewind before the summarized turns shows none of it', async () => {
    h = await harness([
      { blocks: [{ type: 'text', text: 'answer one' }] },
      { blocks: [{ type: 'text', text: 'answer two' }] },
      { blocks: [{ type: 'text', text: 'answer three' }] },
      { match: { userPattern: 'Write the summary' }, blocks: [{ type: 'text', text: 'SUMMARY-OF-ONE' }] },
    ]);
    const id = h.session();
    for (const q of ['question one', 'question two', 'question three']) await h.app.agents.run(id, q);
    await h.app.agents.run(id, '/compact');
    expect(lastResult(id).text).toMatch(/^Compacted 2 messages/);

    await h.app.agents.run(id, '/rewind 2');
    expect(lastResult(id).ok).toBe(true);
    h.server.setScript([{ blocks: [{ type: 'text', text: 'ok' }] }]);
    await h.app.agents.run(id, 'question four');
    let sent = lastRequestText();
    for (const t of ['SUMMARY-OF-ONE', 'question two', 'answer two', 'question four']) expect(sent).toContain(t);
    expect(sent).not.toContain('question one');
    expect(sent).not.toContain('question three');

    await h.app.agents.run(id, '/rewind 0');
    h.server.setScript([{ blocks: [{ type: 'text', text: 'ok' }] }]);
    await h.app.agents.run(id, 'fresh start');
    sent = lastRequestText();
    expect(sent).toContain('fresh start');
    for (const t of ['SUMMARY-OF-ONE', 'question one', 'question two', 'question four']) expect(sent).not.toContain(t);
  });
});

describe('MessageRepo.rewind', () => {
  it('a summary made mid-turn past the checkpoint is set aside and the turns it summarized before the checkpoint come back; unrewind restores exactly', async () => {
    h = await harness();
    const id = h.session();
    const m = h.app.agents.messages;
    const say = (turnId: string, role: 'user' | 'assistant', text: string) => m.append(id, { turnId, role, kind: 'chat', blocks: [{ type: 'text', text }] });
    const all = [say('turn-aaaaaaa1', 'user', 'q1'), say('turn-aaaaaaa1', 'assistant', 'a1'), say('turn-aaaaaaa2', 'user', 'q2'), say('turn-aaaaaaa2', 'assistant', 'a2'), say('turn-aaaaaaa3', 'user', 'q3'), say('turn-aaaaaaa3', 'assistant', 'a3')];
    // Compaction during turn 3 summarized everything up to its question.
    m.compact(id, all.slice(0, 5).map((x) => x.id), { turnId: 'turn-aaaaaaa3', blocks: [{ type: 'text', text: 'S' }] }, all[5]!.ord);
    const texts = () => m.live(id).map((x) => (x.blocks[0] as { text: string }).text);
    expect(texts()).toEqual(['S', 'a3']);
    expect(m.chatTurns(id).map((t) => t.text)).toEqual(['q1', 'q2', 'q3']);

    const r = m.rewind(id, m.chatTurns(id)[2]!.ord);
    expect(texts()).toEqual(['q1', 'a1', 'q2', 'a2']);
    expect(m.chatTurns(id).map((t) => t.text)).toEqual(['q1', 'q2']);
    m.unrewind(id, r);
    expect(texts()).toEqual(['S', 'a3']);
    expect(m.chatTurns(id).map((t) => t.text)).toEqual(['q1', 'q2', 'q3']);
  });
});
