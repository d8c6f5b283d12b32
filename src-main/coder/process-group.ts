/**
 * Ending a `claude` run completely. The CLI is spawned detached (its own process group), so a
 * stop signal reaches it and everything it started (shells, test runners, MCP servers) at
 * once; anything that moved to a group of its own is found by walking the process tree.
 * Every live run is in a registry that is emptied on dispose and, as a last resort, on exit,
 * so no `claude` outlives Flightdeck.
 */
import { execFile, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { childEnv, cleanExec } from '../platform/child-process';
import { signalGroup } from '../platform/own-group';

/** Time between SIGTERM and SIGKILL: enough for the CLI to flush its session file. */
export const KILL_GRACE_MS = 3_000;

function signalPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // ESRCH: already gone.
  }
}

/**
 * Members of a process group that still run, from /proc (Linux). Zombies are left out: they
 * are dead and only wait for a parent to reap them, which an init that does not reap (some
 * containers' PID 1) never does. null when /proc is not there (macOS).
 */
function runningMembers(pgid: number): number[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const members: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // The process ended between readdir and read.
    }
    // "pid (comm) state ppid pgrp …" — comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X') members.push(Number(name));
  }
  return members;
}

/** Whether any process of the group still runs (zombies count as gone). */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const members = runningMembers(pgid);
  return members === null ? true : members.length > 0;
}

/** Descendants of `root` (pid → its pgid), from one `ps` snapshot. */
export function listDescendants(root: number): Promise<Map<number, number>> {
  return new Promise((resolve) => {
    const ps = cleanExec('ps', ['-A', '-o', 'pid=,ppid=,pgid=']);
    execFile(ps.file, ps.args, { timeout: 5_000, maxBuffer: 8 * 1024 * 1024, env: childEnv('minimal') }, (error, stdout) => {
      const found = new Map<number, number>();
      // Without ps (a minimal container) the group signal alone has to do.
      if (error) return resolve(found);
      const children = new Map<number, Array<{ pid: number; pgid: number }>>();
      for (const line of stdout.split('\n')) {
        const [pid, ppid, pgid] = line.trim().split(/\s+/).map(Number);
        if (!pid || ppid === undefined || pgid === undefined) continue;
        const list = children.get(ppid) ?? [];
        list.push({ pid, pgid });
        children.set(ppid, list);
      }
      const queue = [root];
      while (queue.length > 0) {
        for (const c of children.get(queue.shift()!) ?? []) {
          if (found.has(c.pid)) continue;
          found.set(c.pid, c.pgid);
          queue.push(c.pid);
        }
      }
      resolve(found);
    });
  });
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

function waitExit(child: ChildProcess, ms: number): Promise<boolean> {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, ms);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

/**
 * SIGTERM to the group and to strays, SIGKILL to whatever is left after the grace period.
 * Resolves when the group is gone (or after the SIGKILL, which cannot be refused).
 */
export async function terminateTree(child: ChildProcess, graceMs = KILL_GRACE_MS): Promise<void> {
  const pid = child.pid;
  if (pid === undefined) return;
  const strays = await listDescendants(pid);
  signalGroup(pid, 'SIGTERM');
  for (const pgid of strays.values()) if (pgid !== pid) signalGroup(pgid, 'SIGTERM');
  await waitExit(child, graceMs);
  // Children may outlive the leader; give them the same grace before the hard stop.
  const deadline = Date.now() + graceMs;
  while (groupAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const late = await listDescendants(pid);
  signalGroup(pid, 'SIGKILL');
  for (const [p, pgid] of [...strays, ...late]) {
    if (pgid !== pid) signalGroup(pgid, 'SIGKILL');
    signalPid(p, 'SIGKILL');
  }
  await waitExit(child, graceMs);
}

/** Live runs, ended on dispose and on process exit. */
class LiveRuns {
  private readonly children = new Set<ChildProcess>();
  private exitHookInstalled = false;

  add(child: ChildProcess): void {
    this.children.add(child);
    if (!this.exitHookInstalled) {
      this.exitHookInstalled = true;
      // 'exit' handlers must be synchronous: SIGKILL the groups, no grace left to give.
      process.once('exit', () => this.killAllNow());
    }
  }

  delete(child: ChildProcess): void {
    this.children.delete(child);
  }

  get size(): number {
    return this.children.size;
  }

  /** Synchronous: for dispose, which cannot wait for the grace period. */
  signalAllNow(signal: NodeJS.Signals): void {
    for (const child of this.children) if (child.pid !== undefined) signalGroup(child.pid, signal);
  }

  killAllNow(): void {
    for (const child of this.children) if (child.pid !== undefined) signalGroup(child.pid, 'SIGKILL');
    this.children.clear();
  }

  async terminateAll(graceMs = KILL_GRACE_MS): Promise<void> {
    await Promise.all([...this.children].map((c) => terminateTree(c, graceMs)));
  }
}

export const liveRuns = new LiveRuns();
