import { readdirSync, readFileSync } from 'node:fs';

/**
 * Host pids of the processes whose command line is exactly `commandLine` (arguments joined by
 * spaces). A command in a sandbox sees its own pid namespace, so the `$$` it prints is not a
 * pid the test can signal or watch; a unique command line finds it from outside.
 */
export function pidsWith(commandLine: string): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter((a) => a !== '').join(' ') === commandLine) pids.push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}
