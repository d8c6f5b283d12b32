/**
 * Seed 001 §3.3 `maybeCompact`: before every model call, when the estimated context passes
 * the configured share of the model's window, older turns are summarized by a model call and
 * replaced by the summary. `/compact` runs the same thing unconditionally.
 */
import { toContractMessage } from '../store/message-repo';
import { TOOLS } from '../tools';
import { planCompaction, SUMMARY_MAX_TOKENS, SUMMARY_SYSTEM_PROMPT, summaryText, transcriptOf } from './compaction';
import { estimateTokens, toApiMessages } from './context';
import { callModel } from './model-call';
import { systemPrompt } from './system-prompt';
import type { TurnContext } from './turn-context';
import { textOf } from '../store/blocks';

export const TOOL_SPECS = TOOLS.map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema }));

export function contextTokens(ctx: TurnContext): number {
  const s = ctx.session();
  const system = systemPrompt({ root: s.root, mode: s.mode, todos: s.todos, complex: ctx.complex, instructions: s.state.instructions });
  return estimateTokens(system, toApiMessages(ctx.deps.messages.live(ctx.sessionId)), TOOL_SPECS);
}

export type CompactResult = { done: true; before: number; after: number; count: number } | { done: false; reason: string };

export async function maybeCompact(ctx: TurnContext, trigger: 'auto' | 'manual'): Promise<CompactResult> {
  const s = ctx.session();
  const before = contextTokens(ctx);
  const profile = ctx.deps.profiles.resolve(s.profile, s.model);
  const threshold = Math.floor(profile.contextWindow * ctx.deps.settings().compactAtShare);
  if (trigger === 'auto' && before <= threshold) return { done: false, reason: 'below threshold' };
  const messages = ctx.deps.messages.live(ctx.sessionId);
  const plan = planCompaction(messages, trigger === 'auto' ? ctx.turnId : null);
  if (!plan) {
    const reason = 'there are no older turns to summarize (the recent turns are always kept word for word)';
    if (trigger === 'auto' && !ctx.compactionStuck) {
      ctx.compactionStuck = true;
      ctx.emit({ type: 'notice', level: 'warning', text: `The context (~${before} tokens) is over ${Math.round(ctx.deps.settings().compactAtShare * 100)}% of the model window, but ${reason}.` });
    }
    return { done: false, reason };
  }
  const call = await callModel(
    ctx,
    'compaction',
    {
      system: SUMMARY_SYSTEM_PROMPT,
      messages: [{ role: 'user', content: [{ type: 'text', text: `${transcriptOf(plan.summarize)}\n\n---\nWrite the summary of the conversation above now.` }] }],
      tools: [],
      maxTokens: Math.min(SUMMARY_MAX_TOKENS, profile.maxTokens),
    },
    { stream: false, step: ctx.step },
  );
  if (!call.response) {
    if (call.error?.kind === 'cancelled') return { done: false, reason: 'cancelled' };
    const reason = `the summary call failed: ${call.error?.message ?? 'unknown error'}`;
    ctx.emit({ type: 'notice', level: 'warning', text: `Compaction skipped: ${reason}` });
    return { done: false, reason };
  }
  const summary = textOf(call.response.blocks).trim() || '(the model returned an empty summary)';
  const firstKept = plan.keep[0]?.ord ?? null;
  const m = ctx.deps.messages.compact(ctx.sessionId, plan.summarize.map((x) => x.id), { turnId: ctx.turnId, blocks: [{ type: 'text', text: summaryText(summary, plan.summarize.length) }] }, firstKept);
  const after = contextTokens(ctx);
  ctx.emit({ type: 'compaction', trigger, beforeTokens: before, afterTokens: after, summarizedMessages: plan.summarize.length });
  ctx.emit({ type: 'message', message: toContractMessage(m) });
  return { done: true, before, after, count: plan.summarize.length };
}
