import type { Transcript, TranscriptItem } from './transcript';

/**
 * The folded transcripts of the sessions shown last, so going back to one shows it at once and
 * reads only the events that came after (the log is append-only: a fold up to `lastSeq` stays
 * true, and `/rewind` or a fork are later events, not rewrites). Bounded by the text the
 * transcripts hold, and by count; the session shown longest ago goes first.
 */
export class TranscriptCache {
  private readonly entries = new Map<string, { transcript: Transcript; chars: number }>();
  private chars = 0;

  constructor(
    private readonly maxChars: number,
    private readonly maxSessions: number,
  ) {}

  get(sessionId: string): Transcript | null {
    return this.entries.get(sessionId)?.transcript ?? null;
  }

  /** Keeps a session's transcript as the newest; one larger than the whole budget is not kept. */
  put(sessionId: string, transcript: Transcript): void {
    this.delete(sessionId);
    if (transcript.items.length === 0) return;
    const chars = transcriptChars(transcript);
    if (chars > this.maxChars) return;
    this.entries.set(sessionId, { transcript, chars });
    this.chars += chars;
    // Maps iterate in insertion order: the first is the one shown longest ago.
    while (this.chars > this.maxChars || this.entries.size > this.maxSessions) this.delete(this.entries.keys().next().value!);
  }

  delete(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    this.entries.delete(sessionId);
    this.chars -= e.chars;
  }

  get size(): { sessions: number; chars: number } {
    return { sessions: this.entries.size, chars: this.chars };
  }
}

/** Fields and structure of an item beyond its text, as characters. */
const ITEM_OVERHEAD_CHARS = 100;

/** About how much text a transcript holds (its strings), without serializing it. */
export function transcriptChars(t: Transcript): number {
  return t.items.reduce((n, it) => n + itemChars(it), 0);
}

function itemChars(it: TranscriptItem): number {
  switch (it.kind) {
    case 'tool':
      return ITEM_OVERHEAD_CHARS + it.inputJson.length + it.output.length + (it.result ? it.result.content.length + (it.result.stdout?.length ?? 0) + (it.result.stderr?.length ?? 0) : 0) + (it.approval?.diff?.length ?? 0);
    case 'rewound':
      return ITEM_OVERHEAD_CHARS + it.items.reduce((n, x) => n + itemChars(x), 0);
    case 'compaction':
      return ITEM_OVERHEAD_CHARS + it.text.length + (it.summary?.length ?? 0);
    case 'verify':
      return ITEM_OVERHEAD_CHARS + it.command.length + it.output.length;
    case 'error':
      return ITEM_OVERHEAD_CHARS + it.message.length;
    case 'turn-end':
      return ITEM_OVERHEAD_CHARS + (it.message?.length ?? 0);
    case 'command':
      return ITEM_OVERHEAD_CHARS + it.text.length + (it.view ? JSON.stringify(it.view).length : 0);
    default:
      return ITEM_OVERHEAD_CHARS + it.text.length;
  }
}

/**
 * A 200-turn session with tool output holds about 0.3 M characters: this keeps a few dozen long
 * sessions (tens of MB of heap at most, against the renderer's 400 MB budget) and drops older ones.
 */
const MAX_CACHED_CHARS = 8_000_000;
/** Sessions kept at most, whatever their size. */
const MAX_CACHED_SESSIONS = 32;

/** The window's cache (one per renderer). */
export const transcriptCache = new TranscriptCache(MAX_CACHED_CHARS, MAX_CACHED_SESSIONS);
