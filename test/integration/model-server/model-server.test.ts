import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Anthropic, { AnthropicError, APIConnectionError, APIError } from '@anthropic-ai/sdk';
import type { RawMessageStreamEvent } from '@anthropic-ai/sdk/resources/messages';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { CLAUDE_BIN, claudeEnv, makeClaudeSandbox as makeSandbox, runClaude, type ClaudeSandbox } from '../../fixtures/model-server/claude-cli.js';

const MODEL = 'claude-sonnet-5';

let server: ModelServer;

function client(opts: { maxRetries?: number; apiKey?: string; logged?: string[] } = {}): Anthropic {
  const logged = opts.logged;
  const log = (...args: unknown[]): void => void logged?.push(args.map(String).join(' '));
  return new Anthropic({
    baseURL: server.url,
    apiKey: opts.apiKey ?? 'sk-test-fixture',
    maxRetries: opts.maxRetries ?? 0,
    ...(logged === undefined ? {} : { logger: { error: log, warn: log, info: log, debug: log } }),
  });
}

function ask(text: string, extra: Partial<Anthropic.MessageCreateParamsNonStreaming> = {}): Anthropic.MessageCreateParamsNonStreaming {
  return { model: MODEL, max_tokens: 1024, messages: [{ role: 'user', content: text }], ...extra };
}

async function textOf(promise: Promise<Anthropic.Message>): Promise<string> {
  const message = await promise;
  return message.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
}

/** Collects raw stream events with their arrival time. */
async function collect(stream: AsyncIterable<RawMessageStreamEvent>): Promise<Array<{ event: RawMessageStreamEvent; at: number }>> {
  const seen: Array<{ event: RawMessageStreamEvent; at: number }> = [];
  for await (const event of stream) seen.push({ event, at: performance.now() });
  return seen;
}

beforeAll(async () => {
  server = await startModelServer();
});

afterAll(async () => {
  await server.close();
});

afterEach(() => {
  server.setScript([]);
  server.reset();
});

describe('streaming through @anthropic-ai/sdk', () => {
  it('streams thinking, text and a tool_use whose JSON input arrives in pieces', async () => {
    const input = { file_path: '/tmp/some/where.txt', content: 'line one\nline two ✓ 🚀\n'.repeat(5), mode: 420 };
    server.setScript([
      {
        blocks: [
          { type: 'thinking', thinking: 'The user wants a file. I will write it with the Write tool.' },
          { type: 'text', text: 'Writing the file now, then I will report back.' },
          { type: 'tool_use', name: 'Write', id: 'toolu_given', input },
        ],
        usage: { input_tokens: 123, output_tokens: 45, cache_read_input_tokens: 7 },
      },
    ]);
    const stream = client().messages.stream({ ...ask('write a file'), tools: [{ name: 'Write', input_schema: { type: 'object' } }] });
    const deltas: string[] = [];
    stream.on('streamEvent', (event) => {
      if (event.type === 'content_block_delta') deltas.push(event.delta.type);
    });
    const message = await stream.finalMessage();

    expect(message.content).toEqual([
      expect.objectContaining({ type: 'thinking', thinking: 'The user wants a file. I will write it with the Write tool.', signature: expect.any(String) }),
      expect.objectContaining({ type: 'text', text: 'Writing the file now, then I will report back.' }),
      expect.objectContaining({ type: 'tool_use', id: 'toolu_given', name: 'Write', input }),
    ]);
    expect(message.stop_reason).toBe('tool_use');
    expect(message.usage).toMatchObject({ input_tokens: 123, output_tokens: 45, cache_read_input_tokens: 7, cache_creation_input_tokens: 0 });
    expect(deltas.filter((t) => t === 'input_json_delta').length).toBeGreaterThanOrEqual(3);
    expect(deltas.filter((t) => t === 'text_delta').length).toBeGreaterThanOrEqual(3);
    expect(deltas).toContain('thinking_delta');
    expect(deltas).toContain('signature_delta');
  });

  it('sends the events in the order the real API does, ping included', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'hi' }] }]);
    const response = await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
      body: JSON.stringify({ ...ask('hello'), stream: true }),
    });
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const names = [...(await response.text()).matchAll(/^event: (\S+)$/gm)].map((m) => m[1]);
    expect(names[0]).toBe('message_start');
    expect(names[1]).toBe('ping');
    expect(names.slice(-3)).toEqual(['content_block_stop', 'message_delta', 'message_stop']);
    expect(names.filter((n) => n === 'content_block_start')).toHaveLength(1);
  });

  it('answers with end_turn and an estimated usage when the script says nothing more', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'plain' }], model: 'claude-scripted-1' }]);
    const message = await client().messages.stream(ask('hello')).finalMessage();
    expect(message.stop_reason).toBe('end_turn');
    expect(message.model).toBe('claude-scripted-1');
    expect(message.usage.input_tokens).toBeGreaterThan(0);
    expect(message.usage.output_tokens).toBeGreaterThan(0);
  });
});

