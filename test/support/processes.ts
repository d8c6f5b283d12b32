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

/** Polls `fn` until it returns something truthy, and returns that; throws after `timeoutMs`. */
export async function waitFor<T>(fn: () => T | undefined | false | null, what: string, timeoutMs = 20_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** A process that exists and is not a zombie or dead (a killed orphan stays a zombie until init reaps it). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A pid that exists at all, zombies included (signal 0 reaches it). */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
