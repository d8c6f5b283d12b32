import { describe, expect, it } from 'vitest';
import { recordCommitMessage, roundCommitMessage } from '../../../src-main/features/run/commit-messages';

describe('the commits before review rounds and verify attempts', () => {
  it('calls a commit a fix only when a fix round came before it', () => {
    // The first round: whatever was left uncommitted (a resumed run, the user's own edits).
    expect(roundCommitMessage('demo', 'review', 1)).toBe('feat(demo): uncommitted changes before review');
    expect(roundCommitMessage('demo', 'verify', 1)).toBe('feat(demo): uncommitted changes before verify');
    // After a fix round: what it changed.
    expect(roundCommitMessage('demo', 'review', 2)).toBe('fix(demo): review fixes after review round 1');
    expect(roundCommitMessage('demo', 'verify', 3)).toBe('fix(demo): verify fixes after verify attempt 2');
    // The record alone: bookkeeping.
    expect(recordCommitMessage('demo', 'verify')).toBe('chore(demo): update the feature record before verify');
  });
});
