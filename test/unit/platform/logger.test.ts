import { describe, expect, it } from 'vitest';
import { createLogger, redact } from '../../../src-main/platform/logger';

describe('logger redaction', () => {
  it('masks secret fields and key-shaped values', () => {
    const lines: string[] = [];
    const log = createLogger({ sink: (l) => lines.push(l) });
    log.info('calling sk-ant-api03-abcdefghijklmnop', { apiKey: 'plain', headers: { authorization: 'Bearer x' }, nested: { note: 'key sk-live-1234567890abc' } });
    const out = lines.join('\n');
    expect(out).not.toContain('abcdefghijklmnop');
    expect(out).not.toContain('plain');
    expect(out).not.toContain('Bearer x');
    expect(out).not.toContain('1234567890abc');
    expect(out).toContain('[redacted]');
  });
  it('masks a bearer token and an Authorization value in text, whatever their shape', () => {
    const lines: string[] = [];
    const log = createLogger({ sink: (l) => lines.push(l) });
    log.warn('request failed: Authorization: Bearer abc', { detail: 'sent authorization=Basic dXNlcjpwYXNz and "Authorization": "tok-123"' });
    const out = lines.join('\n');
    expect(out).toContain('Authorization: Bearer [redacted]');
    for (const s of ['abc', 'dXNlcjpwYXNz', 'tok-123']) expect(out).not.toContain(s);
    expect(redact('a bearer   x.y.z token')).toBe('a bearer   [redacted] token');
    // Words that only look like it are kept.
    expect(redact('the token expired; basic checks passed')).toBe('the token expired; basic checks passed');
  });
  it('keeps ordinary values', () => {
    expect(redact({ path: '/home/a', count: 3 })).toEqual({ path: '/home/a', count: 3 });
  });
});
