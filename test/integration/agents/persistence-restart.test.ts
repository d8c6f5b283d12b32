import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { processStartTicks } from '../../../src-main/platform/process-identity';
import { harness, nextApproval, waitFor, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('persistence and resume across restarts (seed 001 §10)', () => {
  it('a session survives a restart and continues where it stopped', async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'first answer' }] }, { blocks: [{ type: 'text', text: 'second answer' }] }]);
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'remember the word PELICAN');
    await h.app.agents.run(id, '/model other-model');
    const before = h.app.agents.sink.lastSeq(id);
    await h.restart();
    const s = h.app.agents.getSession(id);
    // Only the chat turn counts: `/model` is a command, not a turn with the agent.
    expect(s).toMatchObject({ status: 'idle', mode: 'auto-edit', model: 'other-model', turnCount: 1, title: 'remember the word PELICAN' });
    expect(h.app.agents.sink.read(id, 1, 10_000).map((e) => e.seq)).toEqual(Array.from({ length: before }, (_, i) => i + 1));
    await h.app.agents.run(id, 'which word?');
    const body = h.server.mainRequests()[1]!.body as { model: string; messages: Array<{ role: string }> };
    expect(body.model).toBe('other-model');
    expect(JSON.stringify(body.messages)).toContain('PELICAN');
    expect(body.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    // Sequence numbers continue after the restart.
    expect(h.app.agents.sink.lastSeq(id)).toBeGreaterThan(before);
  });

  it('a turn waiting for approval is interrupted by a restart, the approval stays answerable, and answering resumes the turn', async () => {
    h = await harness([
      { blocks: [{ type: 'text', text: 'Writing.' }, { type: 'tool_use', name: 'write', input: { path: 'after-restart.txt', content: 'written\n' } }] },
      { match: { userPattern: 'Created after-restart.txt' }, blocks: [{ type: 'text', text: 'All done after the restart.' }] },
    ]);
    const id = h.session();
    void h.app.agents.run(id, 'write the file');
    const a = await nextApproval(h, id);
    expect(h.app.agents.getSession(id).status).toBe('awaiting_approval');
    await h.restart();
    const s = h.app.agents.getSession(id);
    expect(s).toMatchObject({ status: 'interrupted', pendingApprovals: 1, lastTurn: { outcome: 'interrupted' } });
    expect(h.app.agents.gate.pending(id).map((p) => p.id)).toEqual([a.id]);
    expect(h.app.agents.sink.read(id, 1, 10_000).some((e) => e.data.type === 'turn.ended' && e.data.outcome === 'interrupted')).toBe(true);
    expect(existsSync(join(h.repo, 'after-restart.txt'))).toBe(false);
    h.app.agents.gate.answer(a.id, 'approve_once');
    const resumed = await waitFor(() => h.app.agents.running(id), 'the resumed turn');
    const r = await resumed;
    expect(r).toMatchObject({ outcome: 'completed', turnId: a.turnId });
    expect(readFileSync(join(h.repo, 'after-restart.txt'), 'utf8')).toBe('written\n');
    expect(h.app.agents.getSession(id)).toMatchObject({ status: 'idle', pendingApprovals: 0 });
    expect(h.app.agents.messages.live(id).map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant']);
  });

  it('new input in an interrupted session cancels its approvals and the unanswered call is reported to the model', async () => {
    h = await harness([{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'touch x' } }] }, { blocks: [{ type: 'text', text: 'fresh start' }] }]);
    const id = h.session();
    void h.app.agents.run(id, 'make x');
    const a = await nextApproval(h, id);
    await h.restart();
    const r = await h.app.agents.run(id, 'forget that, just say hi');
    expect(r.outcome).toBe('completed');
    expect(h.app.agents.gate.get(a.id)).toMatchObject({ status: 'cancelled' });
    const last = (h.server.mainRequests()[1]!.body as { messages: Array<{ role: string; content: Array<{ type: string; content?: string }> }> }).messages.at(-1)!;
    expect(last.content[0]).toMatchObject({ type: 'tool_result', content: expect.stringContaining('interrupted') });
    expect(existsSync(join(h.repo, 'x'))).toBe(false);
  });

  it('a turn whose process died is marked interrupted at the next start; a live owner elsewhere is left alone', async () => {
    h = await harness();
    const dead = h.session();
    const alive = h.session();
    // A pid that cannot exist (above the kernel's pid_max) stands for a crashed process.
    h.app.db.prepare("UPDATE agent_sessions SET status = 'running', owner_pid = 4194305, owner_id = 'x' WHERE id = ?").run(dead);
    // Our parent process is alive and is not us: it plays another Flightdeck process.
    h.app.db.prepare("UPDATE agent_sessions SET status = 'running', owner_pid = ?, owner_id = 'y' WHERE id = ?").run(process.ppid, alive);
    await h.restart();
    expect(h.app.agents.getSession(dead).status).toBe('interrupted');
    expect(h.app.agents.getSession(alive).status).toBe('running');
    await expect(h.app.agents.run(alive, 'hi')).rejects.toThrow(/another Flightdeck process/);
  });

  it('a live process that merely reuses the dead owner\'s pid is not taken for the owner', async () => {
    h = await harness();
    const reused = h.session();
    const real = h.session();
    const parentStart = processStartTicks(process.ppid);
    expect(parentStart).not.toBeNull();
    // Same pid as a live process, but recorded with another start time: the owner died and the pid came back.
    h.app.db.prepare("UPDATE agent_sessions SET status = 'running', owner_pid = ?, owner_id = ? WHERE id = ?").run(process.ppid, `${process.ppid}@1`, reused);
    h.app.db.prepare("UPDATE agent_sessions SET status = 'running', owner_pid = ?, owner_id = ? WHERE id = ?").run(process.ppid, `${process.ppid}@${parentStart}`, real);
    await h.restart();
    expect(h.app.agents.getSession(reused).status).toBe('interrupted');
    expect(h.app.agents.getSession(real).status).toBe('running');
  });
});

describe('denying after a restart', () => {
  it('the denial reaches the model and the resumed turn goes on', async () => {
    h = await harness([
      { blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'touch nope.txt' } }] },
      { match: { userPattern: 'not after a restart' }, blocks: [{ type: 'text', text: 'Understood, skipping it.' }] },
    ]);
    const id = h.session();
    void h.app.agents.run(id, 'touch it');
    const a = await nextApproval(h, id);
    await h.restart();
    h.app.agents.gate.answer(a.id, 'deny', 'not after a restart');
    const r = await (await waitFor(() => h.app.agents.running(id), 'the resumed turn'));
    expect(r.outcome).toBe('completed');
    expect(existsSync(join(h.repo, 'nope.txt'))).toBe(false);
    expect(h.server.pendingTurns()).toBe(0);
  });
});
