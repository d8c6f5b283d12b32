/**
 * Which tool uses of a Claude Code run may be decided: those whose model call has been counted.
 *
 * A budget or turn limit is checked when the run counts a call's usage, and a tool the call
 * proposed must not be let through before that (see `limitedGate`). The CLI's stream does not
 * show a call's tool uses after its usage, though: with partial messages it prints a tool_use
 * block's `assistant` line at the block's end, before the call's `message_delta`, which is where
 * the usage is. Releasing a tool use when its line is read let the approval of the tool that
 * reached a limit through, and the CLI made the call after it, whenever the stream's next chunk
 * was read after the approval request (a separate connection; CI runs on a loaded machine).
 *
 * So a tool use of a streamed call (known from its `content_block_start` and its `assistant` line) is
 * released when that call's `message_delta` has been read (its usage counted), or its
 * `message_stop`, the next call's start, or the run's result. A call without partial events comes
 * whole, usage and tool uses on the same line, and is released with it. A subagent's calls are not
 * counted per call (the CLI reports them in its tool's result), so their tool uses go at once.
 *
 * `note` is called with every stream message after it was mapped and its usage counted.
 */
import type { StreamMessage } from './core/stream-json';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function toolUseIds(message: unknown): string[] {
  const content = isObj(message) ? message.content : undefined;
  if (!Array.isArray(content)) return [];
  return content.filter((b): b is Obj => isObj(b) && b.type === 'tool_use' && typeof b.id === 'string').map((b) => b.id as string);
}

export class CountedToolUses {
  private readonly released = new Set<string>();
  private readonly waiters = new Map<string, Set<() => void>>();
  /** A call of the main conversation is streaming, its usage not counted yet. */
  private inCall = false;
  /** That call's message id, when it has one. */
  private streaming: string | null = null;
  /** Tool uses of that call, released when its usage is. */
  private held: string[] = [];

  note(m: StreamMessage): void {
    const main = (m.parent_tool_use_id ?? null) === null;
    if (m.type === 'stream_event') {
      if (!main) return;
      const e = isObj(m.event) ? m.event : {};
      if (e.type === 'message_start') {
        this.releaseHeld();
        const msg = isObj(e.message) ? e.message : {};
        this.inCall = true;
        // A call without an id (an endpoint that leaves it out): its lines cannot be told from a
        // whole call's, only its blocks' starts hold its tool uses.
        this.streaming = typeof msg.id === 'string' && msg.id !== '' ? msg.id : null;
      } else if (e.type === 'content_block_start') {
        // Held from here: the block's assistant line may never come (a line too long to read).
        const block = isObj(e.content_block) ? e.content_block : {};
        if (this.inCall && block.type === 'tool_use' && typeof block.id === 'string') this.held.push(block.id);
      } else if (e.type === 'message_delta' || e.type === 'message_stop') {
        this.releaseHeld();
        this.endCall();
      }
      return;
    }
    if (m.type === 'result') {
      this.releaseHeld();
      this.endCall();
      return;
    }
    if (m.type !== 'assistant') return;
    const ids = toolUseIds(m.message);
    const id = isObj(m.message) ? m.message.id : undefined;
    if (main && this.streaming !== null && id === this.streaming) this.held.push(...ids);
    // A whole call's, with its usage on the line; but not one its block's start already holds.
    else for (const t of ids) if (!this.held.includes(t)) this.release(t);
  }

  private endCall(): void {
    this.inCall = false;
    this.streaming = null;
  }

  /** Resolves when tool use `id` is released, after `maxWaitMs` (a stalled stream), or on abort. */
  counted(id: string, signal: AbortSignal, maxWaitMs: number): Promise<void> {
    if (this.released.has(id) || signal.aborted) return Promise.resolve();
    return new Promise<void>((done) => {
      const end = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', end);
        const set = this.waiters.get(id);
        set?.delete(end);
        if (set?.size === 0) this.waiters.delete(id);
        done();
      };
      const timer = setTimeout(end, maxWaitMs);
      signal.addEventListener('abort', end, { once: true });
      let set = this.waiters.get(id);
      if (!set) this.waiters.set(id, (set = new Set()));
      set.add(end);
    });
  }

  private releaseHeld(): void {
    const held = this.held;
    this.held = [];
    for (const t of held) this.release(t);
  }

  private release(id: string): void {
    this.released.add(id);
    for (const end of [...(this.waiters.get(id) ?? [])]) end();
  }
}
