import { describe, expect, it } from 'vitest';
import { roundCommitMessage } from '../../../src-main/features/run/commit-messages';

describe('the commits before review rounds and verify attempts', () => {
  it('calls a commit a fix only when a fix round came before it and it changes more than the record', () => {
    // Only the feature's own record (a verify attempt's commit holds it): bookkeeping, whatever the round.
    expect(roundCommitMessage('demo', 'verify', 1, ['.flightdeck/demo/state.yml'])).toBe('chore(demo): update the feature record before verify');
    expect(roundCommitMessage('demo', 'verify', 3, ['.flightdeck/demo/state.yml', '.flightdeck/demo/specs/design.md'])).toBe('chore(demo): update the feature record before verify');
    // Another feature's folder, or code, is not this feature's record.
    expect(roundCommitMessage('demo', 'verify', 1, ['.flightdeck/demo-2/state.yml'])).toBe('feat(demo): uncommitted changes before verify');
    expect(roundCommitMessage('demo', 'verify', 1, ['sum.mjs', '.flightdeck/demo/state.yml'])).toBe('feat(demo): uncommitted changes before verify');
    // A review round's commit leaves the record out: what it holds is not asked.
    expect(roundCommitMessage('demo', 'review', 1)).toBe('feat(demo): uncommitted changes before review');
    // After a fix round: what it changed.
    expect(roundCommitMessage('demo', 'review', 2)).toBe('fix(demo): review fixes after review round 1');
    expect(roundCommitMessage('demo', 'verify', 3, ['sum.mjs', '.flightdeck/demo/state.yml'])).toBe('fix(demo): verify fixes after verify attempt 2');
  });
});
