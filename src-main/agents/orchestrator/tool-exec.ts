/**
 * Seed 001 §4, one tool call: tool switch → policy (allow/ask/deny, hard floor, mode) →
 * approval → execute → result. `yolo + bash` is allowed by the policy without asking; the
 * hard floor still applies before it.
 */
import { ApprovalAbortedError, approvalDiff } from '../../approvals/gate';
import { TOOLS, toolByName } from '../tools';
import { ToolError } from '../tools/root-guard';
import type { ToolContext, ToolOutcome } from '../tools/types';
import type { TurnContext } from './turn-context';
import { sessionSandboxPolicy } from '../../sandbox/policy';
import { addPre, capturePosts, capturePre, gitWorkTree, hasPre, setPosts } from './undo';
import { guardBeforeWrite } from './verify-guard';

/** What the model receives from one tool call at most; a bigger result is cut with a note. */
export const MAX_TOOL_RESULT_CHARS = 100_000;
/** What a `tool.result` event carries: enough for the UI card; the message holds the full text. */
export const MAX_EVENT_RESULT_CHARS = 20_000;
/** Live output shown per command; beyond it the UI gets a notice (the result still has head and tail). */
const MAX_LIVE_OUTPUT_CHARS = 1_000_000;

export interface ToolCall {
  id: string;
  name: string;
  input: Record<string, unknown>;
}

export interface ToolCallOutcome {
  content: string;
  isError: boolean;
  exitCode: number | null;
  /** Whether the tool actually ran (not denied, not cancelled before it started). */
  ran: boolean;
  edited?: string;
  cancelled: boolean;
  /** A command's stdout and stderr apart (bash, when the runner captured them so). */
  streams?: { stdout: string; stderr: string };
}

