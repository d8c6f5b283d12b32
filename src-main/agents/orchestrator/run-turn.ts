/**
 * Seed 001 §3, RunTurn: the model/tool loop of one ordinary turn, and its continuation after
 * a restart when an approval the turn waited on is answered.
 */
import type { ImageAttachment, TurnOutcome } from '../../../src-preload/contract';
import { imageBlock, type StoredBlock } from '../store/blocks';
import { autoVerify } from './auto-verify';
import { maybeCompact, TOOL_SPECS } from './compact';
import { assessComplexity, initialTodos } from './complexity';
import { toApiMessages } from './context';
import { callModel } from './model-call';
import { readProjectConfig } from './project-config';
import { systemPrompt } from './system-prompt';
import { recordPostImages, runToolCall } from './tool-exec';
import type { TurnContext } from './turn-context';
import { asksForVerification } from './verify-detect';

export interface TurnEnd {
  outcome: TurnOutcome;
  message: string | null;
}

export const STEP_LIMIT_MESSAGE = 'step limit reached';
const CANCELLED: TurnEnd = { outcome: 'cancelled', message: 'Cancelled by the user.' };

export async function runTurn(ctx: TurnContext, userInput: string, images: readonly ImageAttachment[] = []): Promise<TurnEnd> {
  // Images first, then the words about them: the order Anthropic recommends.
  ctx.addMessage('user', 'chat', [...images.map(imageBlock), { type: 'text', text: userInput }]);
  ctx.verifyRequested = asksForVerification(userInput);
  const c = assessComplexity(userInput);
  ctx.emit({ type: 'complexity', complex: c.complex, rule: c.rule });
  if (c.complex) {
    ctx.complex = true;
    const s = ctx.session();
    const { config } = readProjectConfig(ctx.deps.configDir(s));
    if (config.workflow.todoAutoInit && s.todos.every((t) => t.status === 'done')) {
      const todos = initialTodos(userInput, c);
      ctx.update({ todos });
      ctx.emit({ type: 'todo.updated', todos });
    }
  }
  return withPostImages(ctx, loop(ctx));
}

/** The turn's end, after recording what it left in the files it changed (for /undo). */
async function withPostImages(ctx: TurnContext, body: Promise<TurnEnd | null>): Promise<TurnEnd> {
  try {
    return (await body) ?? (await loop(ctx));
  } finally {
    await recordPostImages(ctx);
  }
}

/** Continues a turn whose last assistant message still has tool calls without results. */
export async function resumeTurn(ctx: TurnContext): Promise<TurnEnd> {
  const live = ctx.deps.messages.live(ctx.sessionId);
  const mine = live.filter((m) => m.turnId === ctx.turnId);
  const userText = mine.find((m) => m.role === 'user' && m.kind === 'chat')?.blocks.find((b) => b.type === 'text');
  ctx.verifyRequested = userText?.type === 'text' && asksForVerification(userText.text);
  ctx.step = mine.filter((m) => m.role === 'assistant').length;
  const lastAssistant = [...live].reverse().find((m) => m.role === 'assistant');
  if (lastAssistant && lastAssistant.turnId === ctx.turnId) {
    const answered = new Set(live.filter((m) => m.role === 'tool').flatMap((m) => m.blocks.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id)));
    const pending = lastAssistant.blocks.filter((b): b is Extract<StoredBlock, { type: 'tool_use' }> => b.type === 'tool_use' && !answered.has(b.id));
    return withPostImages(ctx, runToolUses(ctx, pending));
  }
  return withPostImages(ctx, loop(ctx));
}