describe('non-streaming and count_tokens', () => {
  it('returns the whole message as JSON', async () => {
    server.setScript([
      { blocks: [{ type: 'text', text: 'whole answer' }, { type: 'tool_use', name: 'Read', input: { file_path: '/x' } }], stopReason: 'tool_use' },
    ]);
    const message = await client().messages.create(ask('read it'));
    expect(message.type).toBe('message');
    expect(message.role).toBe('assistant');
    expect(message.model).toBe(MODEL);
    expect(message.id).toMatch(/^msg_/);
    expect(message.content[0]).toEqual({ type: 'text', text: 'whole answer' });
    expect(message.content[1]).toMatchObject({ type: 'tool_use', name: 'Read', input: { file_path: '/x' }, id: expect.stringMatching(/^toolu_/) });
    expect(message.stop_reason).toBe('tool_use');
  });

  it('counts tokens as characters / 4 of what the model would read', async () => {
    const small = await client().messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'hi' }] });
    const large = await client().messages.countTokens({ model: MODEL, messages: [{ role: 'user', content: 'x'.repeat(4000) }] });
    expect(small.input_tokens).toBeGreaterThan(0);
    expect(large.input_tokens).toBeGreaterThanOrEqual(1000);
    expect(large.input_tokens).toBeLessThan(1100);
    expect(server.requests.filter((r) => r.route === 'count_tokens')).toHaveLength(2);
    // count_tokens never consumes a scripted turn
    expect(server.mainRequests()).toHaveLength(0);
  });
});

