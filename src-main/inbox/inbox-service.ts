/**
 * The inbox: entries made from run events and approvals (see inbox-model), kept in the data
 * folder so a restart or a reload still shows them, published so every window's badge and
 * notifications follow. Bounded: the oldest entries go first.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import type { Approval, FeatureRunEvent, InboxEntry } from '../../src-preload/contract';
import { InboxEntry as InboxEntrySchema } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import { writeFileAtomic } from '../platform/atomic-file';
import { entryForApproval, entryForRunEvent, settledByRunEvent, type EntryDraft } from './inbox-model';

/** Enough for weeks of runs; older entries are history the board and reports already keep. */
export const MAX_ENTRIES = 200;
const FILE = 'inbox.json';

export interface InboxServiceOptions {
  dataDir: string;
  hub: EventHub;
  logger: Logger;
  /** The root of an agent session (to tell feature agents from the user's own sessions). */
  sessionRoot: (sessionId: string) => string | null;
  /** The registered project at a repository path, if any. */
  projectIdOf: (repoPath: string) => string | null;
}

export class InboxService {
  private entries: InboxEntry[] = [];
  private off: (() => void) | null = null;
  private readonly file: string;
  /** Approvals already turned into an entry (an approval is published on every change). */
  private readonly seenApprovals = new Set<string>();

  constructor(private readonly o: InboxServiceOptions) {
    this.file = join(o.dataDir, FILE);
    this.entries = this.load();
  }

  start(): void {
    this.off = this.o.hub.subscribe((e) => {
      if (e.topic === 'featureRuns.event') {
        const ev = e.payload as FeatureRunEvent;
        this.settle(settledByRunEvent(ev));
        const draft = entryForRunEvent(ev, this.o.projectIdOf(ev.projectPath));
        if (draft) this.add(draft);
      } else if (e.topic === 'agents.approvals.changed') {
        const a = (e.payload as { approval: Approval }).approval;
        // Answered (or expired): its entry has nothing left to ask.
        if (a.status !== 'pending') return this.settle((x) => x.approvalId === a.id);
        if (this.seenApprovals.has(a.id)) return;
        this.seenApprovals.add(a.id);
        const draft = entryForApproval(a, this.o.sessionRoot(a.sessionId), this.o.projectIdOf);
        if (draft) this.add(draft);
      }
    });
  }

  dispose(): void {
    this.off?.();
    this.off = null;
  }

  list(): { entries: InboxEntry[]; unread: number } {
    return { entries: [...this.entries], unread: this.unread() };
  }

  markRead(ids?: readonly string[]): { unread: number } {
    const which = ids ? new Set(ids) : null;
    let changed = false;
    this.entries = this.entries.map((e) => {
      if (e.read || (which && !which.has(e.id))) return e;
      changed = true;
      return { ...e, read: true };
    });
    if (changed) {
      this.save();
      this.o.hub.publish('inbox.changed', { unread: this.unread() });
    }
    return { unread: this.unread() };
  }

  add(draft: EntryDraft, now = Date.now()): InboxEntry {
    const entry: InboxEntry = { ...draft, id: `inb-${now.toString(36)}-${randomBytes(3).toString('hex')}`, ts: now, read: false };
    this.entries = [entry, ...this.entries].slice(0, MAX_ENTRIES);
    this.save();
    this.o.hub.publish('inbox.added', entry);
    this.o.hub.publish('inbox.changed', { unread: this.unread() });
    return entry;
  }

  /** Drops the entries that no longer want the user (answered, resolved), and says so to every window. */
  settle(done: (e: InboxEntry) => boolean): void {
    const left = this.entries.filter((e) => !done(e));
    if (left.length === this.entries.length) return;
    this.entries = left;
    this.save();
    this.o.hub.publish('inbox.changed', { unread: this.unread() });
  }

  private unread(): number {
    return this.entries.filter((e) => !e.read).length;
  }

  private load(): InboxEntry[] {
    if (!existsSync(this.file)) return [];
    try {
      const raw = JSON.parse(readFileSync(this.file, 'utf8')) as unknown;
      if (!Array.isArray(raw)) throw new Error('not a list');
      return raw.flatMap((r) => {
        const p = InboxEntrySchema.safeParse(r);
        return p.success ? [p.data] : [];
      });
    } catch (e) {
      // A damaged inbox file only loses old notices; it is replaced at the next entry.
      this.o.logger.warn('inbox file unreadable; starting empty', { file: this.file, error: e });
      return [];
    }
  }

  private save(): void {
    try {
      writeFileAtomic(this.file, JSON.stringify(this.entries), { mode: 0o600 });
    } catch (e) {
      // A full or read-only disk: the entries stay in memory for this run and are published anyway.
      this.o.logger.warn('inbox not saved', { file: this.file, error: e });
    }
  }
}
