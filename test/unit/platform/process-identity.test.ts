import { describe, expect, it } from 'vitest';
import { ownerAlive, processStartTicks, selfIdentity } from '../../../src-main/platform/process-identity';

describe('process identity', () => {
  it('names this process by pid and start time, and recognizes it', () => {
    expect(selfIdentity()).toMatch(new RegExp(`^${process.pid}@`));
    expect(ownerAlive(process.pid, selfIdentity())).toBe(true);
  });
  it('a live pid with another start time is a different process', () => {
    expect(processStartTicks(process.pid)).not.toBeNull();
    expect(ownerAlive(process.pid, `${process.pid}@1`)).toBe(false);
  });
  it('a dead pid is not alive; an identity of unknown form falls back to the pid', () => {
    expect(ownerAlive(4194305, '4194305@1')).toBe(false);
    expect(ownerAlive(process.pid, 'legacy-random-id')).toBe(true);
  });
});
