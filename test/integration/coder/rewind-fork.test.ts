/**
 * Rewind and fork of Claude Code sessions (issue 25 §2), with the real claude CLI against the
 * scripted model server: the files go back through the turn's working-tree checkpoints, and the
 * conversation the model receives next holds the turns up to the checkpoint and none after.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { conversationFile } from '../../../src-main/coder/conversation-resume';
import { startModelServer, type ModelServer, type Script, type ScriptTurn } from '../../fixtures/model-server/index';
import { makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN, requestText, saveScriptedProfile } from './support';

interface Harness {
  app: AppServices;
  server: ModelServer;
  repo: string;
  home: string;
  claudeSession(opts?: { role?: 'coder' }): string;
  restart(): Promise<void>;
  cleanup(): Promise<void>;
}

async function harness(): Promise<Harness> {
  const server = await startModelServer({ script: [] });
  const data = tempDir('fd-ccrw-data-');
  const home = tempDir('fd-ccrw-home-');
  const repo = makeRepo('fd-ccrw-repo-');
  const open = async () => {
    const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
    // Generous limits: a loaded machine (two cores, many tests) can leave the CLI silent for a while.
    app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 180, maxDurationS: 600 });
    return app;
  };
  let app = await open();
  saveScriptedProfile(app, server.url);
  return {
    get app() {
      return app;
    },
    server,
    repo: repo.path,
    home: home.path,
    claudeSession(o = {}) {
      // yolo: the turns' commands (rm) run without a dialog; Claude Code's own sandbox still confines them.
      const s = app.agents.createSession({ root: repo.path, mode: 'yolo', ...(o.role ? { role: o.role } : {}) });
      app.coder.updateSession({ sessionId: s.id, executor: 'claude-code' });
      return s.id;
    },
    async restart() {
      app.dispose();
      app = await open();
    },
    async cleanup() {
      app.dispose();
      await server.close();
      data.cleanup();
      home.cleanup();
      repo.cleanup();
    },
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const read = (root: string, rel: string) => readFileSync(join(root, rel), 'utf8');
const lastResult = (id: string) => {
  const e = h!.app.agents.sink.read(id, 1, 100_000).filter((x) => x.data.type === 'command.result').at(-1);
  return e!.data as { type: 'command.result'; ok: boolean; text: string; actions?: Array<{ input: string }> };
};
/** What the model received on its last main request. */
const lastRequest = () => requestText(h!.server.mainRequests().at(-1)!.body);

const tool = (name: string, input: Record<string, unknown>): ScriptTurn => ({ blocks: [{ type: 'tool_use', name, input }] });
const text = (t: string, pattern?: string): ScriptTurn => ({ ...(pattern ? { match: { userPattern: pattern } } : {}), blocks: [{ type: 'text', text: t }] });

/**
 * Three Claude Code turns: 1 edits a tracked file (Read, Edit), 2 creates a file in new folders
 * (Write), 3 deletes a tracked file with the shell, edits again and creates another file.
 */
