/**
 * Sessions and process groups the app starts (ptys, agents' commands), recorded on disk so a
 * later start can end them when the process that started them died without doing so (SIGKILL,
 * OOM, power cut of the app but not the machine).
 *
 * A pty's program is a session leader (forkpty calls setsid), so everything it starts — an
 * interactive shell's jobs each get their own process group — stays in its session unless it
 * calls setsid itself. On Linux a session is ended by killing every process whose session id is
 * the leader's pid; elsewhere by killing the leader's process group.
 *
 * PID reuse: a record holds the leader's start time and the boot it ran in. A record from
 * another boot is dropped without killing anything. Within one boot, Linux does not hand out a
 * pid while it still names a live session or group, so processes in session N are that
 * session's; only those started no earlier than the leader are killed, as a second guard.
 */
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ownerAlive, pidAlive, processStartTicks, selfIdentity } from './process-identity';

export interface GroupRecord {
  /** The leader's pid: its session id and process group id. */
  pid: number;
  /** The leader's start time in clock ticks since boot (null where /proc is missing). */
  start: string | null;
  /** /proc/sys/kernel/random/boot_id when recorded (null where there is none). */
  boot: string | null;
  /** `pid@start` of the process that started it and is responsible for ending it. */
  owner: string;
  /** What it is, for logs: 'shell', 'command'. */
  kind: string;
}

let boot: string | null | undefined;
export function bootId(): string | null {
  if (boot !== undefined) return boot;
  try {
    boot = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
  } catch {
    boot = null;
  }
  return boot;
}

interface ProcStat {
  pid: number;
  state: string;
  pgrp: number;
  session: number;
  start: number;
}

function readStat(pid: string): ProcStat | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null; // Ended between readdir and read.
  }
  // "pid (comm) state ppid pgrp session tty_nr tpgid flags … starttime(22)"; comm may hold spaces.
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { pid: Number(pid), state: f[0]!, pgrp: Number(f[2]), session: Number(f[3]), start: Number(f[19]) };
}

/**
 * Running (not zombie) processes in the leader's session or process group that started no
 * earlier than the leader, from /proc. null where there is no /proc (macOS).
 */
export function sessionMembers(leader: number, leaderStart: string | null): number[] | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const since = leaderStart === null ? 0 : Number(leaderStart);
  const members: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    const s = readStat(name);
    if (!s || s.state === 'Z' || s.state === 'X') continue;
    if ((s.session === leader || s.pgrp === leader) && s.start >= since) members.push(s.pid);
  }
  return members;
}

/** Whether the signal was delivered. */
function kill(target: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(target, signal);
    return true;
  } catch {
    // ESRCH: already gone, which is the goal.
    return false;
  }
}

/** SIGKILLs the leader's process group and every member of its session. */
export function killSession(leader: number, leaderStart: string | null): void {
  if (leader <= 1) return;
  const leaderNow = processStartTicks(leader);
  // The leader's pid now names another process (start time differs): do not touch its group.
  if (leaderStart === null || leaderNow === null || leaderNow === leaderStart) kill(-leader, 'SIGKILL');
  for (const pid of sessionMembers(leader, leaderStart) ?? []) kill(pid, 'SIGKILL');
}

/**
 * Ends a session the way closing a terminal window does: SIGHUP to its leader (the shell), then,
 * once nothing of the session ran for `graceMs` after it, SIGKILL for whatever is left
 * (killSession). Resolves as soon as nothing of it runs, so a shell that hangs up at once costs
 * no wait. The hang-up lets shells save their history and what their startup files run clean up:
 * pyenv's `rehash` (from `eval "$(pyenv init -)"` in ~/.bashrc) takes a lock file with noclobber
 * and removes it in an EXIT trap, so a SIGKILL mid-rehash leaves it behind and every later shell
 * waits 60 s for it.
 *
 * The leader only, not its group: as the leader exits the kernel hangs up its terminal's
 * foreground group, and a shell passes the hang-up on to its jobs. A SIGHUP of our own to the
 * group as well reaches them twice, the second while their EXIT traps run, and cuts those short
 * (the lock stayed in 19 closes of 20 that way, in none of 20 with the leader alone).
 */
