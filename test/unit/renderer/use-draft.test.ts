import { describe, expect, it } from 'vitest';
import { nextDraft } from '../../../src-renderer/src/lib/use-draft';

const domains = (t: string) =>
  t
    .split(/[\s,]+/)
    .filter((d) => d !== '')
    .map((d) => d.toLowerCase())
    .join(', ');

describe('a field draft when its saved value changes', () => {
  it('follows the saved value while untouched, the first load included', () => {
    expect(nextDraft('', undefined, '/usr/bin/claude')).toBe('/usr/bin/claude');
    expect(nextDraft('a.com', 'a.com', 'a.com, b.com')).toBe('a.com, b.com');
  });

  it('keeps what the user typed before the load ended or while another window changed it', () => {
    expect(nextDraft('/opt/typed', undefined, '')).toBe('/opt/typed');
    expect(nextDraft('a.com, typed.org', 'a.com', 'a.com, b.com')).toBe('a.com, typed.org');
  });

  it('takes the saved value when the draft says the same once normalised (just saved, written the host\'s way), and follows again after', () => {
    const saved = nextDraft('A.com,  b.com', 'x.com', 'a.com, b.com', domains);
    expect(saved).toBe('a.com, b.com');
    // Untouched since: a later change from elsewhere shows.
    expect(nextDraft(saved, 'a.com, b.com', 'c.com', domains)).toBe('c.com');
    // Without the normaliser the saved-as-typed draft would stay, and hide the later change.
    expect(nextDraft('A.com,  b.com', 'x.com', 'a.com, b.com')).toBe('A.com,  b.com');
  });
});
