/**
 * One provider call of a turn (seed 001 §3.4): streams text, thinking and tool_use deltas as
 * events, makes retries visible, prices the usage with the profile's prices and records it.
 */
import { AppError } from '../../../src-preload/contract';
import { ProviderError } from '../provider/faults';
import { priceUsage } from '../provider/pricing';
import type { ModelRequest, ModelResponse } from '../provider/types';
import type { CostPurpose } from '../store/cost-repo';
import type { StoredBlock } from '../store/blocks';
import type { TurnContext } from './turn-context';

export interface CallResult {
  response: ModelResponse | null;
  /** Text streamed before a cancellation, kept so the transcript shows what the user saw. */
  partial: StoredBlock[];
  error: ProviderError | null;
}

export async function callModel(ctx: TurnContext, purpose: CostPurpose, request: ModelRequest, opts: { stream: boolean; step: number }): Promise<CallResult> {
  const s = ctx.session();
  let profile;
  try {
    profile = ctx.deps.profiles.resolve(s.profile, s.model);
  } catch (e) {
    // The profile's key cannot be read (a damaged key file): the turn stops with that reason, like a missing key.
    if (e instanceof AppError) return { response: null, partial: [], error: new ProviderError('no_key', e.message) };
    throw e;
  }
  // Checked before every request, so a limit stops the turn before the call that would pass it.
  const refused = ctx.deps.callGuard?.(ctx.sessionId) ?? null;
  if (refused) return { response: null, partial: [], error: new ProviderError('limit', refused) };
  const provider = ctx.deps.provider(profile);
  const partialText = new Map<number, string>();
  if (opts.stream) ctx.emit({ type: 'step.started', step: opts.step, model: profile.model });
  try {
    const response = await provider.call(request, {
      signal: ctx.signal,
      onStream: opts.stream
        ? (e) => {
            if (e.type === 'text') {
              partialText.set(e.index, (partialText.get(e.index) ?? '') + e.text);
              ctx.emit({ type: 'text.delta', step: opts.step, index: e.index, text: e.text });
            } else if (e.type === 'thinking') ctx.emit({ type: 'thinking.delta', step: opts.step, index: e.index, text: e.text });
            else if (e.type === 'tool_start') ctx.emit({ type: 'tool.started', step: opts.step, index: e.index, toolUseId: e.id, tool: e.name });
            else ctx.emit({ type: 'tool.input.delta', step: opts.step, index: e.index, toolUseId: e.id, partialJson: e.partialJson });
          }
        : undefined,
      onRetry: (r) => {
        partialText.clear();
        ctx.emit({ type: 'retry', step: opts.step, attempt: r.attempt, maxRetries: r.maxRetries, delayMs: r.delayMs, reason: r.reason, status: r.status });
      },
    });
    const usd = priceUsage(response.usage, profile.prices);
    ctx.deps.costs.record({ sessionId: ctx.sessionId, turnId: ctx.turnId, purpose, profile: profile.name, model: response.model || profile.model, usage: response.usage, usd });
    ctx.emit({ type: 'usage', step: opts.step, purpose, profile: profile.name, model: response.model || profile.model, usage: response.usage, usd, stopReason: response.stopReason });
    ctx.deps.sessionChanged(ctx.sessionId);
    return { response, partial: [], error: null };
  } catch (e) {
    const error = e instanceof ProviderError ? e : new ProviderError('connection', e instanceof Error ? e.message : String(e));
    const partial: StoredBlock[] = [...partialText.entries()].sort((a, b) => a[0] - b[0]).map(([, text]) => ({ type: 'text', text }));
    return { response: null, partial: partial.filter((b) => b.type === 'text' && b.text.length > 0), error };
  }
}
