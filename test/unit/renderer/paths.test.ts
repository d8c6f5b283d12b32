import { describe, expect, it } from 'vitest';
import { trimSlash } from '../../../src-renderer/src/lib/paths';

describe('trimSlash', () => {
  it('drops trailing slashes and backslashes as the regular expression it replaced did', () => {
    for (const p of ['', '/', '//', '/repo', '/repo/', '/repo//', 'C:\\repo\\', 'C:\\repo\\/', '/a/b\\', 'a', '/a/./b/']) {
      expect(trimSlash(p)).toBe(p.replace(/[\\/]+$/, ''));
    }
    const p = '/tmp/repo';
    // Nothing to trim: the same string back.
    expect(trimSlash(p)).toBe(p);
  });
});
