import { describe, expect, it } from 'vitest';
import { memorySizeText, parseMemorySize } from '../../../src-preload/contract/containers';
import { formatBytes, formatBytesExact, formatUsd, wholeUnit } from '../../../src-preload/contract/units';

describe('formatBytes', () => {
  it('writes sizes in binary units: a decimal below 100 of a unit, whole numbers from there', () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1 KiB');
    expect(formatBytes(3.44 * 1024)).toBe('3.4 KiB');
    expect(formatBytes(500 * 1024)).toBe('500 KiB');
    expect(formatBytes(256 * 1024 ** 2)).toBe('256 MiB');
    expect(formatBytes(1.5 * 1024 ** 3)).toBe('1.5 GiB');
    expect(formatBytes(8 * 1024 ** 3)).toBe('8 GiB');
    expect(formatBytes(7.96 * 1024 ** 3)).toBe('8 GiB');
    expect(formatBytes(12.6 * 1024 ** 4)).toBe('12.6 TiB');
    expect(formatBytes(15.5 * 1024 ** 3)).toBe('15.5 GiB');
    expect(formatBytes(123.4 * 1024 ** 2)).toBe('123 MiB');
    expect(formatBytes(1023.6)).toBe('1 KiB');
  });

  it('says 1 of the next unit rather than 1024 of this one, and ? for what is not a size', () => {
    expect(formatBytes(1024 ** 3 - 1)).toBe('1 GiB');
    expect(formatBytes(1024 * 1024 - 10)).toBe('1 MiB');
    expect(formatBytes(-1)).toBe('?');
    expect(formatBytes(Number.NaN)).toBe('?');
  });

  it('rounds down what something has, so a size it would refuse is not what it reads', () => {
    expect(formatBytes(15.96 * 1024 ** 3, 'down')).toBe('15.9 GiB');
    expect(formatBytes(15.96 * 1024 ** 3)).toBe('16 GiB');
    expect(formatBytes(1024 ** 3 - 1, 'down')).toBe('1023 MiB');
  });

  it('writes a limit exactly, in the largest unit that holds it whole', () => {
    expect(formatBytesExact(8 * 1024 ** 3)).toBe('8 GiB');
    expect(formatBytesExact(1280 * 1024 ** 2)).toBe('1280 MiB');
    expect(formatBytesExact(1300 * 1024 ** 2)).toBe('1300 MiB');
    expect(formatBytesExact(6 * 1024 ** 2 + 512)).toBe('6291968 B');
    expect(formatBytesExact(1000)).toBe('1000 B');
  });

  it('finds the largest whole unit once, for the exact text and for the memory sizes files hold (read back to the same number)', () => {
    expect(wholeUnit(1536 * 1024 ** 2)).toEqual({ value: 1536, unit: 2 });
    expect(wholeUnit(1000)).toBeNull();
    expect(wholeUnit(1024 ** 5, 4)).toEqual({ value: 1024, unit: 4 });
    for (const [bytes, text] of [[8 * 1024 ** 3, '8g'], [1280 * 1024 ** 2, '1280m'], [64 * 1024, '64k'], [2 * 1024 ** 4, '2t'], [1024 ** 5, '1024t'], [6291968, '6291968']] as const) {
      expect(memorySizeText(bytes)).toBe(text);
      expect(parseMemorySize(text)).toBe(bytes);
    }
  });
});

describe('formatUsd', () => {
  it('keeps a small cost readable instead of rounding it to nothing (the CLI printed $0.00 for $0.0048)', () => {
    expect(formatUsd(0.0048)).toBe('$0.0048');
    expect(formatUsd(0.003)).toBe('$0.003');
    expect(formatUsd(0.42)).toBe('$0.42');
    expect(formatUsd(2.27)).toBe('$2.27');
    expect(formatUsd(1234.5)).toBe('$1,234.50');
    expect(formatUsd(0)).toBe('$0.00');
    expect(formatUsd(0.00001)).toBe('<$0.0001');
    expect(formatUsd(Number.NaN)).toBe('$0.00');
  });
});
