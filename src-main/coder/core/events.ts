/**
 * Claude Code's stream-json → Flightdeck's normalized agent events, so a Claude Code session
 * draws exactly like a built-in one: streamed text and thinking, tool cards with their inputs
 * and results, per-call usage and cost, retries, errors.
 *
 * Works with and without `--include-partial-messages`: when partial `stream_event` lines came
 * for a model call, deltas come from them; otherwise the complete `assistant` lines are
 * replayed as deltas. Subagent traffic (`parent_tool_use_id` set) is left out of the
 * transcript: the Task tool's card shows the subagent's final answer.
 */
import type { AgentEventData, Message, TokenUsage } from '../../../src-preload/contract';
import type { MessageKind, MessageRole, StoredBlock } from '../../agents/store/blocks';
import { toContractBlocks } from '../../agents/store/blocks';
import { engineToolName } from './tool-map';
import type { StreamMessage } from './stream-json';
import { readResult } from './stream-json';

/** Tool results are capped in events; the transcript message holds the same capped text. */
export const MAX_TOOL_CONTENT_CHARS = 20_000;

export interface MapperContext {
  sessionId: string;
  turnId: string | null;
  profile: string;
  model: string;
  /** Fresh `msg-…` ids for transcript messages. */
  newMessageId(): string;
  now(): number;
  /** USD for one model call at the profile's prices; null when the profile has none. */
  price?: ((usage: TokenUsage) => number) | null;
  /** A tool result's text as it may be shown and stored (an MCP server's secrets hidden). */
  redactToolResult?: (tool: string, text: string) => string;
  /**
   * Where transcript messages go. Given (a Flightdeck session), the engine persists the message
   * in the stored form (thinking signatures kept) and emits its own `message` event; absent,
   * the mapper emits the `message` event itself.
   */
  persist?: ((role: MessageRole, kind: MessageKind, blocks: StoredBlock[]) => void) | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const num = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);

function toUsage(u: unknown): TokenUsage {
  const o = isObj(u) ? u : {};
  return {
    inputTokens: num(o.input_tokens),
    outputTokens: num(o.output_tokens),
    cacheReadTokens: num(o.cache_read_input_tokens),
    cacheWriteTokens: num(o.cache_creation_input_tokens),
  };
}

function mergeUsage(start: TokenUsage | null, delta: TokenUsage): TokenUsage {
  if (!start) return delta;
  return {
    inputTokens: Math.max(start.inputTokens, delta.inputTokens),
    outputTokens: Math.max(start.outputTokens, delta.outputTokens),
    cacheReadTokens: Math.max(start.cacheReadTokens, delta.cacheReadTokens),
    cacheWriteTokens: Math.max(start.cacheWriteTokens, delta.cacheWriteTokens),
  };
}

function cap(text: string): string {
  return text.length > MAX_TOOL_CONTENT_CHARS ? `${text.slice(0, MAX_TOOL_CONTENT_CHARS)}\n… (${text.length - MAX_TOOL_CONTENT_CHARS} more characters)` : text;
}

/** tool_result content is a string or an array of text (and image) blocks. */
export function toolResultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) {
    return content
      .map((b) => (isObj(b) && b.type === 'text' && typeof b.text === 'string' ? b.text : isObj(b) && b.type === 'image' ? '[image]' : ''))
      .filter((t) => t !== '')
      .join('\n');
  }
  return '';
}

/** Claude Code prefixes a failed command's output with "Exit code N". */
function exitCodeOf(tool: string, text: string, isError: boolean): number | null {
  if (tool !== 'bash') return null;
  const m = /^(?:Error: )?Exit code (\d+)/.exec(text);
  if (m) return Number(m[1]);
  return isError ? null : 0;
}

function toStoredBlock(b: unknown): StoredBlock | null {
  if (!isObj(b)) return null;
  if (b.type === 'text' && typeof b.text === 'string') return { type: 'text', text: b.text };
  if (b.type === 'thinking' && typeof b.thinking === 'string') {
    return typeof b.signature === 'string' && b.signature !== '' ? { type: 'thinking', thinking: b.thinking, signature: b.signature } : { type: 'thinking', thinking: b.thinking };
  }
  if (b.type === 'tool_use' && typeof b.id === 'string' && typeof b.name === 'string') {
    return { type: 'tool_use', id: b.id, name: engineToolName(b.name), input: isObj(b.input) ? b.input : {} };
  }
  return null;
}

export class StreamEventMapper {
  private step = 0;
  /** Model calls (message ids) whose deltas came as partial stream events. */
  private readonly streamed = new Set<string>();
  private currentStreamId: string | null = null;
  private currentStreamModel: string | null = null;
  /** The assistant message being assembled from per-block lines. */
  private pending: { id: string; blocks: StoredBlock[] } | null = null;
  private readonly tools = new Map<string, { tool: string; startedAt: number }>();
  /** Content block index → tool_use id, for the model call streaming now. */
  private readonly blockTools = new Map<number, string>();
  private lastAssistantId: string | null = null;
  private readonly usageReported = new Set<string>();
  /** message_start carries the input side of a call's usage, message_delta the output side. */
  private startUsage: TokenUsage | null = null;
  private pricedAnyStep = false;