function cap(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}\n… [${text.length - max} more characters cut]` : text;
}

export async function runToolCall(ctx: TurnContext, call: ToolCall, source = 'agent'): Promise<ToolCallOutcome> {
  const started = Date.now();
  const finish = (o: ToolCallOutcome): ToolCallOutcome => {
    const content = cap(o.content, MAX_TOOL_RESULT_CHARS);
    ctx.emit({
      type: 'tool.result',
      toolUseId: call.id,
      tool: call.name,
      isError: o.isError,
      content: cap(content, MAX_EVENT_RESULT_CHARS),
      exitCode: o.exitCode,
      ...(o.streams ? { stdout: cap(o.streams.stdout, MAX_EVENT_RESULT_CHARS), stderr: cap(o.streams.stderr, MAX_EVENT_RESULT_CHARS) } : {}),
      durationMs: Date.now() - started,
    });
    return { ...o, content };
  };
  const tool = toolByName(call.name);
  const extra = tool ? undefined : ctx.deps.extraTools(ctx.sessionId, ctx.session().mode).find((t) => t.spec.name === call.name);
  if (!tool && !extra) {
    return finish({ content: `Unknown tool "${call.name}". Available tools: ${TOOLS.map((t) => t.name).join(', ')}.`, isError: true, exitCode: null, ran: false, cancelled: false });
  }
  const s = ctx.session();
  const policy = ctx.deps.gate.evaluate(ctx.sessionId, call.name, call.input, s.mode);
  ctx.emit({ type: 'tool.decision', toolUseId: call.id, tool: call.name, decision: policy.decision, source: policy.source, reason: policy.reason, risk: policy.risk });
  if (policy.decision === 'deny') {
    return finish({ content: `Not run — ${policy.reason}`, isError: true, exitCode: null, ran: false, cancelled: false });
  }
  if (policy.decision === 'ask') {
    ctx.setStatus('awaiting_approval');
    try {
      const approval = await ctx.deps.gate.request(
        {
          sessionId: ctx.sessionId,
          turnId: ctx.turnId,
          toolUseId: call.id,
          tool: call.name,
          input: call.input,
          risk: policy.risk,
          reason: policy.reason,
          sessionRule: policy.sessionRule,
          diff: await approvalDiff(s.root, call.name, call.input),
          source,
        },
        ctx.signal,
      );
      if (approval.status !== 'approved') {
        const why = approval.status === 'cancelled' ? 'The approval was cancelled.' : `The user denied this call${approval.decisionReason ? `: ${approval.decisionReason}` : '.'}`;
        ctx.setStatus('running');
        return finish({ content: `Not run — ${why} Do not retry the same call; adjust the approach.`, isError: true, exitCode: null, ran: false, cancelled: approval.status === 'cancelled' });
      }
    } catch (e) {
      if (e instanceof ApprovalAbortedError) {
        return finish({ content: 'Not run — the turn was cancelled while this call waited for approval.', isError: true, exitCode: null, ran: false, cancelled: true });
      }
      throw e;
    }
    ctx.setStatus('running');
  }
  if (ctx.aborted) return finish({ content: 'Not run — the turn was cancelled.', isError: true, exitCode: null, ran: false, cancelled: true });

  let live = 0;
  let liveCut = false;
  const toolCtx: ToolContext = {
    root: s.root,
    signal: ctx.signal,
    runner: ctx.deps.runner(),
    env: ctx.deps.commandEnv(),
    bashTimeoutMs: ctx.deps.settings().bashTimeoutMs,
    sandbox: sessionSandboxPolicy({ root: s.root, mode: s.mode, sandbox: s.state.sandbox }, ctx.deps.settings()),
    onOutput: (chunk) => {
      if (liveCut) return;
      live += chunk.length;
      if (live > MAX_LIVE_OUTPUT_CHARS) {
        liveCut = true;
        ctx.emit({ type: 'notice', level: 'info', text: `Live output of this command passed ${MAX_LIVE_OUTPUT_CHARS} characters and is no longer shown; its head and tail go to the result.` });
        return;
      }
      ctx.emit({ type: 'tool.output', toolUseId: call.id, chunk });
    },
    owner: { sessionId: ctx.sessionId, ...(s.projectId ? { projectId: s.projectId } : {}) },
    onTerminal: (terminalId) => ctx.emit({ type: 'tool.output', toolUseId: call.id, chunk: '', terminalId }),
    todos: () => ctx.session().todos,
    setTodos: (todos) => {
      ctx.update({ todos });
      ctx.emit({ type: 'todo.updated', todos });
    },
    beforeWrite: async (rel) => {
      keepVerifyBaseline(ctx, rel);
      await snapshotBeforeWrite(ctx, rel);
    },
  };
  try {
    const out: ToolOutcome = tool ? await tool.run(call.input, toolCtx) : await extra!.run(call.input, { sessionId: ctx.sessionId, turnId: ctx.turnId, signal: ctx.signal });
    if (out.edited) {
      ctx.edited.add(out.edited);
      // What this change left, so /undo can tell later edits by someone else from the turn's own.
      await recordPostImages(ctx, [out.edited]);
    }
    return finish({
      content: out.content,
      isError: out.isError,
      exitCode: out.exitCode ?? null,
      ran: true,
      ...(out.edited ? { edited: out.edited } : {}),
      ...(out.streams ? { streams: out.streams } : {}),
      cancelled: ctx.aborted,
    });
  } catch (e) {
    if (e instanceof ToolError) return finish({ content: e.message, isError: true, exitCode: null, ran: true, cancelled: false });
    ctx.deps.logger.error('tool failed unexpectedly', { tool: call.name, error: e });
    return finish({ content: `The ${call.name} tool failed: ${e instanceof Error ? e.message : String(e)}`, isError: true, exitCode: null, ran: true, cancelled: ctx.aborted });
  }
}

/** Keeps the trusted content of a file that decides what auto-verify runs, before it changes. */
function keepVerifyBaseline(ctx: TurnContext, rel: string): void {
  const state = ctx.session().state;
  const guard = guardBeforeWrite(ctx.session().root, state.verifyGuard ?? {}, rel);
  if (guard) ctx.update({ state: { ...state, verifyGuard: guard } });
}

/** Records a file's pre-image (as a git blob) before the turn first changes it, for /undo. */
async function snapshotBeforeWrite(ctx: TurnContext, rel: string): Promise<void> {
  const root = ctx.session().root;
  if (hasPre(ctx.session().state.undo, ctx.turnId, rel)) return;
  ctx.gitRepo ??= await gitWorkTree(root);
  if (!ctx.gitRepo) return;
  const pre = await capturePre(root, rel);
  // Read again after the await: the state may have changed meanwhile. New changes end /redo.
  const state = ctx.session().state;
  ctx.update({ state: { ...state, undo: addPre(state.undo, ctx.turnId, rel, pre), redo: [] } });
}

/**
 * Records what the turn left in the files it changed (all of them, or `only`): after each
 * change, and again when the turn ends (bash may have changed them after the last write).
 */
export async function recordPostImages(ctx: TurnContext, only?: readonly string[]): Promise<void> {
  if (ctx.stopped) return;
  const snap = ctx.session().state.undo.find((u) => u.turnId === ctx.turnId);
  if (!snap) return;
  const root = ctx.session().root;
  try {
    const posts = await capturePosts(root, only ?? snap.files.map((f) => f.path));
    if (ctx.stopped) return;
    const state = ctx.session().state;
    ctx.update({ state: { ...state, undo: setPosts(state.undo, ctx.turnId, posts) } });
  } catch (e) {
    // Without a post-image /undo treats the file as changed since and asks: safe, just less smooth.
    ctx.deps.logger.warn('could not record what the turn left for /undo', { error: e });
  }
}