describe('faults', () => {
  it('answers a status fault with an Anthropic error body and retry-after', async () => {
    server.setScript([{ fault: { kind: 'status', status: 429, retryAfter: 7, message: 'slow down' } }]);
    const error = await client().messages.create(ask('hi')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    const apiError = error as APIError;
    expect(apiError.status).toBe(429);
    expect(apiError.headers?.get('retry-after')).toBe('7');
    expect(apiError.error).toEqual({ type: 'error', error: { type: 'rate_limit_error', message: 'slow down' } });
  });

  it.each([
    [529, 'overloaded_error'],
    [500, 'api_error'],
    [400, 'invalid_request_error'],
    [401, 'authentication_error'],
  ])('maps status %i to %s, also on a streaming request', async (status, type) => {
    server.setScript([{ fault: { kind: 'status', status } }]);
    const error = await client()
      .messages.stream(ask('hi'))
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).status).toBe(status);
    expect((error as APIError).error).toMatchObject({ type: 'error', error: { type } });
  });

  it('fails `times` times, then the next turn answers (the SDK retries through it)', async () => {
    server.setScript([{ fault: { kind: 'status', status: 529, retryAfter: 0 }, times: 2 }, { blocks: [{ type: 'text', text: 'third time lucky' }] }]);
    expect(await textOf(client({ maxRetries: 2 }).messages.create(ask('hi')))).toBe('third time lucky');
    const mains = server.mainRequests();
    expect(mains.map((r) => r.turnIndex)).toEqual([0, 0, 1]);
    expect(mains.map((r) => r.headers['x-stainless-retry-count'])).toEqual(['0', '1', '2']);
    expect(server.pendingTurns()).toBe(0);
  });

  it('disconnect mid-stream surfaces as a connection error after the first events', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'this answer is cut short by a dropped connection' }], fault: { kind: 'disconnect', afterEvents: 4 } }]);
    const stream = await client().messages.create({ ...ask('hi'), stream: true });
    const seen: string[] = [];
    const error = await (async () => {
      for await (const event of stream) seen.push(event.type);
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // message_start (ping is skipped by the SDK), content_block_start, one delta
    expect(seen).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
  });

  it('disconnect on a non-streaming request is an APIConnectionError', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'never sent' }], fault: { kind: 'disconnect', afterEvents: 0 } }]);
    await expect(client().messages.create(ask('hi'))).rejects.toBeInstanceOf(APIConnectionError);
  });

  it('malformed event data fails the SDK parse', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'garbled soon' }], fault: { kind: 'malformed', afterEvents: 3 } }]);
    const logged: string[] = [];
    const error = await client({ logged })
      .messages.stream(ask('hi'))
      .finalMessage()
      .catch((e: unknown) => e);
    // MessageStream wraps the JSON.parse SyntaxError
    expect(error).toBeInstanceOf(AnthropicError);
    expect(error).not.toBeInstanceOf(APIError);
    expect(String(error)).toMatch(/JSON|property name/);
    expect(logged.join('\n')).toContain('Could not parse message into JSON');
  });

  it('an SSE error event mid-stream becomes an APIError with its type', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'busy' }], fault: { kind: 'sse_error', afterEvents: 2 } }]);
    const error = await client()
      .messages.stream(ask('hi'))
      .finalMessage()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(APIError);
    expect((error as APIError).error).toMatchObject({ error: { type: 'overloaded_error' } });
  });

  it('stall holds the stream at the given event, then carries on', async () => {
    const STALL_MS = 400;
    server.setScript([{ blocks: [{ type: 'text', text: 'wait for it, wait for it' }], fault: { kind: 'stall', ms: STALL_MS, afterEvents: 3 } }]);
    const seen = await collect(await client().messages.create({ ...ask('hi'), stream: true }));
    // Wire events: 0 message_start, 1 ping (not surfaced), 2 content_block_start | stall | 3 first delta.
    const names = seen.map((s) => s.event.type);
    expect(names.slice(0, 3)).toEqual(['message_start', 'content_block_start', 'content_block_delta']);
    const gaps = seen.slice(1).map((s, i) => s.at - (seen[i]?.at ?? 0));
    const biggest = gaps.indexOf(Math.max(...gaps));
    expect(biggest).toBe(1); // between content_block_start and the first delta
    expect(gaps[1]).toBeGreaterThanOrEqual(STALL_MS * 0.8);
    expect(names.at(-1)).toBe('message_stop');
  });

  it('delayMs spaces out every event', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'abc' }], delayMs: 60 }]);
    const started = performance.now();
    const seen = await collect(await client().messages.create({ ...ask('hi'), stream: true }));
    // 9 wire events (start, ping, block start, 3 deltas, block stop, message_delta, stop): 8 gaps.
    expect(seen.length).toBe(8);
    expect((seen.at(-1)?.at ?? 0) - started).toBeGreaterThanOrEqual(8 * 60 * 0.8);
  });
});