  constructor(private readonly ctx: MapperContext) {}

  /** The number of model calls seen so far (the turn's `steps`). */
  get steps(): number {
    return this.step;
  }

  map(m: StreamMessage): AgentEventData[] {
    if (m.parent_tool_use_id !== undefined && m.parent_tool_use_id !== null) return [];
    switch (m.type) {
      case 'stream_event':
        return this.onStreamEvent(isObj(m.event) ? m.event : {});
      case 'assistant':
        return this.onAssistant(isObj(m.message) ? m.message : {});
      case 'user':
        return [...this.flush(), ...this.onUser(m)];
      case 'system':
        return this.onSystem(m);
      case 'result':
        return [...this.flush(), ...this.onResult(m)];
      default:
        return [];
    }
  }

  /** Emits the assistant message still being assembled (call at the end of a run). */
  flush(): AgentEventData[] {
    const p = this.pending;
    this.pending = null;
    if (!p || p.blocks.length === 0) return [];
    return this.message('assistant', 'chat', p.blocks);
  }

  private message(role: MessageRole, kind: MessageKind, blocks: StoredBlock[]): AgentEventData[] {
    if (this.ctx.persist) {
      this.ctx.persist(role, kind, blocks);
      return [];
    }
    const message: Message = { id: this.ctx.newMessageId(), sessionId: this.ctx.sessionId, turnId: this.ctx.turnId, role, kind, blocks: toContractBlocks(blocks), createdAt: this.ctx.now() };
    return [{ type: 'message', message }];
  }

  private usd(usage: TokenUsage): number {
    return this.ctx.price ? Math.max(0, this.ctx.price(usage)) : 0;
  }

  private onStreamEvent(e: Obj): AgentEventData[] {
    const index = typeof e.index === 'number' ? e.index : 0;
    switch (e.type) {
      case 'message_start': {
        const msg = isObj(e.message) ? e.message : {};
        const out = this.flush();
        this.step++;
        this.currentStreamId = typeof msg.id === 'string' ? msg.id : `step-${this.step}`;
        this.currentStreamModel = typeof msg.model === 'string' ? msg.model : null;
        this.startUsage = toUsage(msg.usage);
        this.blockTools.clear();
        this.streamed.add(this.currentStreamId);
        out.push({ type: 'step.started', step: this.step, model: this.currentStreamModel ?? this.ctx.model });
        return out;
      }
      case 'content_block_start': {
        const block = isObj(e.content_block) ? e.content_block : {};
        if (block.type === 'tool_use' && typeof block.id === 'string' && typeof block.name === 'string') {
          const tool = engineToolName(block.name);
          this.tools.set(block.id, { tool, startedAt: this.ctx.now() });
          this.blockTools.set(index, block.id);
          return [{ type: 'tool.started', step: this.step, index, toolUseId: block.id, tool }];
        }
        return [];
      }
      case 'content_block_delta': {
        const d = isObj(e.delta) ? e.delta : {};
        if (d.type === 'text_delta' && typeof d.text === 'string' && d.text !== '') return [{ type: 'text.delta', step: this.step, index, text: d.text }];
        if (d.type === 'thinking_delta' && typeof d.thinking === 'string' && d.thinking !== '') return [{ type: 'thinking.delta', step: this.step, index, text: d.thinking }];
        if (d.type === 'input_json_delta' && typeof d.partial_json === 'string' && d.partial_json !== '') {
          const toolUseId = this.blockTools.get(index) ?? '';
          return [{ type: 'tool.input.delta', step: this.step, index, toolUseId, partialJson: d.partial_json }];
        }
        return [];
      }
      case 'message_delta': {
        const usage = mergeUsage(this.startUsage, toUsage(e.usage));
        const d = isObj(e.delta) ? e.delta : {};
        const usd = this.usd(usage);
        if (this.ctx.price) this.pricedAnyStep = true;
        return [
          {
            type: 'usage',
            step: this.step,
            purpose: 'turn',
            profile: this.ctx.profile,
            model: this.currentStreamModel ?? this.ctx.model,
            usage,
            usd,
            stopReason: typeof d.stop_reason === 'string' ? d.stop_reason : null,
          },
        ];
      }
      default:
        return [];
    }
  }

