/**
 * The Anthropic Messages API provider (any Anthropic-compatible endpoint). Streams one call,
 * normalizes it into StreamEvents, and does its own retries (the SDK's are switched off) so
 * every retry is visible as an event and testable: 429/529/5xx/resets/stalls are retried
 * with backoff, 400/401/403/404 stop with a message saying what to fix.
 */
import Anthropic from '@anthropic-ai/sdk';
import type { StoredBlock } from '../store/blocks';
import { backoffDelay, classifyFault, ProviderError, StreamIdleError, type BackoffOptions } from './faults';
import type { CallOptions, ModelProvider, ModelRequest, ModelResponse, ResolvedProfile, StreamEvent } from './types';

export interface AnthropicProviderOptions {
  profile: ResolvedProfile;
  /** Retries after the first attempt. */
  maxRetries: number;
  /** A stream (or a response that has not started) silent this long is aborted and retried. */
  idleTimeoutMs: number;
  backoff?: BackoffOptions;
  random?: () => number;
}

/** Production backoff: 1 s, 2 s, 4 s… capped at 30 s, the range Anthropic's own clients use. */
export const DEFAULT_BACKOFF: BackoffOptions = { baseMs: 1_000, maxMs: 30_000 };
/**
 * The SDK's whole-request timeout. Long answers stream for minutes; stalls are caught by the
 * idle timeout instead, so this only bounds a pathological trickle.
 */