describe('matching', () => {
  it('matches by main-request number, leaving out-of-turn entries for later', async () => {
    server.setScript([
      { match: { turn: 2 }, blocks: [{ type: 'text', text: 'second' }] },
      { blocks: [{ type: 'text', text: 'first' }] },
      { match: { turn: 3 }, blocks: [{ type: 'text', text: 'third' }] },
    ]);
    const c = client();
    expect(await textOf(c.messages.create(ask('a')))).toBe('first');
    expect(await textOf(c.messages.create(ask('b')))).toBe('second');
    expect(await textOf(c.messages.create(ask('c')))).toBe('third');
    expect(await textOf(c.messages.create(ask('d')))).toBe('OK');
    expect(server.mainRequests().map((r) => [r.mainIndex, r.turnIndex])).toEqual([
      [1, 1],
      [2, 0],
      [3, 2],
      [4, undefined],
    ]);
  });

  it('matches a pattern in the last user message, tool_result contents included', async () => {
    server.setScript([
      { match: { userPattern: /tests? passed/i }, blocks: [{ type: 'text', text: 'great, all green' }] },
      { match: { userPattern: 'deploy' }, blocks: [{ type: 'text', text: 'deploying' }] },
    ]);
    const c = client();
    expect(await textOf(c.messages.create(ask('please deploy the app')))).toBe('deploying');
    const withToolResult = await textOf(
      c.messages.create({
        model: MODEL,
        max_tokens: 100,
        messages: [
          { role: 'user', content: 'run the tests and deploy' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'Bash', input: { command: 'npm test' } }] },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '42 Tests Passed' }] }],
          },
        ],
      }),
    );
    expect(withToolResult).toBe('great, all green');
    // only the LAST user message counts: "deploy" is in the first one, and that turn is used up anyway
    expect(await textOf(c.messages.create(ask('deploy again')))).toBe('OK');
  });

  it('answers unmatched requests with a configurable default reply', async () => {
    const custom = await startModelServer({ defaultReply: { blocks: [{ type: 'text', text: 'custom default' }] } });
    try {
      const c = new Anthropic({ baseURL: custom.url, apiKey: 'k', maxRetries: 0 });
      expect(await textOf(c.messages.create(ask('anything')))).toBe('custom default');
    } finally {
      await custom.close();
    }
  });

  it('does not spend scripted turns on side requests (probes, Claude Code calls without tools)', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'the scripted turn' }] }]);
    const c = client();
    // a quota probe
    await c.messages.create(ask('quota', { max_tokens: 1 }));
    // Claude Code's title generation: no tools, structured output
    const title = await fetch(`${server.url}/v1/messages?beta=true`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'k', 'x-app': 'cli', 'user-agent': 'claude-cli/2.1.197 (external, sdk-cli)' },
      body: JSON.stringify({
        ...ask('<session>hello</session>'),
        tools: [],
        output_config: { format: { type: 'json_schema', schema: { type: 'object', properties: { title: { type: 'string' } }, required: ['title'] } } },
      }),
    });
    const titleMessage = (await title.json()) as Anthropic.Message;
    const titleText = titleMessage.content[0]?.type === 'text' ? titleMessage.content[0].text : '';
    expect(JSON.parse(titleText)).toEqual({ title: expect.any(String) });

    expect(await textOf(c.messages.create(ask('the real question')))).toBe('the scripted turn');
    expect(server.requests.filter((r) => r.route === 'messages').map((r) => r.kind)).toEqual(['side', 'side', 'main']);
  });

  it('rejects an invalid script with the offending path', () => {
    expect(() => server.setScript([{ blocks: [{ type: 'image', text: 'x' }] }] as unknown as Script)).toThrow(/blocks/);
    expect(() => server.setScript([{ fault: { kind: 'status', status: 200 } }] as unknown as Script)).toThrow();
  });
});