async function threeTurns(id?: string): Promise<string> {
  const repo = h!.repo;
  writeFileSync(join(repo, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\nsix\n');
  writeFileSync(join(repo, 'gone.txt'), 'tracked, deleted in turn three\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'files'], { cwd: repo });
  const a = join(repo, 'a.txt');
  const script: Script = [
    { match: { userPattern: 'turn-one please' }, ...tool('Read', { file_path: a }) },
    tool('Edit', { file_path: a, old_string: 'two\n', new_string: 'TWO-1\n' }),
    text('first done'),
    { match: { userPattern: 'turn-two please' }, ...tool('Write', { file_path: join(repo, 'lib/deep/made.txt'), content: 'made in two\n' }) },
    text('second done'),
    { match: { userPattern: 'turn-three please' }, ...tool('Bash', { command: 'rm gone.txt', description: 'Delete gone.txt' }) },
    tool('Read', { file_path: a }),
    tool('Edit', { file_path: a, old_string: 'three\n', new_string: 'THREE-3\n' }),
    tool('Write', { file_path: join(repo, 'c.txt'), content: 'made in three\n' }),
    text('third done'),
  ];
  h!.server.setScript(script);
  const sid = id ?? h!.claudeSession();
  for (const prompt of ['turn-one please', 'turn-two please', 'turn-three please']) {
    const r = await h!.app.agents.run(sid, prompt);
    expect(r.outcome, `${prompt}: ${JSON.stringify(h!.app.agents.sink.read(sid, 1, 100_000).filter((e) => e.data.type === 'error').map((e) => e.data))}`).toBe('completed');
  }
  expect(h!.server.pendingTurns()).toBe(0);
  expect(read(repo, 'a.txt')).toBe('one\nTWO-1\nTHREE-3\nfour\nfive\nsix\n');
  expect(read(repo, 'lib/deep/made.txt')).toBe('made in two\n');
  expect(read(repo, 'c.txt')).toBe('made in three\n');
  expect(existsSync(join(repo, 'gone.txt'))).toBe(false);
  return sid;
}

describe('a Claude Code session rewound to a turn', { timeout: 600_000 }, () => {
  it('puts back the files three turns edited, created and deleted, across restarts, a user edit handled as /undo does; the next turn resumes the conversation at that turn; /rewind undo takes it back', async () => {
    h = await harness();
    const id = await threeTurns();
    const original = h.app.coder.sessionConfig(id).claudeSessionId!;
    // Every turn left a file checkpoint and a point in the conversation.
    expect(h.app.agents.sessions.get(id)!.state.undo).toHaveLength(3);
    expect(h.app.agents.sessions.get(id)!.state.points).toHaveLength(3);

    await h.restart();
    // The user edits a file after the checkpoint: nothing is rewound until they choose.
    writeFileSync(join(h.repo, 'a.txt'), 'one\nTWO-1\nTHREE-3\nfour\nfive\nsix mine\n');
    expect((await h.app.agents.run(id, '/rewind 1')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('Nothing rewound yet');
    expect(lastResult(id).actions?.map((a) => a.input)).toEqual(['/rewind 1 keep', '/rewind 1 pre', '/rewind 1 merge']);
    expect(existsSync(join(h.repo, 'c.txt'))).toBe(true);
    expect(h.app.agents.getSession(id).turnCount).toBe(3);
    expect(h.app.agents.sessions.get(id)!.state.resumeAt).toBeUndefined();

    expect((await h.app.agents.run(id, '/rewind 1 merge')).outcome).toBe('completed');
    expect(lastResult(id).text).toContain('Rewound to turn 1');
    expect(lastResult(id).text).toContain('Files git ignores are not rewound.');
    expect(read(h.repo, 'a.txt')).toBe('one\nTWO-1\nthree\nfour\nfive\nsix mine\n');
    expect(read(h.repo, 'gone.txt')).toBe('tracked, deleted in turn three\n');
    expect(existsSync(join(h.repo, 'c.txt'))).toBe(false);
    expect(existsSync(join(h.repo, 'lib'))).toBe(false);
    expect(h.app.agents.getSession(id).turnCount).toBe(1);
    expect(h.app.agents.sessions.get(id)!.state.resumeAt).toMatchObject({ kind: 'at', conversationId: original });

    // /rewind undo and the rewind again, across a restart: both the files and where the conversation resumes.
    await h.app.agents.run(id, '/rewind undo');
    expect(lastResult(id).ok).toBe(true);
    expect(read(h.repo, 'a.txt')).toBe('one\nTWO-1\nTHREE-3\nfour\nfive\nsix mine\n');
    expect(read(h.repo, 'c.txt')).toBe('made in three\n');
    expect(existsSync(join(h.repo, 'gone.txt'))).toBe(false);
    expect(h.app.agents.sessions.get(id)!.state.resumeAt).toBeUndefined();
    await h.restart();
    await h.app.agents.run(id, '/rewind 1 merge');
    expect(read(h.repo, 'a.txt')).toBe('one\nTWO-1\nthree\nfour\nfive\nsix mine\n');

    await h.restart();
    h.server.setScript([text('carrying on from one', 'after-rewind question')]);
    expect((await h.app.agents.run(id, 'after-rewind question')).outcome).toBe('completed');
    let sent = lastRequest();
    expect(sent).toContain('turn-one please');
    expect(sent).toContain('first done');
    expect(sent).toContain('after-rewind question');
    expect(sent).not.toContain('turn-two please');
    expect(sent).not.toContain('second done');
    expect(sent).not.toContain('turn-three please');
    expect(sent).not.toContain('earlier-conversation'); // resumed, not replayed
    // A forked conversation: the original is left as it was.
    const forked = h.app.coder.sessionConfig(id).claudeSessionId!;
    expect(forked).not.toBe(original);
    expect(readFileSync(conversationFile({ HOME: h.home }, original)!, 'utf8')).toContain('turn-three please');
    expect(h.app.agents.sessions.get(id)!.state.resumeAt).toBeUndefined();

    // The next turn continues the new conversation.
    h.server.setScript([text('still going', 'and then')]);
    await h.app.agents.run(id, 'and then');
    sent = lastRequest();
    expect(sent).toContain('carrying on from one');
    expect(sent).not.toContain('turn-three please');
    expect(h.app.coder.sessionConfig(id).claudeSessionId).toBe(forked);

    // Back to turn 1 once more, its conversation gone from this machine: the transcript up to it is replayed instead.
    await h.app.agents.run(id, '/rewind 1');
    rmSync(conversationFile({ HOME: h.home }, original)!);
    h.server.setScript([text('picked up from the replay', 'replayed question')]);
    expect((await h.app.agents.run(id, 'replayed question')).outcome).toBe('completed');
    sent = lastRequest();
    expect(sent).toContain('earlier-conversation');
    expect(sent).toContain('turn-one please');
    expect(sent).toContain('first done');
    expect(sent).not.toContain('after-rewind question');
    expect(sent).not.toContain('turn-three please');
    expect(h.app.agents.sink.read(id, 1, 100_000).some((e) => e.data.type === 'notice' && e.data.text.includes('replayed as context'))).toBe(true);
  });

  it('a turn the built-in loop ran has no point: Claude Code continues from it with the transcript replayed', async () => {
    h = await harness();
    const id = h.claudeSession();
    h.app.coder.updateSession({ sessionId: id, executor: 'builtin' });
    h.server.setScript([text('builtin answer', 'builtin-turn'), text('cc answer', 'cc-turn'), text('after replay', 'next-turn')]);
    await h.app.agents.run(id, 'builtin-turn');
    h.app.coder.updateSession({ sessionId: id, executor: 'claude-code' });
    expect((await h.app.agents.run(id, 'cc-turn')).outcome).toBe('completed');
    await h.app.agents.run(id, '/rewind 1');
    expect(h.app.agents.sessions.get(id)!.state.resumeAt).toEqual({ kind: 'replay' });
    expect((await h.app.agents.run(id, 'next-turn')).outcome).toBe('completed');
    const sent = lastRequest();
    expect(sent).toContain('builtin-turn');
    expect(sent).toContain('builtin answer');
    expect(sent).not.toContain('cc-turn');
  });

  it('turns the built-in loop ran after the rewind are replayed with the rest when the session goes back to Claude Code', async () => {
    h = await harness();
    const id = h.claudeSession();
    h.server.setScript([text('first answer', 'cc-first'), text('second answer', 'cc-second'), text('builtin answer', 'builtin-after'), text('back on claude code', 'cc-after')]);
    expect((await h.app.agents.run(id, 'cc-first')).outcome).toBe('completed');
    expect((await h.app.agents.run(id, 'cc-second')).outcome).toBe('completed');
    await h.app.agents.run(id, '/rewind 1');
    expect(h.app.agents.sessions.get(id)!.state.resumeAt).toMatchObject({ kind: 'at' });
    h.app.coder.updateSession({ sessionId: id, executor: 'builtin' });
    await h.app.agents.run(id, 'builtin-after');
    h.app.coder.updateSession({ sessionId: id, executor: 'claude-code' });
    expect((await h.app.agents.run(id, 'cc-after')).outcome).toBe('completed');
    const sent = lastRequest();
    expect(sent).toContain('earlier-conversation');
    for (const t of ['cc-first', 'first answer', 'builtin-after', 'builtin answer', 'cc-after']) expect(sent).toContain(t);
    expect(sent).not.toContain('cc-second');
  });
});

describe('a Claude Code session forked at a turn', { timeout: 600_000 }, () => {
  it("starts in a new worktree with that turn's files and conversation; both sessions continue independently across a restart", async () => {
    h = await harness();
    const id = await threeTurns();
    const f = await h.app.sessionWorktrees.fork(id, 1);
    const forkId = f.session.id;
    const wt = f.session.root;
    expect(wt).not.toBe(h.repo);
    expect(f.session.executor).toBe('claude-code');
    expect(read(wt, 'a.txt')).toBe('one\nTWO-1\nthree\nfour\nfive\nsix\n');
    expect(read(wt, 'gone.txt')).toBe('tracked, deleted in turn three\n');
    expect(existsSync(join(wt, 'c.txt'))).toBe(false);
    expect(existsSync(join(wt, 'lib'))).toBe(false);
    // The original is untouched.
    expect(read(h.repo, 'c.txt')).toBe('made in three\n');
    expect(h.app.agents.getSession(id).turnCount).toBe(3);

    await h.restart();
    h.server.setScript([
      { match: { userPattern: 'fork-question' }, ...tool('Write', { file_path: join(wt, 'fork-only.txt'), content: 'fork\n' }) },
      text('fork answered'),
      text('original answered', 'original-question'),
      text('fork again answered', 'fork-again'),
    ]);
    expect((await h.app.agents.run(forkId, 'fork-question')).outcome).toBe('completed');
    let sent = lastRequest();
    expect(sent).toContain('turn-one please');
    expect(sent).toContain('first done');
    expect(sent).toContain('fork-question');
    expect(sent).not.toContain('turn-two please');
    expect(sent).not.toContain('turn-three please');
    expect(sent).not.toContain('earlier-conversation'); // resumed from the original's conversation file, not replayed
    expect(read(wt, 'fork-only.txt')).toBe('fork\n');
    expect(existsSync(join(h.repo, 'fork-only.txt'))).toBe(false);

    // The original goes on from turn 3 in its own conversation, without the fork's turn.
    expect((await h.app.agents.run(id, 'original-question')).outcome).toBe('completed');
    sent = lastRequest();
    for (const t of ['turn-one please', 'turn-two please', 'turn-three please', 'third done', 'original-question']) expect(sent).toContain(t);
    expect(sent).not.toContain('fork-question');

    await h.restart();
    expect((await h.app.agents.run(forkId, 'fork-again')).outcome).toBe('completed');
    sent = lastRequest();
    for (const t of ['turn-one please', 'fork-question', 'fork answered', 'fork-again']) expect(sent).toContain(t);
    expect(sent).not.toContain('turn-three please');
    expect(sent).not.toContain('original-question');
    expect(h.app.coder.sessionConfig(forkId).claudeSessionId).not.toBe(h.app.coder.sessionConfig(id).claudeSessionId);

    // The fork's own checkpoints: rewinding it to turn 1 takes its write out, the original is left alone.
    await h.app.agents.run(forkId, '/rewind 1');
    expect(lastResult(forkId).ok).toBe(true);
    expect(existsSync(join(wt, 'fork-only.txt'))).toBe(false);
    expect(read(h.repo, 'c.txt')).toBe('made in three\n');
  });

  it("a feature's or mailbox task's Claude Code session refuses /rewind and forks", async () => {
    h = await harness();
    const id = h.claudeSession({ role: 'coder' });
    h.server.setScript([
      { match: { userPattern: 'task-one' }, ...tool('Write', { file_path: join(h.repo, 'one.txt'), content: 'one\n' }) },
      text('task one done'),
      { match: { userPattern: 'task-two' }, ...tool('Write', { file_path: join(h.repo, 'two.txt'), content: 'two\n' }) },
      text('task two done'),
      text('fork of a task answered', 'task-fork'),
    ]);
    expect((await h.app.agents.run(id, 'task-one')).outcome).toBe('completed');
    expect((await h.app.agents.run(id, 'task-two')).outcome).toBe('completed');
    expect((await h.app.agents.run(id, '/rewind 1')).outcome).toBe('failed');
    expect(lastResult(id).text).toContain('it cannot be rewound in place. Fork it from the turn instead');
    expect(read(h.repo, 'two.txt')).toBe('two\n');
    const f = await h.app.sessionWorktrees.fork(id, 1);
    expect(f.session.executor).toBe('claude-code');
    expect(read(f.session.root, 'one.txt')).toBe('one\n');
    expect(existsSync(join(f.session.root, 'two.txt'))).toBe(false);
    expect(h.app.agents.sessions.get(f.session.id)!.state.role).toBe('coder');
    expect((await h.app.agents.run(f.session.id, 'task-fork')).outcome).toBe('completed');
    const sent = lastRequest();
    expect(sent).toContain('task one done');
    expect(sent).not.toContain('task-two');
  });
});
