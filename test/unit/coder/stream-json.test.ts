import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LineSplitter, StreamState, decodeLine } from '../../../src-main/coder/core/stream-json';

const CAPTURES = join(__dirname, '../../fixtures/claude-code/captures');
const capture = (name: string) => readFileSync(join(CAPTURES, `${name}.jsonl`), 'utf8');

describe('LineSplitter', () => {
  it('joins lines across chunk boundaries and strips CR', () => {
    const s = new LineSplitter();
    expect(s.push('{"a":')).toEqual([]);
    expect(s.push('1}\r\n{"b"')).toEqual(['{"a":1}']);
    expect(s.push(':2}\n')).toEqual(['{"b":2}']);
    expect(s.push('tail')).toEqual([]);
    expect(s.flush()).toEqual(['tail']);
    expect(s.flush()).toEqual([]);
  });
});

describe('decodeLine', () => {
  it.each([
    ['', 'noise'],
    ['warning: something', 'noise'],
    ['{"type":"system"}', 'message'],
    ['{"type":"system"', 'decode_error'],
    ['{"no_type":1}', 'decode_error'],
    ['[1,2]', 'decode_error'],
    ['{"type":"assistant","message":{"content":[{"type":"text","text":"Hel', 'decode_error'],
  ])('%j → %s', (line, kind) => {
    expect(decodeLine(line).kind).toBe(kind);
  });
});

describe('StreamState on real captured output (claude 2.1.197)', () => {
  function feed(text: string): StreamState {
    const state = new StreamState();
    const split = new LineSplitter();
    // Odd chunk sizes: boundaries fall inside lines and inside multi-byte characters' JSON escapes.
    for (let i = 0; i < text.length; i += 97) for (const l of split.push(text.slice(i, i + 97))) state.accept(l);
    for (const l of split.flush()) state.accept(l);
    return state;
  }

  it('reads the session id and the result of a successful run', () => {
    const state = feed(capture('write-partial'));
    expect(state.decodeErrors).toBe(0);
    expect(state.sessionId).toBe('7624872c-2d57-4389-b0b6-abc25e5c5977');
    expect(state.result).toMatchObject({ subtype: 'success', isError: false, result: 'Created hello.txt.', numTurns: 3 });
    expect(state.result!.totalCostUsd).toBeGreaterThan(0);
    // Partial deltas are not kept; complete messages are.
    expect(state.messages.some((m) => m.type === 'stream_event')).toBe(false);
    expect(state.messages.filter((m) => m.type === 'assistant')).toHaveLength(4);
  });

  it('reads an upstream error result', () => {
    const state = feed(capture('api-error-500'));
    expect(state.result).toMatchObject({ isError: true, apiErrorStatus: 500 });
    expect(state.result!.result).toMatch(/API Error: 500/);
  });

  it('counts corrupted lines', () => {
    const lines = capture('write-plain').trim().split('\n');
    lines[2] = lines[2]!.slice(0, 40);
    const state = feed(lines.join('\n'));
    expect(state.decodeErrors).toBe(1);
    expect(state.result).not.toBeNull();
  });

  it('keeps no session id when the stream carries none', () => {
    const stripped = capture('write-plain').replace(/"session_id":"[^"]*",?/g, '');
    const state = feed(stripped);
    expect(state.sessionId).toBeNull();
    expect(state.result?.sessionId).toBeNull();
  });
});
