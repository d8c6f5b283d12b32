import { afterEach, describe, expect, it } from 'vitest';
import { coderHarness, requestText, type CoderHarness } from './support';

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

// The real CLI's start has taken over 10 s on a loaded machine; nothing here measures time.
describe('Coder SESSION_ID on failures and empty values (real claude CLI)', { timeout: 120_000 }, () => {
  it('an empty_result failure keeps the SESSION_ID, and resuming it continues that conversation', async () => {
    h = await coderHarness([
      { match: { userPattern: 'about zebras' }, blocks: [], times: 5 },
      { match: { userPattern: 'say something' }, blocks: [{ type: 'text', text: 'Now with words.' }] },
    ]);
    const failed = await h.run({ PROMPT: 'a question about zebras' });
    expect(failed).toMatchObject({ success: false, tool: 'coder', error_kind: 'empty_result' });
    if (failed.success) throw new Error('unreachable');
    expect(failed.SESSION_ID).toMatch(/^[0-9a-f-]{36}$/);
    const again = await h.run({ PROMPT: 'say something', SESSION_ID: failed.SESSION_ID });
    expect(again).toMatchObject({ success: true, SESSION_ID: failed.SESSION_ID, result: 'Now with words.' });
    expect(requestText(h.server.mainRequests().at(-1)!.body)).toContain('a question about zebras');
  });

  it.each([[''], [null]])('SESSION_ID %j starts a new session instead of a config_error', async (value) => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'Fresh start.' }] }]);
    const r = await h.run({ SESSION_ID: value });
    expect(r).toMatchObject({ success: true, result: 'Fresh start.' });
    if (!r.success) throw new Error('unreachable');
    expect(r.SESSION_ID).toMatch(/^[0-9a-f-]{36}$/);
    expect(h.server.mainRequests()).toHaveLength(1);
  });

  it('a failure before any conversation exists carries no SESSION_ID', async () => {
    h = await coderHarness([]);
    const r = await h.run({}, { claudePath: '/nonexistent/bin/claude' });
    expect(r).toMatchObject({ success: false, error_kind: 'command_not_found' });
    expect('SESSION_ID' in r).toBe(false);
  });
});
