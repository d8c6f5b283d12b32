/**
 * The processing journal: one small JSON file per command id in `<root>/.flightdeck/journal/`,
 * so each command file runs exactly once even across restarts and with two watchers on one
 * mailbox. It lives in the mailbox (not the database) because a mailbox-layout `--root` folder can
 * be processed from any data folder, and the record must travel with the commands it covers.
 *
 * A command is claimed by creating its entry exclusively (`O_EXCL`): of two watchers only one
 * succeeds. The entry then moves through `running` → `reported` (both reports written) →
 * `done` (the file is in `processed/`). After a crash, a `running` entry whose owner process is
 * gone is not run again — the task is reported as interrupted — and a `reported` one only
 * finishes its move.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { writeFileAtomic, writeNewFile } from '../platform/atomic-file';
import { ownerAlive, selfIdentity } from '../platform/process-identity';
import { readFileNoWait } from '../platform/read-no-wait';
import { SAFE_ID } from './command-file';

export const JOURNAL_FOLDER = '.flightdeck/journal';

export const JournalEntrySchema = z.object({
  id: z.string().regex(SAFE_ID),
  /** The command file's name in `commands/pending/`. */
  file: z.string(),
  state: z.enum(['running', 'reported', 'done']),
  sessionId: z.string().nullable(),
  claimedAt: z.string(),
  /** The claiming process (pid and start identity) and processor instance. */
  ownerPid: z.number().int(),
  ownerId: z.string(),
  ownerToken: z.string(),
});
export type JournalEntry = z.infer<typeof JournalEntrySchema>;

/** Processor instances alive in this process: a `running` entry of this pid whose token is not here belongs to a stopped instance. */
const liveTokens = new Set<string>();

export function registerOwnerToken(token: string): void {
  liveTokens.add(token);
}
export function releaseOwnerToken(token: string): void {
  liveTokens.delete(token);
}

/** Whether the instance that claimed an entry may still be working on it. */
export function entryOwnerAlive(e: JournalEntry): boolean {
  if (e.ownerPid === process.pid && e.ownerId === selfIdentity()) return liveTokens.has(e.ownerToken);
  return ownerAlive(e.ownerPid, e.ownerId);
}

export class Journal {
  readonly dir: string;
  constructor(root: string) {
    this.dir = join(root, JOURNAL_FOLDER);
  }

  private path(id: string): string {
    if (!SAFE_ID.test(id)) throw new Error(`not a command id: ${id}`);
    return join(this.dir, `${id}.json`);
  }

  get(id: string): JournalEntry | undefined {
    let text: string;
    try {
      text = readFileNoWait(this.path(id), 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw e;
    }
    return JournalEntrySchema.parse(JSON.parse(text));
  }

  /** Claims a command: true when this call created the entry, false when one exists already. */
  claim(entry: Omit<JournalEntry, 'ownerPid' | 'ownerId' | 'state'>): boolean {
    mkdirSync(this.dir, { recursive: true });
    const full: JournalEntry = { ...entry, state: 'running', ownerPid: process.pid, ownerId: selfIdentity() };
    try {
      writeNewFile(this.path(entry.id), `${JSON.stringify(full, null, 2)}\n`, 0o644);
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
      throw e;
    }
  }

  /** Takes over an entry whose owner is gone (the caller checked), as this instance. */
  adopt(e: JournalEntry, token: string): JournalEntry {
    const next = { ...e, ownerPid: process.pid, ownerId: selfIdentity(), ownerToken: token };
    this.update(next);
    return next;
  }

  update(e: JournalEntry): void {
    writeFileAtomic(this.path(e.id), `${JSON.stringify(JournalEntrySchema.parse(e), null, 2)}\n`, { mode: 0o644 });
  }

  /** Every entry (unreadable ones are skipped: a half-written claim is never visible, it is created complete). */
  list(): JournalEntry[] {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw e;
    }
    const out: JournalEntry[] = [];
    for (const n of names) {
      if (!n.endsWith('.json') || n.startsWith('.')) continue;
      try {
        const e = this.get(n.slice(0, -5));
        if (e) out.push(e);
      } catch {
        // A damaged entry names no command we could resume; its id stays taken by the file itself.
      }
    }
    return out;
  }

  has(id: string): boolean {
    try {
      return this.get(id) !== undefined;
    } catch {
      // Damaged but present: the id was used.
      return true;
    }
  }
}
