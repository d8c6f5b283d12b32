import { spawn } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { bootId, GroupRecords, killSession, reapOrphanedGroups, sessionAlive, sessionMembers } from '../../../src-main/platform/process-groups';
import { processStartTicks, selfIdentity } from '../../../src-main/platform/process-identity';
import { isAlive as alive } from '../../support/processes';
import { tempDir } from '../../support/temp';

const started: number[] = [];
afterEach(() => {
  for (const pid of started.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // Already ended by the test.
    }
  }
});

/** A session leader (setsid) whose child moves to a process group of its own, as a shell's job does. */
async function startSession(): Promise<{ leader: number; child: number }> {
  const p = spawn('/bin/bash', ['-c', 'set -m; sleep 300 & echo $!; wait'], { detached: true, stdio: ['ignore', 'pipe', 'ignore'] });
  started.push(p.pid!);
  const child = await new Promise<number>((resolve) => p.stdout!.once('data', (d: Buffer) => resolve(Number(String(d).trim()))));
  return { leader: p.pid!, child };
}

async function gone(pids: number[]): Promise<boolean> {
  for (let i = 0; i < 200; i++) {
    if (pids.every((p) => !alive(p))) return true;
    await new Promise((r) => setTimeout(r, 25));
  }
  return false;
}

describe.runIf(process.platform === 'linux')('process groups and their records', () => {
  it('finds every member of a session, even one in its own process group, and kills them all', async () => {
    const { leader, child } = await startSession();
    const members = sessionMembers(leader, processStartTicks(leader));
    expect(members).toEqual(expect.arrayContaining([leader, child]));
    expect(sessionAlive(leader, processStartTicks(leader))).toBe(true);
    killSession(leader, processStartTicks(leader));
    expect(await gone([leader, child])).toBe(true);
  });

  it('records are written atomically, listed and removed; a torn file is dropped', () => {
    const dir = tempDir('fd-records-');
    const records = new GroupRecords(dir.path);
    const r = records.add(process.pid, 'shell');
    expect(r).toMatchObject({ pid: process.pid, owner: selfIdentity(), kind: 'shell', boot: bootId() });
    writeFileSync(join(dir.path, '123.json'), '{"pid": 12');
    expect(records.list()).toEqual([r]);
    expect(readdirSync(dir.path)).toEqual([`${process.pid}.json`]);
    records.remove(process.pid);
    expect(records.list()).toEqual([]);
    dir.cleanup();
  });

  it('a start after a crash ends the sessions of a dead owner and leaves a live owner’s alone', async () => {
    const dir = tempDir('fd-records-');
    const orphan = await startSession();
    const owned = await startSession();
    const dead = spawn('true');
    await new Promise((r) => dead.once('exit', r));
    const write = (pid: number, owner: string, boot = bootId()) =>
      writeFileSync(join(dir.path, `${pid}.json`), JSON.stringify({ pid, start: processStartTicks(pid), boot, owner, kind: 'command' }));
    write(orphan.leader, `${dead.pid}@1`);
    write(owned.leader, selfIdentity());
    const ended = reapOrphanedGroups(dir.path);
    expect(ended.map((e) => e.pid)).toEqual([orphan.leader]);
    expect(await gone([orphan.leader, orphan.child])).toBe(true);
    expect(alive(owned.leader) && alive(owned.child)).toBe(true);
    expect(readdirSync(dir.path)).toEqual([`${owned.leader}.json`]);
    dir.cleanup();
  });

  it('never kills on a record from another boot or whose leader pid now names another process', async () => {
    const dir = tempDir('fd-records-');
    const a = await startSession();
    const b = await startSession();
    writeFileSync(join(dir.path, `${a.leader}.json`), JSON.stringify({ pid: a.leader, start: processStartTicks(a.leader), boot: 'another-boot', owner: '999999999@1', kind: 'shell' }));
    // A start time in the future of b's: the recorded session started later than anything running now.
    const later = String(Number(processStartTicks(b.leader)) + 1_000_000);
    writeFileSync(join(dir.path, `${b.leader}.json`), JSON.stringify({ pid: b.leader, start: later, boot: bootId(), owner: '999999999@1', kind: 'shell' }));
    expect(reapOrphanedGroups(dir.path)).toEqual([]);
    expect([a.leader, a.child, b.leader, b.child].every(alive)).toBe(true);
    expect(readdirSync(dir.path)).toEqual([]);
    dir.cleanup();
  });
});
