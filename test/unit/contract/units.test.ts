import { describe, expect, it } from 'vitest';
import { formatBytes } from '../../../src-preload/contract/units';

describe('formatBytes', () => {
  it('writes sizes in binary units: a decimal below 10 of a unit, whole numbers from there', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(3.44 * 1024)).toBe('3.4 KiB');
    expect(formatBytes(500 * 1024)).toBe('500 KiB');
    expect(formatBytes(256 * 1024 ** 2)).toBe('256 MiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GiB');
    expect(formatBytes(8 * 1024 ** 3)).toBe('8 GiB');
    expect(formatBytes(7.96 * 1024 ** 3)).toBe('8 GiB');
    expect(formatBytes(12.6 * 1024 ** 4)).toBe('13 TiB');
  });

  it('says 1 of the next unit rather than 1024 of this one, and ? for what is not a size', () => {
    expect(formatBytes(1024 ** 3 - 1)).toBe('1 GiB');
    expect(formatBytes(1024 * 1024 - 10)).toBe('1 MiB');
    expect(formatBytes(-1)).toBe('?');
    expect(formatBytes(Number.NaN)).toBe('?');
  });
});
