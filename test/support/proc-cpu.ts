import { readFileSync } from 'node:fs';

/** The kernel's clock tick (USER_HZ): 100 on every Linux this runs on (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

/** User + system CPU time of another process so far, in milliseconds (Linux /proc; 0 if unreadable). */
export function cpuMsOf(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) may contain spaces: count fields after its closing parenthesis.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    return ((utime + stime) * 1000) / TICKS_PER_SECOND;
  } catch {
    // The process is gone or /proc is not there: no figure rather than a wrong one.
    return 0;
  }
}

/**
 * How long a process's main thread has waited for a CPU while runnable so far, in milliseconds
 * (Linux /proc/<pid>/schedstat, second field; null if unreadable): on a busy machine, the part of
 * a hop's latency that no code of ours can shorten.
 */
export function runQueueWaitMsOf(pid: number): number | null {
  try {
    const wait = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(wait) ? wait / 1e6 : null;
  } catch {
    // The process is gone or schedstat is not there (no CONFIG_SCHED_INFO): no figure.
    return null;
  }
}
