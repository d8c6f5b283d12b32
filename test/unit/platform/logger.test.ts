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
  it('keeps ordinary values', () => {
    expect(redact({ path: '/home/a', count: 3 })).toEqual({ path: '/home/a', count: 3 });
  });
});