async function runToolUses(ctx: TurnContext, uses: ReadonlyArray<Extract<StoredBlock, { type: 'tool_use' }>>): Promise<TurnEnd | null> {
  for (const u of uses) {
    if (ctx.aborted) {
      if (ctx.abortKind === 'shutdown') return { outcome: 'interrupted', message: null };
      ctx.addMessage('tool', 'chat', [{ type: 'tool_result', tool_use_id: u.id, content: 'Not run — the turn was cancelled.', is_error: true }]);
      continue;
    }
    const o = await runToolCall(ctx, { id: u.id, name: u.name, input: u.input });
    // After a shutdown the call stays without a result: the restarted app resumes it.
    if (ctx.abortKind === 'shutdown') return { outcome: 'interrupted', message: null };
    ctx.addMessage('tool', 'chat', [{ type: 'tool_result', tool_use_id: u.id, content: o.content, is_error: o.isError }]);
  }
  return ctx.aborted ? endAborted(ctx) : null;
}

function endAborted(ctx: TurnContext): TurnEnd {
  return ctx.abortKind === 'shutdown' ? { outcome: 'interrupted', message: 'The app stopped during this turn.' } : CANCELLED;
}

async function loop(ctx: TurnContext): Promise<TurnEnd> {
  for (;;) {
    if (ctx.aborted) return endAborted(ctx);
    if (ctx.step >= ctx.deps.settings().maxSteps) {
      ctx.emit({ type: 'notice', level: 'warning', text: `${STEP_LIMIT_MESSAGE} (${ctx.deps.settings().maxSteps} model calls in this turn). Send another message to continue.` });
      return { outcome: 'step_limit', message: STEP_LIMIT_MESSAGE };
    }
    ctx.step++;
    await maybeCompact(ctx, 'auto');
    if (ctx.aborted) return endAborted(ctx);
    for (const text of (await ctx.deps.prepareExtraTools?.(ctx.sessionId)) ?? []) ctx.emit({ type: 'notice', level: 'warning', text });
    if (ctx.aborted) return endAborted(ctx);
    const s = ctx.session();
    const call = await callModel(
      ctx,
      'turn',
      { system: systemPrompt({ root: s.root, mode: s.mode, todos: s.todos, complex: ctx.complex, instructions: s.state.instructions }), messages: toApiMessages(ctx.deps.messages.live(ctx.sessionId)), tools: [...offeredTools(s), ...ctx.deps.extraTools(ctx.sessionId, s.mode).map((t) => t.spec)] },
      { stream: true, step: ctx.step },
    );
    if (!call.response) {
      if (ctx.abortKind === 'shutdown') return endAborted(ctx);
      if (call.partial.length > 0) ctx.addMessage('assistant', 'chat', call.partial);
      if (call.error?.kind === 'cancelled' || ctx.aborted) return endAborted(ctx);
      const message = call.error?.message ?? 'The model call failed.';
      ctx.emit({ type: 'error', code: call.error?.kind ?? 'provider', message, retryable: false });
      return { outcome: 'failed', message };
    }
    const blocks = call.response.blocks.filter((b) => !(b.type === 'text' && b.text === ''));
    if (blocks.length > 0) ctx.addMessage('assistant', 'chat', blocks);
    const uses = blocks.filter((b): b is Extract<StoredBlock, { type: 'tool_use' }> => b.type === 'tool_use');
    if (uses.length === 0) {
      if (call.response.stopReason === 'max_tokens') {
        ctx.emit({ type: 'notice', level: 'warning', text: 'The answer stopped at the profile\'s max tokens; raise it in the provider profile or ask the agent to continue.' });
      }
      if ((await autoVerify(ctx)) === 'continue') continue;
      return ctx.aborted ? endAborted(ctx) : { outcome: 'completed', message: null };
    }
    const end = await runToolUses(ctx, uses);
    if (end) return end;
  }
}

/**
 * A session with a role (a feature's or autopilot's Planner / Coder) is offered only its role's
 * tools, as the features' workflow defines them. A user's own session keeps seeing switched-off tools: the
 * refusal tells the model the user turned them off, which it can explain.
 */
function offeredTools(s: { disabledTools: readonly string[]; state: { role?: string } }): typeof TOOL_SPECS {
  return s.state.role ? TOOL_SPECS.filter((t) => !s.disabledTools.includes(t.name)) : TOOL_SPECS;
}