const REQUEST_TIMEOUT_MS = 60 * 60_000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new ProviderError('cancelled', 'Cancelled.'));
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(new ProviderError('cancelled', 'Cancelled.'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

interface OpenBlock {
  block: StoredBlock;
  json: string;
}

export class AnthropicProvider implements ModelProvider {
  private readonly client: Anthropic | null;

  constructor(private readonly opts: AnthropicProviderOptions) {
    const { profile } = opts;
    this.client = profile.apiKey
      ? new Anthropic({
          apiKey: profile.apiKey,
          baseURL: profile.baseUrl,
          maxRetries: 0,
          timeout: REQUEST_TIMEOUT_MS,
          // The SDK would log raw stream data on a parse error; we report faults ourselves.
          logLevel: 'off',
        })
      : null;
  }

  async call(request: ModelRequest, callOpts: CallOptions): Promise<ModelResponse> {
    const { profile } = this.opts;
    const ctx = { baseUrl: profile.baseUrl, profile: profile.name, model: profile.model };
    if (!this.client) {
      throw new ProviderError(
        'no_key',
        // The environment's ANTHROPIC_API_KEY stands in for the anthropic profile's key only (profiles.ts): naming it for GLM sent users the wrong way.
        profile.name === 'anthropic'
          ? `No API key for profile "${profile.name}". Add one in Settings → Providers, run "flightdeck profiles set ${profile.name} --api-key-stdin", or set ANTHROPIC_API_KEY.`
          : `No API key for profile "${profile.name}". Add one in Settings → Providers or run "flightdeck profiles set ${profile.name} --api-key-stdin" (ANTHROPIC_API_KEY is read for the anthropic profile only).`,
      );
    }
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.once(this.client, request, callOpts);
      } catch (e) {
        const fault = classifyFault(e, ctx);
        if (callOpts.signal.aborted || fault.kind === 'cancelled') throw new ProviderError('cancelled', 'Cancelled.');
        if (!fault.retryable || attempt >= this.opts.maxRetries) {
          if (fault.retryable && this.opts.maxRetries > 0) {
            throw new ProviderError(fault.kind, `${fault.message} Gave up after ${attempt + 1} attempts.`, fault.status);
          }
          throw fault;
        }
        const delayMs = backoffDelay(attempt + 1, this.opts.backoff ?? DEFAULT_BACKOFF, fault.retryAfterMs, this.opts.random);
        callOpts.onRetry?.({ attempt: attempt + 1, maxRetries: this.opts.maxRetries, delayMs, reason: fault.message, status: fault.status });
        await sleep(delayMs, callOpts.signal);
      }
    }
  }

  private async once(client: Anthropic, request: ModelRequest, callOpts: CallOptions): Promise<ModelResponse> {
    const { profile, idleTimeoutMs } = this.opts;
    const ctrl = new AbortController();
    const onAbort = () => ctrl.abort();
    callOpts.signal.addEventListener('abort', onAbort, { once: true });
    let idle = false;
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => {
        idle = true;
        ctrl.abort();
      }, idleTimeoutMs);
    };
    const emit = (e: StreamEvent) => callOpts.onStream?.(e);
    const open = new Map<number, OpenBlock>();
    const done: Array<{ index: number; block: StoredBlock }> = [];
    const usage = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
    let stopReason: string | null = null;
    let model = profile.model;
    let finished = false;
    arm();
    try {
      const stream = await client.messages.create(
        {
          model: profile.model,
          max_tokens: request.maxTokens ?? profile.maxTokens,
          system: request.system,
          messages: request.messages as unknown as Anthropic.MessageParam[],
          ...(request.tools.length > 0 ? { tools: request.tools as unknown as Anthropic.Tool[] } : {}),
          stream: true,
        },
        { signal: ctrl.signal },
      );
      for await (const ev of stream) {
        arm();
        switch (ev.type) {
          case 'message_start': {
            model = ev.message.model || model;
            const u = ev.message.usage;
            usage.inputTokens = Math.max(usage.inputTokens, u?.input_tokens ?? 0);
            usage.outputTokens = Math.max(usage.outputTokens, u?.output_tokens ?? 0);
            usage.cacheReadTokens = Math.max(usage.cacheReadTokens, u?.cache_read_input_tokens ?? 0);
            usage.cacheWriteTokens = Math.max(usage.cacheWriteTokens, u?.cache_creation_input_tokens ?? 0);
            break;
          }
          case 'content_block_start': {
            const b = ev.content_block;
            if (b.type === 'text') open.set(ev.index, { block: { type: 'text', text: b.text ?? '' }, json: '' });
            else if (b.type === 'thinking') open.set(ev.index, { block: { type: 'thinking', thinking: b.thinking ?? '', signature: b.signature ?? '' }, json: '' });
            else if (b.type === 'redacted_thinking') open.set(ev.index, { block: { type: 'redacted_thinking', data: b.data }, json: '' });
            else if (b.type === 'tool_use') {
              open.set(ev.index, { block: { type: 'tool_use', id: b.id, name: b.name, input: {} }, json: '' });
              emit({ type: 'tool_start', index: ev.index, id: b.id, name: b.name });
            }
            break;
          }
          case 'content_block_delta': {
            const o = open.get(ev.index);
            if (!o) break;
            const d = ev.delta;
            if (d.type === 'text_delta' && o.block.type === 'text') {
              o.block.text += d.text;
              emit({ type: 'text', index: ev.index, text: d.text });
            } else if (d.type === 'thinking_delta' && o.block.type === 'thinking') {
              o.block.thinking += d.thinking;
              emit({ type: 'thinking', index: ev.index, text: d.thinking });
            } else if (d.type === 'signature_delta' && o.block.type === 'thinking') {
              o.block.signature = (o.block.signature ?? '') + d.signature;
            } else if (d.type === 'input_json_delta' && o.block.type === 'tool_use') {
              o.json += d.partial_json;
              emit({ type: 'tool_input', index: ev.index, id: o.block.id, partialJson: d.partial_json });
            }
            break;
          }
          case 'content_block_stop': {
            const o = open.get(ev.index);
            if (!o) break;
            open.delete(ev.index);
            if (o.block.type === 'tool_use') o.block.input = parseToolInput(o.json);
            done.push({ index: ev.index, block: o.block });
            break;
          }
          case 'message_delta': {
            stopReason = ev.delta.stop_reason ?? stopReason;
            const u = ev.usage as Partial<Anthropic.MessageDeltaUsage> | undefined;
            if (u) {
              usage.outputTokens = Math.max(usage.outputTokens, u.output_tokens ?? 0);
              usage.inputTokens = Math.max(usage.inputTokens, u.input_tokens ?? 0);
              usage.cacheReadTokens = Math.max(usage.cacheReadTokens, u.cache_read_input_tokens ?? 0);
              usage.cacheWriteTokens = Math.max(usage.cacheWriteTokens, u.cache_creation_input_tokens ?? 0);
            }
            break;
          }
          case 'message_stop':
            finished = true;
            break;
        }
      }
    } catch (e) {
      if (idle) throw new StreamIdleError(`no data for ${Math.round(idleTimeoutMs / 1000)} s`);
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
      callOpts.signal.removeEventListener('abort', onAbort);
    }
    // The SDK ends iteration quietly when its signal aborts: tell why it stopped.
    if (callOpts.signal.aborted) throw new ProviderError('cancelled', 'Cancelled.');
    if (idle) throw new StreamIdleError(`no data for ${Math.round(idleTimeoutMs / 1000)} s`);
    if (!finished) throw new ProviderError('connection', `The stream from ${profile.baseUrl} ended before the message was complete.`);
    done.sort((a, b) => a.index - b.index);
    return { blocks: done.map((d) => d.block), stopReason, usage, model };
  }
}

/** Tool input JSON as streamed; malformed input is kept so the tool can tell the model. */
function parseToolInput(json: string): Record<string, unknown> {
  if (json.trim() === '') return {};
  try {
    const v = JSON.parse(json) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : { __malformed_input: json.slice(0, 2_000) };
  } catch {
    // The model produced invalid JSON: the tool layer answers with a readable error.
    return { __malformed_input: json.slice(0, 2_000) };
  }
}
