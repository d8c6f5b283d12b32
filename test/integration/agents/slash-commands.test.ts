import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from '../../support/temp';
import { harness, streamedText, toolThenText, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const lastResult = (h: Harness, id: string) => h.events(id, 'command.result').at(-1)!;

describe('slash commands (seed 001 §7)', () => {
  it('/help lists all nine; an unknown command is a readable error without a model call', async () => {
    h = await harness();
    const id = h.session();
    expect((await h.app.agents.run(id, '/help')).outcome).toBe('completed');
    const help = lastResult(h, id).text;
    for (const c of ['/help', '/model', '/permissions', '/new', '/resume', '/compact', '/diff', '/review', '/undo', '/redo', '/rewind']) expect(help).toContain(c);
    const r = await h.app.agents.run(id, '/frobnicate now');
    expect(r).toMatchObject({ outcome: 'failed' });
    expect(lastResult(h, id)).toMatchObject({ ok: false, name: 'frobnicate', text: 'Unknown command "/frobnicate". Type /help for the list of commands.' });
    expect(h.server.requests).toHaveLength(0);
  });

  it('/model switches at once, persists to .coder/config.json (not the project\'s .flightdeck/config.yml), and new sessions pick it up', async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'hi' }] }]);
    const id = h.session();
    writeFileSync(join(h.repo, 'keep.txt'), '');
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(h.repo, '.flightdeck'));
    writeFileSync(join(h.repo, '.flightdeck/config.yml'), '# project settings\nfeatures:\n  base_branch: main\n');
    await h.app.agents.run(id, '/model big-model-2');
    expect(h.events(id, 'model.changed')[0]).toMatchObject({ profile: 'scripted', model: 'big-model-2', persistError: null });
    expect(h.app.agents.getSession(id).model).toBe('big-model-2');
    expect(readFileSync(join(h.repo, '.flightdeck/config.yml'), 'utf8')).toBe('# project settings\nfeatures:\n  base_branch: main\n');
    expect(JSON.parse(readFileSync(join(h.repo, '.coder/config.json'), 'utf8'))).toEqual({ profile: 'scripted', model: 'big-model-2' });
    await h.app.agents.run(id, 'hello');
    expect((h.server.mainRequests()[0]!.body as { model: string }).model).toBe('big-model-2');
    expect(h.app.agents.getSession(h.session()).model).toBe('big-model-2');
    // profile:model and bare profile names
    await h.app.agents.run(id, '/model glm');
    expect(h.app.agents.getSession(id)).toMatchObject({ profile: 'glm', model: 'glm-4.7' });
    await h.app.agents.run(id, '/model scripted:other');
    expect(h.app.agents.getSession(id)).toMatchObject({ profile: 'scripted', model: 'other' });
    await h.app.agents.run(id, '/model');
    // The provider by its label, as the header's picker shows it, with the name /model takes.
    const label = h.app.agents.profiles.list().find((p) => p.name === 'scripted')!.label;
    expect(lastResult(h, id).text).toContain(`Model: other · ${label} (profile scripted).`);
    expect((await h.app.agents.run(id, '/model a b')).outcome).toBe('failed');
  });

  it('/model still takes effect when the config file cannot be written, and says why', async () => {
    h = await harness();
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(h.repo, '.coder'));
    writeFileSync(join(h.repo, '.coder/config.json'), '{"model": broken\n');
    const id = h.session();
    await h.app.agents.run(id, '/model m2');
    expect(h.app.agents.getSession(id).model).toBe('m2');
    expect(h.events(id, 'model.changed')[0]!.persistError).toContain(`${join(h.repo, '.coder/config.json')} is not valid JSON`);
    expect(readFileSync(join(h.repo, '.coder/config.json'), 'utf8')).toBe('{"model": broken\n');
  });

  it('/permissions shows and sets the preset', async () => {
    h = await harness();
    const id = h.session();
    await h.app.agents.run(id, '/permissions');
    expect(lastResult(h, id).text).toContain('Policy preset: balanced');
    // The mode and sandbox by the header's and Settings' names, never the stored values.
    expect(lastResult(h, id).text).toContain('Mode: Default. Sandbox: Workspace — commands write only inside the session folder');
    h.app.agents.updateSession({ sessionId: id, mode: 'plan' });
    await h.app.agents.run(id, '/permissions');
    expect(lastResult(h, id).text).toContain('Mode: Plan. Sandbox: Read-only — commands cannot change any file (a private /tmp only) (plan mode).');
    await h.app.agents.run(id, '/permissions trusted');
    expect(h.app.agents.getSession(id).policyPreset).toBe('trusted');
    expect(h.events(id, 'permissions.changed')[0]!.preset).toBe('trusted');
    const bad = await h.app.agents.run(id, '/permissions lax');
    expect(bad.outcome).toBe('failed');
    expect(lastResult(h, id).text).toContain('Presets: read-only, strict, balanced, trusted');
  });

  it('/new starts a fresh session; /resume only accepts a session id and switches back', async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'first' }] }, { blocks: [{ type: 'text', text: 'second' }] }]);
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'hello');
    const r = await h.app.agents.run(id, '/new');
    expect(r.sessionId).not.toBe(id);
    expect(h.events(id, 'session.switched')[0]).toEqual({ type: 'session.switched', toSessionId: r.sessionId, reason: 'new' });
    const fresh = h.app.agents.getSession(r.sessionId);
    expect(fresh).toMatchObject({ root: h.repo, mode: 'auto-edit', turnCount: 0 });
    expect(h.app.agents.messages.live(r.sessionId)).toHaveLength(0);
    await h.app.agents.run(r.sessionId, 'in the new one');
    // The new session's request carries only its own conversation.
    expect((h.server.mainRequests()[1]!.body as { messages: unknown[] }).messages).toHaveLength(1);
    for (const bad of ['/resume', '/resume last', '/resume ses-abc', `/resume ${id} extra`]) {
      expect((await h.app.agents.run(r.sessionId, bad)).outcome, bad).toBe('failed');
      expect(lastResult(h, r.sessionId).text).toContain('only accepts a session id');
    }
    expect((await h.app.agents.run(r.sessionId, '/resume ses-000000000000')).outcome).toBe('failed');
    expect(lastResult(h, r.sessionId).text).toBe('There is no session ses-000000000000.');
    const back = await h.app.agents.run(r.sessionId, `/resume ${id}`);
    expect(back).toMatchObject({ outcome: 'completed', sessionId: id });
    expect(h.events(r.sessionId, 'session.switched').at(-1)).toMatchObject({ toSessionId: id, reason: 'resume' });
  });

  it('/compact summarizes older turns now, keeping the last two verbatim', async () => {
    h = await harness([
      { blocks: [{ type: 'text', text: 'answer one' }] },
      { blocks: [{ type: 'text', text: 'answer two' }] },
      { blocks: [{ type: 'text', text: 'answer three' }] },
      { match: { userPattern: 'Write the summary' }, blocks: [{ type: 'text', text: 'SUMMARY: user asked one, got answer one.' }] },
    ]);
    const id = h.session();
    for (const q of ['question one', 'question two', 'question three']) await h.app.agents.run(id, q);
    await h.app.agents.run(id, '/compact');
    expect(lastResult(h, id).text).toMatch(/^Compacted 2 messages/);
    const summaryReq = h.server.mainRequests()[3]!;
    expect(summaryReq.userText).toContain('USER: question one');
    expect(summaryReq.userText).toContain('ASSISTANT: answer one');
    expect(summaryReq.userText).not.toContain('question two');
    const live = h.app.agents.messages.live(id);
    expect(live.map((m) => m.kind)).toEqual(['summary', 'chat', 'chat', 'chat', 'chat']);
    expect(live[0]!.blocks[0]).toMatchObject({ type: 'text' });
    expect((live[0]!.blocks[0] as { text: string }).text).toContain('SUMMARY: user asked one');
    expect(h.events(id, 'compaction')[0]).toMatchObject({ trigger: 'manual', summarizedMessages: 2 });
    expect(h.app.agents.costs.summary(id).byPurpose.map((p) => p.purpose)).toEqual(['compaction', 'turn']);
    await h.app.agents.run(id, '/compact');
    expect(lastResult(h, id).text).toContain('Nothing compacted');
  });

  it('/diff and /review work on the session root; /review streams a model review', async () => {
    h = await harness([{ match: { userPattern: 'Review these uncommitted changes' }, blocks: [{ type: 'text', text: 'Looks fine: README heading changed.' }] }]);
    const id = h.session();
    await h.app.agents.run(id, '/diff');
    expect(lastResult(h, id).text).toBe('No changes: the working tree matches HEAD.');
    await h.app.agents.run(id, '/review');
    expect(lastResult(h, id).text).toBe('Nothing to review: there are no uncommitted changes.');
    writeFileSync(join(h.repo, 'README.md'), '# changed\n');
    writeFileSync(join(h.repo, 'new.txt'), 'brand new\n');
    await h.app.agents.run(id, '/diff');
    const diff = lastResult(h, id).text;
    expect(diff).toContain(' M README.md');
    expect(diff).toContain('+# changed');
    expect(diff).toContain('+brand new');
    await h.app.agents.run(id, '/review');
    // The review streams into the transcript; the result only closes it (it used to repeat it).
    expect(lastResult(h, id)).toMatchObject({ ok: true, text: 'Reviewed the uncommitted changes (2 files); the review is above.' });
    expect(streamedText(h, id)).toBe('Looks fine: README heading changed.');
    expect(h.server.mainRequests()[0]!.userText).toContain('+brand new');
    expect(h.app.agents.costs.summary(id).byPurpose[0]).toMatchObject({ purpose: 'review', calls: 1 });
  });

  it('/diff, /review and /undo say they are unavailable without git', async () => {
    const plain = tempDir('fd-nogit-');
    h = await harness();
    const id = h.session({ root: plain.path });
    for (const c of ['/diff', '/review', '/undo']) {
      expect((await h.app.agents.run(id, c)).outcome).toBe('failed');
      expect(lastResult(h, id).text).toMatch(/needs git|unavailable/);
    }
    expect(lastResult(h, id).text).toContain('/undo is unavailable');
    plain.cleanup();
  });

  it('/undo reverts the last turn\'s write/patch changes (new files removed), turn by turn', async () => {
    h = await harness([
      ...toolThenText('patch', { path: 'README.md', edits: [{ search: 'sample', replace: 'first' }] }),
      { blocks: [{ type: 'tool_use', name: 'patch', input: { path: 'README.md', edits: [{ search: 'first', replace: 'second' }] } }, { type: 'tool_use', name: 'write', input: { path: 'src/made.ts', content: 'x' } }] },
      { blocks: [{ type: 'text', text: 'done' }] },
    ]);
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'edit one');
    await h.app.agents.run(id, 'edit two');
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# second\n');
    await h.app.agents.run(id, '/undo');
    expect(lastResult(h, id).text).toContain('restored README.md');
    expect(lastResult(h, id).text).toContain('deleted src/made.ts');
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# first\n');
    expect(existsSync(join(h.repo, 'src/made.ts'))).toBe(false);
    await h.app.agents.run(id, '/undo');
    expect(readFileSync(join(h.repo, 'README.md'), 'utf8')).toBe('# sample\n');
    expect((await h.app.agents.run(id, '/undo')).outcome).toBe('failed');
    expect(lastResult(h, id).text).toContain('Nothing to undo');
  });
});
