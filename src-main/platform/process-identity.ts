import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * Who owns a running turn, in a form that survives PID reuse: `pid@start`, where start is the
 * process's start time in clock ticks since boot (Linux /proc). After a reboot or a crash a
 * new process may get the same PID; its start time differs, so it is not taken for the owner.
 * Where /proc is missing (macOS, Windows) a random suffix is used and liveness falls back to
 * the PID alone.
 */
export function processStartTicks(pid: number): string | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesized command name: state is field 3, starttime field 22.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

let self: string | undefined;
export function selfIdentity(): string {
  self ??= `${process.pid}@${processStartTicks(process.pid) ?? `r${randomBytes(6).toString('hex')}`}`;
  return self;
}

/** Whether a process with this pid exists (EPERM: it exists but is not ours to signal). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * A process that has ended but was not reaped yet (state Z or X in /proc): signal 0 still reaches
 * it, yet it runs nothing. A killed process whose parent died too stays a zombie for as long as
 * init does not reap it (some container inits never do), so it must not count as a live owner.
 */
export function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state === 'Z' || state === 'X';
  } catch {
    return false; // No /proc (macOS, Windows), or it ended between the two checks: the signal answered.
  }
}

/** Whether the process that recorded `identity` (from selfIdentity) is still running. */
export function ownerAlive(pid: number, identity: string | null): boolean {
  // 0 and negative pids name process groups (signal 0 to them always succeeds): never an owner.
  if (!Number.isInteger(pid) || pid <= 0 || !pidAlive(pid) || isZombie(pid)) return false;
  const m = identity ? /^(\d+)@(\d+)$/.exec(identity) : null;
  if (!m || Number(m[1]) !== pid) return true;
  const now = processStartTicks(pid);
  return now === null || now === m[2];
}
