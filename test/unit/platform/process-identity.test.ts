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
  it('pid 0, a negative pid or a fraction (a record from an agent-writable file) is never a live owner', () => {
    // Signal 0 to pid 0 or -1 reaches this process's group or every process: it always succeeds.
    for (const pid of [0, -1, -process.pid, 1.5]) expect(ownerAlive(pid, 'forged')).toBe(false);
  });
});
