/**
 * Comments on a session's changes (the Changes view): anchored to lines as the folder holds them,
 * sent through the contract as one message that starts a turn as typed input does, and judged
 * after it once the session is idle; a message that cannot be taken leaves them open.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ReviewComment } from '../../../src-preload/contract';
import { waitFor } from '../../support/processes';
import { harness, type Harness } from '../agents/harness';

let h: Harness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

const ctx = { origin: 'test' as const, connectionId: 'c' };
const LIB = 'export function sum(a, b) {\n  return a + b;\n}\n\nexport const VERSION = 1;\n';
const FIXED = '/** Adds two numbers. */\nexport function sum(a, b) {\n  return a + b;\n}\n\nexport const VERSION = 1;\n';

async function call<T>(channel: string, payload: unknown): Promise<T> {
  const r = (await h!.app.router.dispatch(channel, payload, ctx)) as { ok: boolean; value?: T; error?: { message: string } };
  if (!r.ok) throw new Error(r.error?.message ?? 'refused');
  return r.value as T;
}

/** A session whose first turn wrote sum.mjs (LIB); the model's next turn writes FIXED. */
async function sessionThatWroteSum(): Promise<string> {
  h = await harness([
    { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'sum.mjs', content: LIB } }] },
    { blocks: [{ type: 'text', text: 'Wrote sum.mjs.' }] },
    { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'sum.mjs', content: FIXED } }] },
    { blocks: [{ type: 'text', text: 'Documented sum.' }] },
  ]);
  const id = h.session({ mode: 'yolo' });
  await h.app.agents.run(id, 'write a sum');
  return id;
}

describe("comments on a session's changes", () => {
  it('sends open comments as one turn and judges them on the folder once the session is idle; kept across a restart', async () => {
    const id = await sessionThatWroteSum();
    expect(readFileSync(join(h!.repo, 'sum.mjs'), 'utf8')).toBe(LIB);
    // Nothing to send yet: refused, and no turn starts.
    await expect(call('sessions.comments.send', { sessionId: id })).rejects.toThrow(/no open comments/);

    const { comment: onSum } = await call<{ comment: ReviewComment }>('sessions.comments.add', { sessionId: id, file: 'sum.mjs', lineStart: 1, lineEnd: 3, body: 'Document sum.' });
    const { comment: onVersion } = await call<{ comment: ReviewComment }>('sessions.comments.add', { sessionId: id, file: 'sum.mjs', lineStart: 5, lineEnd: 5, body: 'VERSION?' });
    expect(onSum).toMatchObject({ sessionId: id, status: 'open', quote: 'export function sum(a, b) {\n  return a + b;\n}' });
    await expect(call('sessions.comments.add', { sessionId: id, file: 'sum.mjs', lineStart: 9, lineEnd: 9, body: 'x' })).rejects.toThrow(/has no line 9/);
    await expect(call('sessions.comments.add', { sessionId: id, file: '../etc/passwd', lineStart: 1, lineEnd: 1, body: 'x' })).rejects.toThrow(/inside the worktree/);

    const sent = await call<{ sent: number; outcome: string }>('sessions.comments.send', { sessionId: id });
    expect(sent).toEqual({ sent: 2, outcome: 'started' });
    await waitFor(() => h!.app.agents.getSession(id).status === 'idle' && h!.server.mainRequests().length === 4, 'the fix turn', 60_000);
    const asked = h!.server.mainRequests()[2]!.userText ?? '';
    expect(asked).toContain('### 1. sum.mjs, lines 1-3');
    expect(asked).toContain('### 2. sum.mjs, line 5');

    const { comments } = await call<{ comments: ReviewComment[] }>('sessions.comments.list', { sessionId: id });
    expect(comments.map((c) => [c.id, c.status])).toEqual([
      [onSum.id, 'addressed'],
      [onVersion.id, 'open'],
    ]);

    await h!.restart();
    const kept = await call<{ comments: ReviewComment[] }>('sessions.comments.list', { sessionId: id });
    expect(kept.comments.map((c) => [c.body, c.status])).toEqual([
      ['Document sum.', 'addressed'],
      ['VERSION?', 'open'],
    ]);
  }, 120_000);

  it('a comment the user reopened while another list was judging it stays open', async () => {
    const id = await sessionThatWroteSum();
    const { comment } = await call<{ comment: ReviewComment }>('sessions.comments.add', { sessionId: id, file: 'sum.mjs', lineStart: 1, lineEnd: 3, body: 'Document sum.' });
    await call('sessions.comments.send', { sessionId: id });
    await waitFor(() => h!.app.agents.getSession(id).status === 'idle' && h!.server.mainRequests().length === 4, 'the fix turn', 60_000);

    // A list (the Changes view refreshing) reads the sent comment, then reads the file...
    const judging = h!.app.reviewComments.listForSession(id, { idle: true });
    // ...while another list judged it addressed, and the user reopened it for the next round.
    h!.app.db.prepare("UPDATE review_comments SET status = 'addressed' WHERE id = ?").run(comment.id);
    expect(h!.app.reviewComments.reopen(comment.id).status).toBe('open');
    // The first list's verdict (addressed: its lines changed) is for a comment no longer sent.
    expect((await judging).map((c) => c.status)).toEqual(['open']);
    const { comments } = await call<{ comments: ReviewComment[] }>('sessions.comments.list', { sessionId: id });
    expect(comments.map((c) => c.status)).toEqual(['open']);

    // Sent again in a new round while a list that read it in the old one still judges: the old
    // verdict is not the new round's.
    h!.app.reviewComments.takeForSession(id);
    const before = h!.app.reviewComments.listForSession(id, { idle: true });
    h!.app.db.prepare("UPDATE review_comments SET status = 'addressed', updated_at = updated_at + 1 WHERE id = ?").run(comment.id);
    h!.app.reviewComments.reopen(comment.id);
    expect(h!.app.reviewComments.takeForSession(id)).toContain('Document sum.');
    expect((await before).map((c) => c.status)).toEqual(['sent']);
  }, 120_000);
});
