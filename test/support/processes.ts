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

type Maybe<T> = T | undefined | false | null;

/** Polls `fn` (which may answer later) until it returns something truthy, and returns that; throws after `timeoutMs`. */
export async function waitFor<T>(fn: () => Maybe<T> | Promise<Maybe<T>>, what: string, timeoutMs = 20_000, everyMs = 20): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
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

/** Pids of the processes in process group `pgid` (field 5 of /proc/PID/stat), zombies left out. */
export function groupMembers(pgid: number): number[] {
  const pids: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(pgrp) === pgid && state !== 'Z' && state !== 'X') pids.push(Number(name));
    } catch {
      // Gone between the listing and the read.
    }
  }
  return pids;
}

/**
 * SIGKILLs a process group and waits until every process in it has ended (a zombie counts as
 * ended). The leader's exit is not enough: `tsx` runs the CLI in a child node process of its own,
 * and a killed process with a large heap can take a while to finish exiting on a loaded machine,
 * still looking alive to whoever checks for its owner.
 */
export async function killGroup(pgid: number, timeoutMs = 30_000): Promise<void> {
  const members = groupMembers(pgid);
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // Already gone.
  }
  await waitFor(() => members.every((pid) => !isAlive(pid)), `process group ${pgid} to end`, timeoutMs);
}
