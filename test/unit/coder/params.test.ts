import { describe, expect, it } from 'vitest';
import { coderToolJsonSchema, parseCoderParams } from '../../../src-main/coder/core/params';

describe('Coder parameters (seed 000)', () => {
  it('applies the seed defaults', () => {
    const r = parseCoderParams({ PROMPT: 'do it', cd: '/tmp' });
    expect(r).toEqual({
      ok: true,
      params: {
        PROMPT: 'do it',
        cd: '/tmp',
        sandbox: 'workspace-write',
        return_all_messages: false,
        return_metrics: false,
        timeout: 300,
        max_duration: 1800,
        max_retries: 0,
        log_metrics: false,
      },
    });
  });

  it('accepts every parameter', () => {
    const r = parseCoderParams({
      PROMPT: 'x',
      cd: '/w',
      sandbox: 'read-only',
      SESSION_ID: 'c6d6dc84-8162-430f-b996-3aa93a227942',
      return_all_messages: true,
      return_metrics: true,
      timeout: 2,
      max_duration: 0,
      max_retries: 3,
      log_metrics: true,
    });
    expect(r.ok).toBe(true);
  });

  it.each([
    [{ cd: '/tmp' }, /PROMPT/],
    [{ PROMPT: 'x' }, /cd/],
    [{ PROMPT: '', cd: '/tmp' }, /PROMPT is empty/],
    [{ PROMPT: 'x', cd: '/tmp', sandbox: 'yolo' }, /sandbox/],
    [{ PROMPT: 'x', cd: '/tmp', timeout: '300' }, /timeout/],
    [{ PROMPT: 'x', cd: '/tmp', timeout: 0 }, /at least 1 second/],
    [{ PROMPT: 'x', cd: '/tmp', max_duration: -1 }, /max_duration/],
    [{ PROMPT: 'x', cd: '/tmp', max_retries: 1.5 }, /max_retries/],
    [{ PROMPT: 'x', cd: '/tmp', return_metrics: 'yes' }, /return_metrics/],
    [{ PROMPT: 'x', cd: '/tmp', model: 'opus' }, /unknown parameter: model/],
    [{ PROMPT: 'x', cd: 'a\0b' }, /NUL/],
  ])('rejects %j with a message naming the problem', (input, message) => {
    const r = parseCoderParams(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toMatch(message);
  });

  it.each([null, 'text', 42, [], undefined])('rejects a non-object (%j) without throwing', (input) => {
    const r = parseCoderParams(input);
    expect(r.ok).toBe(false);
  });

  it('advertises the tool schema without cd (the session root is cd)', () => {
    const schema = coderToolJsonSchema() as { properties: Record<string, unknown>; required: string[]; additionalProperties: boolean };
    expect(Object.keys(schema.properties)).toContain('PROMPT');
    expect(Object.keys(schema.properties)).not.toContain('cd');
    expect(schema.required).toEqual(['PROMPT']);
    expect(schema.additionalProperties).toBe(false);
  });
});
