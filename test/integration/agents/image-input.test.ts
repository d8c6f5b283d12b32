import { afterEach, describe, expect, it } from 'vitest';
import { MAX_INPUT_IMAGE_BYTES } from '../../../src-preload/contract';
import { estimateTokens, IMAGE_TOKENS } from '../../../src-main/agents/orchestrator/context';
import { harness, saveTestProfile, waitFor, type Harness } from './harness';

let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

async function harnessed(script: Parameters<typeof harness>[0]): Promise<Harness> {
  h = await harness(script);
  return h;
}

const ctx = { origin: 'test' as const, connectionId: 't' };
// A 1×1 transparent PNG.
const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

type Body = { messages: Array<{ role: string; content: Array<{ type: string; text?: string; source?: { type: string; media_type: string; data: string } }> }> };

describe('images attached to an input', () => {
  it('reach the model as a base64 image block before the text, stay in the conversation, and are announced on turn.started', async () => {
    const h = await harnessed([{ blocks: [{ type: 'text', text: 'A tiny image.' }] }, { blocks: [{ type: 'text', text: 'Still the same image.' }] }]);
    const id = h.session();
    const r = await h.app.router.dispatch('agents.input', { sessionId: id, input: 'what is this?', images: [{ mediaType: 'image/png', data: PNG }] }, ctx);
    expect(r).toMatchObject({ ok: true });
    await waitFor(() => h.events(id, 'turn.ended').length === 1, 'the turn to end');
    const first = h.server.mainRequests()[0]!.body as Body;
    const user = first.messages[first.messages.length - 1]!;
    expect(user.role).toBe('user');
    expect(user.content.map((b) => b.type)).toEqual(['image', 'text']);
    expect(user.content[0]!.source).toEqual({ type: 'base64', media_type: 'image/png', data: PNG });
    expect(user.content[1]!.text).toBe('what is this?');
    expect(h.events(id, 'turn.started')[0]).toMatchObject({ input: 'what is this?', images: [{ mediaType: 'image/png', bytes: 70 }] });
    // The next turn replays the conversation with the image in it.
    await h.app.agents.run(id, 'and now?');
    const second = h.server.mainRequests()[1]!.body as Body;
    expect(second.messages[0]!.content.map((b) => b.type)).toEqual(['image', 'text']);
  });

  it('are served back for the transcript\'s thumbnail by agents.images.get, per turn and index, and nothing else is', async () => {
    const h = await harnessed([{ blocks: [{ type: 'text', text: 'Two images.' }] }, { blocks: [{ type: 'text', text: 'No image.' }] }]);
    const id = h.session();
    const JPEG = '/9j/4AAQSkZJRgABAQ==';
    const r = (await h.app.router.dispatch('agents.input', { sessionId: id, input: 'compare these', images: [{ mediaType: 'image/png', data: PNG }, { mediaType: 'image/jpeg', data: JPEG }] }, ctx)) as { ok: true; value: { turnId: string } };
    await waitFor(() => h.events(id, 'turn.ended').length === 1, 'the turn to end');
    const turnId = r.value.turnId;
    // The event stays small: sizes only, the bytes are fetched when the message is shown.
    expect(JSON.stringify(h.events(id, 'turn.started')[0])).not.toContain(PNG);
    expect(await h.app.router.dispatch('agents.images.get', { sessionId: id, turnId, index: 0 }, ctx)).toEqual({ ok: true, value: { mediaType: 'image/png', data: PNG } });
    expect(await h.app.router.dispatch('agents.images.get', { sessionId: id, turnId, index: 1 }, ctx)).toEqual({ ok: true, value: { mediaType: 'image/jpeg', data: JPEG } });
    expect(await h.app.router.dispatch('agents.images.get', { sessionId: id, turnId, index: 2 }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    // A turn without images, and another session's id with this turn, serve nothing.
    const plain = (await h.app.router.dispatch('agents.input', { sessionId: id, input: 'and now?' }, ctx)) as { ok: true; value: { turnId: string } };
    await waitFor(() => h.events(id, 'turn.ended').length === 2, 'the second turn to end');
    expect(await h.app.router.dispatch('agents.images.get', { sessionId: id, turnId: plain.value.turnId, index: 0 }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    const other = h.session();
    expect(await h.app.router.dispatch('agents.images.get', { sessionId: other, turnId, index: 0 }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
  });

  it('are refused with a reason for models that do not read images, for commands, and above the size bound', async () => {
    const h = await harnessed([]);
    const id = h.session();
    const img = [{ mediaType: 'image/png', data: PNG }];
    expect(await h.app.router.dispatch('agents.input', { sessionId: id, input: '!ls', images: img }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('not with a ! or / command') } });
    const big = 'A'.repeat(Math.ceil(MAX_INPUT_IMAGE_BYTES / 3) * 4 + 8);
    expect(await h.app.router.dispatch('agents.input', { sessionId: id, input: 'look', images: [{ mediaType: 'image/png', data: big }] }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await h.app.router.dispatch('agents.input', { sessionId: id, input: 'look', images: [{ mediaType: 'image/bmp', data: PNG }] }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    saveTestProfile(h.app, h.server.url, { name: 'deepseek', label: 'DeepSeek', preset: 'deepseek', model: 'deepseek-chat', makeDefault: false });
    h.app.agents.updateSession({ sessionId: id, profile: 'deepseek', model: 'deepseek-chat' });
    expect(await h.app.router.dispatch('agents.input', { sessionId: id, input: 'look', images: img }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input', message: expect.stringContaining('does not read images') } });
    expect(h.server.mainRequests()).toHaveLength(0);
    expect(h.app.agents.messages.live(id)).toHaveLength(0);
  });

  it('count as a fixed number of tokens in the compaction estimate, not by their base64 length', () => {
    const data = 'A'.repeat(400_000);
    const withImage = estimateTokens('', [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }, { type: 'text', text: 'hi' }] }], []);
    const without = estimateTokens('', [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], []);
    expect(withImage - without).toBeLessThanOrEqual(IMAGE_TOKENS);
    expect(withImage - without).toBeGreaterThanOrEqual(IMAGE_TOKENS - 5);
  });
});
