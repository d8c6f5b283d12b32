/**
 * What compaction summarizes and what it keeps. Pure: the turn loop makes the model call.
 * Kept verbatim: the system prompt and the todo list (both rebuilt every step, never part of
 * the messages) and the last KEEP_RECENT_TURNS turns. Everything older becomes one summary.
 */
import { textOf } from '../store/blocks';
import type { StoredMessage } from '../store/message-repo';

/** The last turns stay word for word: the model needs the exact recent exchange to continue. */
export const KEEP_RECENT_TURNS = 2;
/** The summary's own budget; a few thousand tokens holds decisions, files and open points. */
export const SUMMARY_MAX_TOKENS = 4_096;
/** Tool output beyond this many characters is cut in the transcript sent for summarizing. */
const TRANSCRIPT_TOOL_CHARS = 2_000;

export interface CompactionPlan {
  summarize: StoredMessage[];
  keep: StoredMessage[];
}

/**
 * Splits at the start of the KEEP_RECENT_TURNS-th last turn (a turn starts with a user chat
 * message). `currentTurnId` is always kept. Null when there is nothing older to summarize.
 */
export function planCompaction(messages: readonly StoredMessage[], currentTurnId: string | null, keepTurns = KEEP_RECENT_TURNS): CompactionPlan | null {
  const turnStarts: number[] = [];
  const seen = new Set<string>();
  messages.forEach((m, i) => {
    const key = m.turnId ?? `none-${i}`;
    if (m.kind !== 'summary' && !seen.has(key)) {
      seen.add(key);
      turnStarts.push(i);
    }
  });
  let cut = turnStarts.length > keepTurns ? turnStarts[turnStarts.length - keepTurns]! : 0;
  if (currentTurnId !== null) {
    const cur = messages.findIndex((m) => m.turnId === currentTurnId);
    if (cur >= 0 && cur < cut) cut = cur;
  }
  if (cut <= 0) return null;
  const summarize = messages.slice(0, cut);
  // A previous summary alone is not worth summarizing again.
  if (summarize.every((m) => m.kind === 'summary')) return null;
  return { summarize, keep: messages.slice(cut) };
}

/** The older conversation as plain text for the summarizing call. */
export function transcriptOf(messages: readonly StoredMessage[]): string {
  const lines: string[] = [];
  for (const m of messages) {
    for (const b of m.blocks) {
      if (b.type === 'text') lines.push(`${m.kind === 'summary' ? 'EARLIER SUMMARY' : m.role.toUpperCase()}: ${b.text}`);
      else if (b.type === 'tool_use') lines.push(`ASSISTANT called ${b.name} ${JSON.stringify(b.input).slice(0, 1_000)}`);
      else if (b.type === 'tool_result') {
        const c = b.content.length > TRANSCRIPT_TOOL_CHARS ? b.content.slice(0, TRANSCRIPT_TOOL_CHARS) + ' …[cut]' : b.content;
        lines.push(`TOOL RESULT${b.is_error ? ' (error)' : ''}: ${c}`);
      }
    }
  }
  return lines.join('\n');
}

export const SUMMARY_SYSTEM_PROMPT =
  'You compress a coding agent\'s conversation so it can continue with less context. Write a faithful summary: the user\'s goals and constraints, decisions made, files read or changed (with paths), commands run and their outcomes, errors still open, and what was about to happen next. Keep exact identifiers, paths and numbers. No preamble.';

export function summaryText(summary: string, count: number): string {
  return `[Summary of ${count} earlier messages, compacted to save context]\n${summary.trim()}`;
}

export { textOf };
