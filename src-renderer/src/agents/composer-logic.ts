import { ImageMediaType, MAX_IMAGE_BYTES, MAX_INPUT_IMAGE_BYTES, MAX_INPUT_IMAGES } from '../../../src-preload/contract/agents';

/**
 * The composer's pure parts: the Up/Down
 * history of a session's inputs, and the context-window figure. No React, no bridge; unit-tested.
 */

/**
 * Up/Down through the session's earlier inputs, like a shell. `index` is the position in
 * `entries` (oldest first) being shown, or null for the draft being typed; the draft is kept
 * so coming back down past the newest entry restores it.
 */
export interface HistoryState {
  index: number | null;
  draft: string;
}

export const historyStart: HistoryState = { index: null, draft: '' };

export function historyStep(entries: readonly string[], h: HistoryState, current: string, dir: 'up' | 'down'): { state: HistoryState; text: string } | null {
  if (entries.length === 0) return null;
  if (dir === 'up') {
    if (h.index === 0) return null;
    const index = h.index === null ? entries.length - 1 : h.index - 1;
    return { state: { index, draft: h.index === null ? current : h.draft }, text: entries[index]! };
  }
  if (h.index === null) return null;
  if (h.index >= entries.length - 1) return { state: historyStart, text: h.draft };
  return { state: { index: h.index + 1, draft: h.draft }, text: entries[h.index + 1]! };
}

/** Inputs for the history: oldest first, consecutive repeats once (like a shell with ignoredups). */
export function historyEntries(inputs: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of inputs) if (s.trim() && out[out.length - 1] !== s) out.push(s);
  return out;
}

/** Whether the caret is on the first (up) or last (down) line, where arrows leave the text. */
export function caretAtEdge(text: string, caret: number, dir: 'up' | 'down'): boolean {
  return dir === 'up' ? !text.slice(0, caret).includes('\n') : !text.slice(caret).includes('\n');
}

/** Share of the context window above which the meter suggests `/compact`. */
export const COMPACT_HINT_SHARE = 0.8;

/** Tokens in the context after a model call: what it read plus what it wrote (read again next call). */
export function contextTokens(u: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number }): number {
  return u.inputTokens + u.cacheReadTokens + u.cacheWriteTokens + u.outputTokens;
}

/** "0:07", "1:05", "1:02:03": a running tool's elapsed time. */
export function formatElapsed(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  const ss = String(s).padStart(2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${ss}` : `${m}:${ss}`;
}

/** An image waiting in the composer: sent with the next message as a base64 image block. */
export interface PendingImage {
  id: string;
  name: string;
  mediaType: ImageMediaType;
  /** Base64 without the data: prefix. */
  data: string;
  bytes: number;
}

const IMAGE_TYPES: readonly string[] = ImageMediaType.options;

/**
 * Whether one more image may be attached: its type, its size and the total of the message.
 * Returns the reason in words when not (shown as a toast), null when it fits.
 */
export function imageRefusal(current: readonly { bytes: number }[], file: { name: string; type: string; size: number }): string | null {
  if (!IMAGE_TYPES.includes(file.type)) return `${file.name || 'The file'} is not a PNG, JPEG, GIF or WebP image.`;
  if (current.length >= MAX_INPUT_IMAGES) return `At most ${MAX_INPUT_IMAGES} images go with one message.`;
  const mb = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;
  if (file.size > MAX_IMAGE_BYTES) return `${file.name || 'The image'} is ${mb(file.size)}; one image may be at most ${mb(MAX_IMAGE_BYTES)}.`;
  const total = current.reduce((n, i) => n + i.bytes, 0) + file.size;
  if (total > MAX_INPUT_IMAGE_BYTES) return `The images of one message may be at most ${mb(MAX_INPUT_IMAGE_BYTES)} together; this one would make ${mb(total)}.`;
  return null;
}

/** The `@` mention being typed before the caret: its query and where its `@` is, or null. */
export function mentionAt(text: string, caret: number): { start: number; query: string } | null {
  const m = /(^|\s)@([^\s@]*)$/.exec(text.slice(0, caret));
  if (!m) return null;
  return { start: caret - m[2]!.length - 1, query: m[2]! };
}

/** The text with the mention at `start` (up to the caret) replaced by `@path `, and the caret after it. */
export function insertMention(text: string, start: number, caret: number, path: string): { text: string; caret: number } {
  const inserted = `@${path} `;
  const rest = text.slice(caret).replace(/^\S*/, '').replace(/^ /, '');
  return { text: text.slice(0, start) + inserted + rest, caret: start + inserted.length };
}
