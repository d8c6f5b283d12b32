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