  private onAssistant(msg: Obj): AgentEventData[] {
    const id = typeof msg.id === 'string' ? msg.id : `anon-${this.step}`;
    const content = Array.isArray(msg.content) ? msg.content : [];
    const out: AgentEventData[] = [];
    if (this.pending && this.pending.id !== id) out.push(...this.flush());
    const replay = !this.streamed.has(id);
    // A model call without partial events: its blocks arrive whole, one line per block.
    if (replay && this.lastAssistantId !== id) {
      this.step++;
      out.push({ type: 'step.started', step: this.step, model: typeof msg.model === 'string' ? msg.model : this.ctx.model });
    }
    this.lastAssistantId = id;
    this.pending ??= { id, blocks: [] };
    for (const raw of content) {
      const block = toStoredBlock(raw);
      if (!block) continue;
      const index = this.pending.blocks.length;
      this.pending.blocks.push(block);
      if (!replay) continue;
      if (block.type === 'text' && block.text !== '') out.push({ type: 'text.delta', step: this.step, index, text: block.text });
      if (block.type === 'thinking' && block.thinking !== '') out.push({ type: 'thinking.delta', step: this.step, index, text: block.thinking });
      if (block.type === 'tool_use') {
        this.tools.set(block.id, { tool: block.name, startedAt: this.ctx.now() });
        out.push({ type: 'tool.started', step: this.step, index, toolUseId: block.id, tool: block.name });
        out.push({ type: 'tool.input.delta', step: this.step, index, toolUseId: block.id, partialJson: JSON.stringify(block.input) });
      }
    }
    if (replay && isObj(msg.usage) && msg.model !== '<synthetic>') {
      // Without partial events the per-line usage is the call's; report it once per call.
      if (!this.usageReported.has(id)) {
        this.usageReported.add(id);
        const usage = toUsage(msg.usage);
        if (this.ctx.price) this.pricedAnyStep = true;
        out.push({ type: 'usage', step: this.step, purpose: 'turn', profile: this.ctx.profile, model: typeof msg.model === 'string' ? msg.model : this.ctx.model, usage, usd: this.usd(usage), stopReason: typeof msg.stop_reason === 'string' ? msg.stop_reason : null });
      }
    }
    return out;
  }

  private onUser(m: StreamMessage): AgentEventData[] {
    const msg = isObj(m.message) ? m.message : {};
    const content = Array.isArray(msg.content) ? msg.content : typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : [];
    const out: AgentEventData[] = [];
    const results: StoredBlock[] = [];
    const texts: StoredBlock[] = [];
    for (const b of content) {
      if (!isObj(b)) continue;
      if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') {
        const known = this.tools.get(b.tool_use_id);
        const tool = known?.tool ?? 'tool';
        const raw = cap(toolResultText(b.content));
        const text = this.ctx.redactToolResult ? this.ctx.redactToolResult(tool, raw) : raw;
        const isError = b.is_error === true;
        results.push({ type: 'tool_result', tool_use_id: b.tool_use_id, content: text, is_error: isError });
        out.push({
          type: 'tool.result',
          toolUseId: b.tool_use_id,
          tool,
          isError,
          content: text,
          exitCode: exitCodeOf(tool, text, isError),
          durationMs: known ? Math.max(0, Math.round(this.ctx.now() - known.startedAt)) : 0,
        });
      } else if (b.type === 'text' && typeof b.text === 'string') {
        texts.push({ type: 'text', text: b.text });
      }
    }
    if (results.length > 0) out.push(...this.message('tool', 'chat', results));
    // Text the CLI injects on its own (e.g. a nudge after an empty reply) is a note, not the user's words.
    if (texts.length > 0) out.push(...this.message('user', m.isSynthetic === true ? 'note' : 'chat', texts));
    return out;
  }

  private onSystem(m: StreamMessage): AgentEventData[] {
    if (m.subtype === 'api_retry') {
      const status = typeof m.error_status === 'number' ? m.error_status : null;
      return [
        {
          type: 'retry',
          step: this.step,
          attempt: Math.max(1, num(m.attempt)),
          maxRetries: num(m.max_retries),
          delayMs: num(m.retry_delay_ms),
          reason: typeof m.error === 'string' ? m.error : 'API error',
          status,
        },
      ];
    }
    if (m.subtype === 'init') {
      const model = typeof m.model === 'string' ? m.model : this.ctx.model;
      const version = typeof m.claude_code_version === 'string' ? ` ${m.claude_code_version}` : '';
      return [{ type: 'notice', level: 'info', text: `Claude Code${version} started (session ${String(m.session_id ?? '?')}, model ${model}, permission mode ${String(m.permissionMode ?? '?')}).` }];
    }
    return [];
  }

  private onResult(m: StreamMessage): AgentEventData[] {
    const r = readResult(m);
    const out: AgentEventData[] = [];
    // No profile prices: the CLI's own total is the only cost there is; report it once.
    if (!this.pricedAnyStep && !this.ctx.price && r.totalCostUsd > 0) {
      out.push({
        type: 'usage',
        step: this.step,
        purpose: 'turn',
        profile: this.ctx.profile,
        model: this.currentStreamModel ?? this.ctx.model,
        usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 },
        usd: r.totalCostUsd,
        stopReason: null,
      });
    }
    if (r.isError) {
      const text = r.result?.trim() || r.errors.join('; ') || r.subtype;
      out.push({ type: 'error', code: 'upstream_error', message: text, retryable: r.apiErrorStatus === null || r.apiErrorStatus === 429 || r.apiErrorStatus >= 500 });
    }
    return out;
  }
}