describe('recording', () => {
  it('records method, path, headers, raw keys apart from headers, and the parsed body', async () => {
    const before = Date.now();
    // @anthropic-ai/sdk 1.x sends its apiKey as `Authorization: Bearer <key>`
    await client({ apiKey: 'sk-which-key' }).messages.create(
      ask('record me', { system: 'You are a fixture.', tools: [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }] }),
    );
    // Claude Code sends `x-api-key`
    await fetch(`${server.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'sk-raw-header' },
      body: JSON.stringify(ask('with x-api-key')),
    });
    const [first, second] = server.requests;
    expect(first).toMatchObject({
      method: 'POST',
      path: '/v1/messages',
      route: 'messages',
      kind: 'main',
      apiKey: undefined,
      authorization: 'Bearer sk-which-key',
      credential: 'sk-which-key',
    });
    expect(first?.headers.authorization).toBeUndefined();
    expect(first?.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    expect(first?.receivedAt).toBeGreaterThanOrEqual(before);
    expect(first?.body).toMatchObject({ system: 'You are a fixture.', tools: [{ name: 'Bash' }], messages: [{ role: 'user', content: 'record me' }] });
    expect(first?.userText).toBe('record me');
    expect(second).toMatchObject({ apiKey: 'sk-raw-header', authorization: undefined, credential: 'sk-raw-header', userText: 'with x-api-key' });
    expect(second?.headers['x-api-key']).toBeUndefined();
  });

  it('answers a body that is not JSON with a 400 invalid_request_error', async () => {
    const response = await fetch(`${server.url}/v1/messages`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{oops' });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(server.requests[0]).toMatchObject({ route: 'messages', body: undefined, kind: undefined });
  });

  it('answers unknown routes with a 404 in Anthropic’s error shape, and records them', async () => {
    const response = await fetch(`${server.url}/v1/models`, { headers: { 'x-api-key': 'k' } });
    expect(response.status).toBe(404);
    expect(await response.json()).toEqual({ type: 'error', error: { type: 'not_found_error', message: expect.stringContaining('/v1/models') } });
    expect((await fetch(server.url, { method: 'HEAD' })).status).toBe(200);
    expect(server.requests.map((r) => [r.method, r.path, r.route])).toEqual([
      ['GET', '/v1/models', 'unknown'],
      ['HEAD', '/', 'root'],
    ]);
  });

  it('reset() forgets requests and restarts the script', async () => {
    server.setScript([{ blocks: [{ type: 'text', text: 'once' }] }]);
    expect(await textOf(client().messages.create(ask('a')))).toBe('once');
    expect(await textOf(client().messages.create(ask('b')))).toBe('OK');
    server.reset();
    expect(server.requests).toHaveLength(0);
    expect(await textOf(client().messages.create(ask('c')))).toBe('once');
    expect(server.requests[0]?.mainIndex).toBe(1);
  });
});

describe('cli', () => {
  it('prints its URL and serves the demo reply', async () => {
    const child = spawn(join(process.cwd(), 'node_modules/.bin/tsx'), ['test/fixtures/model-server/cli.ts', '--port', '0', '--quiet'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
          out += chunk;
          const match = /model server ready at (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
          if (match?.[1]) resolve(match[1]);
        });
        child.on('exit', (code) => reject(new Error(`cli exited with ${code}`)));
      });
      const c = new Anthropic({ baseURL: url, apiKey: 'k', maxRetries: 0 });
      expect(await textOf(c.messages.create(ask('hello')))).toMatch(/offline model server/);
    } finally {
      child.kill('SIGTERM');
    }
  });
});

describe('the real claude CLI', () => {
  const CLI_TIMEOUT_MS = 60_000;
  const streamJson = ['--output-format', 'stream-json', '--verbose'];
  const sandboxes: ClaudeSandbox[] = [];
  const makeClaudeSandbox = async (): Promise<ClaudeSandbox> => {
    const box = await makeSandbox();
    sandboxes.push(box);
    return box;
  };

  afterAll(async () => {
    await Promise.all(sandboxes.map((box) => rm(box.root, { recursive: true, force: true })));
  });

  it.runIf(existsSync(CLAUDE_BIN))(
    'answers a plain prompt in stream-json',
    async () => {
      server.setScript([{ blocks: [{ type: 'text', text: 'Hello from the script.' }] }]);
      const box = await makeClaudeSandbox();
      const run = await runClaude({ args: ['-p', 'say hello', ...streamJson], cwd: box.cwd, env: claudeEnv({ baseUrl: server.url, home: box.home }) });
      expect(run.code, run.stderr).toBe(0);
      const init = run.messages.find((m) => m.type === 'system' && m.subtype === 'init');
      expect(init).toMatchObject({ cwd: box.cwd, session_id: expect.any(String) });
      const result = run.messages.find((m) => m.type === 'result');
      expect(result).toMatchObject({ subtype: 'success', is_error: false, result: 'Hello from the script.', session_id: init?.session_id });

      const main = server.mainRequests();
      expect(main).toHaveLength(1);
      expect(main[0]).toMatchObject({ apiKey: 'test-key', query: '?beta=true', turnIndex: 0 });
      expect(JSON.stringify((main[0]?.body as { messages: unknown }).messages)).toContain('say hello');
    },
    CLI_TIMEOUT_MS,
  );

  it.runIf(existsSync(CLAUDE_BIN))(
    'runs a scripted Write that creates a real file, then resumes the session with its history',
    async () => {
      const box = await makeClaudeSandbox();
      const target = join(box.cwd, 'notes', 'hello.txt');
      server.setScript([
        {
          blocks: [
            { type: 'thinking', thinking: 'I should create the file.' },
            { type: 'tool_use', name: 'Write', input: { file_path: target, content: 'written by the fixture\n' } },
          ],
        },
        { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Created notes/hello.txt.' }] },
        { match: { userPattern: 'what did you do' }, blocks: [{ type: 'text', text: 'I wrote a file earlier.' }] },
      ]);
      const env = claudeEnv({ baseUrl: server.url, home: box.home });
      const first = await runClaude({ args: ['-p', 'create the notes file', ...streamJson, '--permission-mode', 'acceptEdits'], cwd: box.cwd, env });
      expect(first.code, first.stderr).toBe(0);
      expect(await readFile(target, 'utf8')).toBe('written by the fixture\n');
      const toolResult = first.messages.find((m) => m.type === 'user');
      expect(JSON.stringify(toolResult)).toContain('tool_result');
      const result = first.messages.find((m) => m.type === 'result');
      expect(result).toMatchObject({ is_error: false, result: 'Created notes/hello.txt.', num_turns: 2 });
      const sessionId = String(result?.session_id);

      const second = await runClaude({ args: ['-p', 'what did you do?', '--resume', sessionId, ...streamJson], cwd: box.cwd, env });
      expect(second.code, second.stderr).toBe(0);
      expect(second.messages.find((m) => m.type === 'result')).toMatchObject({ result: 'I wrote a file earlier.', session_id: sessionId });
      const resumed = server.mainRequests().at(-1)?.body as { messages: Array<{ role: string; content: unknown }> };
      const history = JSON.stringify(resumed.messages);
      expect(history).toContain('create the notes file');
      expect(history).toContain('"name":"Write"');
      expect(history).toContain('File created successfully');
      expect(history).toContain('Created notes/hello.txt.');
      expect(server.pendingTurns()).toBe(0);
    },
    CLI_TIMEOUT_MS,
  );

  it.runIf(existsSync(CLAUDE_BIN))(
    'keeps title generation from eating a turn when non-essential traffic is on',
    async () => {
      server.setScript([{ blocks: [{ type: 'text', text: 'scripted main answer' }] }]);
      const box = await makeClaudeSandbox();
      const env = claudeEnv({ baseUrl: server.url, home: box.home, extra: { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined } });
      const run = await runClaude({ args: ['-p', 'name this session', ...streamJson], cwd: box.cwd, env });
      expect(run.code, run.stderr).toBe(0);
      expect(run.messages.find((m) => m.type === 'result')).toMatchObject({ result: 'scripted main answer' });
      const side = server.requests.filter((r) => r.kind === 'side');
      expect(side.length).toBeGreaterThanOrEqual(1);
      expect(side.some((r) => (r.userText ?? '').includes('name this session'))).toBe(true);
    },
    CLI_TIMEOUT_MS,
  );
});