export async function hangUpSession(leader: number, leaderStart: string | null, graceMs: number, pollMs = 50): Promise<void> {
  if (leader <= 1) return;
  const leaderNow = processStartTicks(leader);
  // As killSession: a pid that now names another process is left alone. SIGCONT as the kernel's
  // own hang-up sends it: a stopped shell could not handle the SIGHUP.
  if (leaderStart === null || leaderNow === null || leaderNow === leaderStart) {
    kill(leader, 'SIGHUP');
    kill(leader, 'SIGCONT');
  }
  // Also when the leader is already gone: what it hung up on its way out may be running its traps.
  await sessionGone(leader, leaderStart, Date.now() + graceMs, pollMs);
  killSession(leader, leaderStart);
}

/**
 * Resolves once nothing of the session runs, or at `deadline` (Date.now() time), whichever is
 * first: a signalled session's grace period, before its SIGKILL. Listing /proc costs a few ms
 * with many processes, so it is done at most every SCAN_MS while the kernel (kill 0) says the
 * leader or its group is still there; zombies count there (an init that reaps slowly keeps
 * them), so the listing, which skips them, has the last word.
 */
export async function sessionGone(leader: number, leaderStart: string | null, deadline: number, pollMs = 50): Promise<void> {
  let scannedAt = -Infinity;
  while (Date.now() < deadline) {
    // pidAlive of -pgid: whether the group exists.
    const present = pidAlive(leader) || pidAlive(-leader);
    if (!present || Date.now() - scannedAt >= SCAN_MS) {
      if (!sessionAlive(leader, leaderStart)) return;
      scannedAt = Date.now();
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}
const SCAN_MS = 150;


/** Whether anything of the session still runs. Where /proc is missing, whether the group exists. */
export function sessionAlive(leader: number, leaderStart: string | null): boolean {
  const members = sessionMembers(leader, leaderStart);
  return members !== null ? members.length > 0 : pidAlive(-leader);
}

/** One JSON file per recorded session under `dir`, written atomically (temp file, rename). */
export class GroupRecords {
  constructor(readonly dir: string) {}

  add(pid: number, kind: string): GroupRecord {
    const rec: GroupRecord = { pid, start: processStartTicks(pid), boot: bootId(), owner: selfIdentity(), kind };
    mkdirSync(this.dir, { recursive: true });
    const file = join(this.dir, `${pid}.json`);
    writeFileSync(`${file}.tmp`, JSON.stringify(rec));
    renameSync(`${file}.tmp`, file);
    return rec;
  }

  remove(pid: number): void {
    rmSync(join(this.dir, `${pid}.json`), { force: true });
  }

  list(): GroupRecord[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return []; // No folder yet: nothing was ever recorded.
    }
    const out: GroupRecord[] = [];
    for (const name of names) {
      if (!/^\d+\.json$/.test(name)) continue;
      try {
        const r = JSON.parse(readFileSync(join(this.dir, name), 'utf8')) as GroupRecord;
        if (typeof r.pid === 'number' && typeof r.owner === 'string') out.push(r);
        else rmSync(join(this.dir, name), { force: true });
      } catch {
        // A torn or foreign file: nothing in it can be trusted to name a process.
        rmSync(join(this.dir, name), { force: true });
      }
    }
    return out;
  }
}

function ownerIsAlive(owner: string): boolean {
  const m = /^(\d+)@/.exec(owner);
  return m ? ownerAlive(Number(m[1]), owner) : false;
}

/** The recorded sessions of this boot whose owner is gone and that still run: what reapOrphanedGroups would end. */
export function orphanedSessions(dir: string): GroupRecord[] {
  return new GroupRecords(dir).list().filter((r) => !ownerIsAlive(r.owner) && (r.boot === null || r.boot === bootId()) && sessionAlive(r.pid, r.start));
}

/**
 * Ends the sessions recorded in `dir` whose owner is no longer running and forgets them.
 * Records of a live owner (another running Flightdeck on the same data folder) are left alone.
 * Returns the records that were ended.
 */
export function reapOrphanedGroups(dir: string): GroupRecord[] {
  const records = new GroupRecords(dir);
  const ended: GroupRecord[] = [];
  for (const r of records.list()) {
    if (ownerIsAlive(r.owner)) continue;
    const sameBoot = r.boot === null || r.boot === bootId();
    if (sameBoot && sessionAlive(r.pid, r.start)) {
      killSession(r.pid, r.start);
      ended.push(r);
    }
    records.remove(r.pid);
  }
  return ended;
}
