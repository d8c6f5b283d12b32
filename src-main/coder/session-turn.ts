/**
 * A Flightdeck session's chat turn run by Claude Code instead of the built-in loop. Same
 * signature as the engine's RunInput body, so the engine hands a claude-code session's input
 * here and everything around the turn (status, turn.started/ended, cancel, restart) stays its.
 *
 * What the user sees is the built-in session's vocabulary: streamed text and thinking, tool
 * cards (engine tool names), approvals through the same gate (policy, session rules, hard
 * floor, the dialog), usage and cost at the profile's prices, errors with their seed 000 kind.
 * The Claude Code conversation id is kept per session, so the next turn resumes it.
 *
 * Checkpoints (issue 25 §2): the working tree is captured before and after the turn and the
 * difference kept as the turn's undo snapshot (tree-snapshot.ts), and the turn's last message in
 * the conversation is kept as its point; /rewind and fork set where the next turn resumes
 * (conversation-resume.ts).
 */
import type { ClaudeDetection, CoderSettings, InjectedFile } from '../../src-preload/contract';
import type { TurnEnd } from '../agents/orchestrator/run-turn';
import type { TurnContext } from '../agents/orchestrator/turn-context';
import { newId } from '../agents/ids';
import { withPoint } from '../agents/orchestrator/conversation-points';
import { captureWorkingTree, snapshotBetween } from '../agents/orchestrator/tree-snapshot';
import { gitWorkTree, putSnapshot } from '../agents/orchestrator/undo';
import type { ConversationPoint, SessionState } from '../agents/store/session-repo';
import { conversationFile, replayPrompt } from './conversation-resume';
import { priceUsage } from '../agents/provider/pricing';
import { normalizeExternalTool } from '../approvals/external-tools';
import { isRetryableKind } from './core/backoff';
import { StreamEventMapper } from './core/events';
import type { CoderBackend } from './core/launch';
import type { Sandbox } from './core/params';
import { withRelativePaths } from './core/tool-map';
import type { ApprovalHook } from './approval-hook';
import { runCoder } from './coder';
import { CountedToolUses } from './counted-tools';
import { buildCoderPrompt } from './constraints';
import type { CoderSessionRepo } from './session-repo';
import { sessionSandboxPolicy, type HiddenPath } from '../sandbox/policy';

/** The goal kept for a lost conversation's context pack: the first task, not a whole essay. */
const GOAL_CHARS = 4_000;

export interface SessionTurnDeps {
  repo: CoderSessionRepo;
  settings(): CoderSettings;
  detect(): Promise<ClaudeDetection>;
  /** Paths Claude Code's Bash must not read (Flightdeck's data folder). */
  hidden?: readonly HiddenPath[];
  /** Tests: HOME, CLAUDE_CODE_MAX_RETRIES… */
  envOverrides?: Readonly<Record<string, string | undefined>>;
  killGraceMs?: number;
  /** A session's Claude Code state changed (for coder.sessions.changed). */
  changed(sessionId: string): void;
  /** The MCP servers the session's project uses (`--mcp-config`); absent = none. */
  mcpServers?(projectId: string | null): Record<string, Record<string, unknown>>;
  /** A tool result as shown and stored: an MCP server's secrets hidden, as the built-in loop hides them. */
  redactToolResult?(tool: string, text: string): string;
}

export function sandboxForMode(mode: string, chosen: Sandbox = 'workspace-write'): Sandbox {
  // plan mode: explore and propose, never change files. Other modes use the session's sandbox
  // (workspace-write unless the user chose otherwise) and leave every other decision to the
  // gate (yolo lets commands run unasked there).
  return mode === 'plan' ? 'read-only' : chosen;
}

export function authModeFor(preset: string | undefined, baseUrl: string): CoderBackend['authMode'] {
  return preset === 'anthropic' || /^https:\/\/api\.anthropic\.com(\/|$)/.test(baseUrl) ? 'api-key' : 'auth-token';
}

/**
 * How long a tool's approval request waits for its call's usage to be counted (counted-tools.ts).
 * The call's usage comes while the CLI waits for the answer, so the wait ends there; this bound
 * only matters if the stream stalls.
 */
const TOOL_SEEN_WAIT_MS = 10_000;

/**
 * The gate, behind the turn's limits. A budget or turn limit is checked when the CLI reports a
 * call (its usage, on stdout), and that line may be read after the approval request of a tool the
 * same call proposed (a separate connection). The request waits until the call's usage has been
 * counted (at most TOOL_SEEN_WAIT_MS); past a limit it is not answered until the run has
 * stopped the CLI: the tool never runs and the CLI, waiting for the answer, makes no next call
 * (a refusal would go back to the model as that next call). This is `admit`, which the hook asks
 * before any verdict: its own refusals (outside the sandbox, out of scope, a special file) would
 * go back to the model too.
 */
export function limitedGate(gate: ApprovalHook, limits: { refusal(): string | null; seen(toolUseId: string, signal: AbortSignal): Promise<void> }): ApprovalHook {
  return {
    async admit(r, signal) {
      if (r.toolUseId) await limits.seen(r.toolUseId, signal);
      const refusal = limits.refusal();
      if (refusal === null) return null;
      if (!signal.aborted) await new Promise<void>((done) => signal.addEventListener('abort', () => done(), { once: true }));
      return { allow: false, reason: refusal };
    },
    decide: (r, signal) => gate.decide(r, signal),
  };
}

function gateHook(ctx: TurnContext): ApprovalHook {
  return {
    async decide(r, signal) {
      const s = ctx.session();
      const claudeInput = withRelativePaths(r.claudeTool, r.claudeInput, r.cd);
      const { tool, input } = normalizeExternalTool(r.claudeTool, claudeInput);
      // The dialog is about to wait on the user: say so, like the built-in loop does.
      const asks = ctx.deps.gate.evaluate(ctx.sessionId, tool, input, s.mode).decision === 'ask';
      if (asks) ctx.setStatus('awaiting_approval');
      try {
        return await ctx.deps.gate.decide({
          sessionId: ctx.sessionId,
          tool: r.claudeTool,
          input: claudeInput,
          mode: s.mode,
          toolUseId: r.toolUseId || undefined,
          turnId: ctx.turnId,
          source: 'claude-code',
          // The turn's signal carries "cancel" or "shutdown": a shutdown leaves the approval pending.
          signal: AbortSignal.any([signal, ctx.signal]),
        });
      } finally {
        if (asks && !ctx.stopped) ctx.setStatus('running');
      }
    },
  };
}

export async function runClaudeCodeTurn(ctx: TurnContext, rawInput: string, d: SessionTurnDeps): Promise<TurnEnd> {
  const s = ctx.session();
  const text = rawInput.trim();
  ctx.addMessage('user', 'chat', [{ type: 'text', text }]);
  let cfg = d.repo.get(ctx.sessionId);
  if (cfg.goal === null) cfg = d.repo.update(ctx.sessionId, { goal: text.slice(0, GOAL_CHARS) });

  const fail = (code: string, message: string, retryable = false): TurnEnd => {
    ctx.emit({ type: 'error', code, message, retryable });
    return { outcome: 'failed', message };
  };

  const profile = ctx.deps.profiles.get(s.profile);
  const resolved = ctx.deps.profiles.resolve(s.profile, s.model);
  if (!resolved.apiKey) return fail('config_error', `The provider profile "${s.profile}" has no API key. Add one in Settings → Providers, then send the message again.`);
  const detection = await d.detect();
  if (!detection.found || !detection.path) return fail('command_not_found', detection.message);

  // After a rewind or a fork: where the conversation continues (else: the session's own conversation).
  const resumeAt = s.state.resumeAt;
  const history = () => ctx.deps.messages.live(ctx.sessionId).filter((m) => m.turnId !== ctx.turnId);
  let resumeFrom: { target: string; messageId: string } | null = null;
  // Turns the built-in loop ran since the rewind or fork are not in that conversation: replay them too.
  const prior = ctx.deps.messages.chatTurns(ctx.sessionId).filter((t) => t.turnId !== ctx.turnId).at(-1);
  const pointTurn = resumeAt?.kind === 'at' ? s.state.points?.find((p) => p.conversationId === resumeAt.conversationId && p.messageId === resumeAt.messageId)?.turnId : undefined;
  let replay = resumeAt?.kind === 'replay' || (resumeAt?.kind === 'fresh' && prior !== undefined) || (resumeAt?.kind === 'at' && pointTurn !== prior?.turnId);
  if (resumeAt?.kind === 'at' && !replay) {
    // Claude Code files conversations by folder: from another folder (a fork's worktree) its file is named.
    const target = resumeAt.cwd === s.root ? resumeAt.conversationId : conversationFile({ ...process.env, ...d.envOverrides }, resumeAt.conversationId);
    if (target) resumeFrom = { target, messageId: resumeAt.messageId };
    else replay = true;
  }
  const startsNew = resumeFrom === null && (resumeAt !== undefined || cfg.claudeSessionId === null);

  let prompt = text;
  let injected: InjectedFile[] = [];
  if (startsNew && cfg.injectConstraints) {
    const built = await buildCoderPrompt({ task: text, cd: s.root, inject: true });
    if (built.refused.length > 0) ctx.emit({ type: 'notice', level: 'warning', text: `Engineering constraints left out of the prompt: ${built.refused.map((f) => `${f.path} (${f.reason})`).join('; ')}.` });
    if (built.injected.length > 0) {
      prompt = built.prompt;
      injected = built.injected;
      ctx.emit({ type: 'notice', level: 'info', text: `Engineering constraints injected into the prompt: ${injected.map((f) => f.path + (f.truncated ? ' (truncated)' : '')).join(', ')}.` });
    }
    d.repo.update(ctx.sessionId, { injected });
    d.changed(ctx.sessionId);
  }
  if (replay) prompt = replayPrompt(history(), prompt);

  const mapper = new StreamEventMapper({
    sessionId: ctx.sessionId,
    turnId: ctx.turnId,
    profile: s.profile,
    model: s.model,
    newMessageId: () => newId('msg'),
    now: Date.now,
    price: (u) => priceUsage(u, resolved.prices),
    persist: (role, kind, blocks) => void ctx.addMessage(role, kind, blocks),
    ...(d.redactToolResult ? { redactToolResult: d.redactToolResult } : {}),
  });
  let seenSession: string | null = null;
  /** The turn's last message in the main conversation (a subagent's are in a side chain): its point. */
  let lastMessage: string | null = null;
  // Budgets and turn limits: the calls happen inside the CLI, so the run is asked before it starts
  // and after each call it reports, and ended before the next one when a limit refuses.
  const limit = new AbortController();
  let refusal = ctx.deps.callGuard?.(ctx.sessionId) ?? null;
  if (refusal) return fail('limit', refusal);
  // Tool uses whose call's usage has been counted (and a limit checked): only these are decided.
  const counted = new CountedToolUses();
  const forward = (events: ReturnType<StreamEventMapper['map']>) => {
    for (const e of events) {
      if (e.type === 'usage' && !ctx.stopped) {
        ctx.deps.costs.record({ sessionId: ctx.sessionId, turnId: ctx.turnId, purpose: 'turn', profile: s.profile, model: e.model, usage: e.usage, usd: e.usd });
        if (!refusal) {
          refusal = ctx.deps.callGuard?.(ctx.sessionId) ?? null;
          if (refusal) limit.abort();
        }
      }
      ctx.emit(e);
    }
    ctx.step = mapper.steps;
  };

  const settings = d.settings();
  const before = await captureTree(ctx, s.root);
  const result = await runCoder(
    {
      PROMPT: prompt,
      cd: s.root,
      sandbox: sandboxForMode(s.mode, s.state.sandbox),
      ...(cfg.claudeSessionId && resumeAt === undefined ? { SESSION_ID: cfg.claudeSessionId } : {}),
      timeout: settings.idleTimeoutS,
      max_duration: settings.maxDurationS,
    },
    {
      claudePath: detection.path,
      backend: { profile: s.profile, baseUrl: resolved.baseUrl, apiKey: resolved.apiKey, model: s.model, authMode: authModeFor(profile?.preset, resolved.baseUrl) },
      gate: limitedGate(gateHook(ctx), { refusal: () => refusal, seen: (id, signal) => counted.counted(id, signal, TOOL_SEEN_WAIT_MS) }),
      signal: AbortSignal.any([ctx.signal, limit.signal]),
      checkContract: cfg.injectConstraints,
      goal: cfg.goal,
      envOverrides: d.envOverrides,
      network: sessionSandboxPolicy({ root: s.root, mode: s.mode, sandbox: s.state.sandbox }, ctx.deps.settings()).network,
      ...(d.hidden ? { hidden: d.hidden } : {}),
      ...(s.state.instructions ? { sessionInstructions: s.state.instructions } : {}),
      ...(d.mcpServers ? { mcpServers: d.mcpServers(s.projectId) } : {}),
      killGraceMs: d.killGraceMs,
      ...(resumeFrom ? { resumeFrom } : {}),
      // A rewind's or fork's conversation that cannot be resumed is rebuilt from the transcript, not the contract's pack.
      ...(resumeAt !== undefined ? { lostSessionPrompt: (task: string) => replayPrompt(history(), task) } : {}),
      onMessage: (m) => {
        if (m.type === 'system' && m.subtype === 'init' && typeof m.session_id === 'string') seenSession = m.session_id;
        if (m.type === 'assistant' && typeof m.uuid === 'string' && (m.parent_tool_use_id ?? null) === null) lastMessage = m.uuid;
        forward(mapper.map(m));
        // After forward: a call's usage is counted (and a limit checked) before its tools are released.
        counted.note(m);
      },
      onAttempt: (info) => {
        lastMessage = null;
        if (info.reason === 'new_session' && resumeAt !== undefined) {
          ctx.emit({ type: 'notice', level: 'warning', text: 'The Claude Code conversation could not be resumed at that turn (it or its message is gone from this machine). Continuing in a new one, with the transcript up to that turn replayed as context.' });
        } else if (info.reason === 'new_session') {
          ctx.emit({ type: 'notice', level: 'warning', text: `The Claude Code conversation ${cfg.claudeSessionId} could not be resumed (it is gone from this machine). Continuing in a new one, primed with the goal, contract, scope, assumptions and acceptance criteria.` });
        }
      },
    },
  );
  forward(mapper.flush());
  if (ctx.stopped) return { outcome: 'interrupted', message: null };
  await recordFiles(ctx, s.root, before);

  if (result.success) {
    d.repo.update(ctx.sessionId, { claudeSessionId: result.SESSION_ID });
    const point = lastMessage ? { turnId: ctx.turnId, conversationId: result.SESSION_ID, messageId: lastMessage, cwd: s.root } : null;
    recordConversation(ctx, point);
    d.changed(ctx.sessionId);
    return { outcome: 'completed', message: null };
  }
  // A failed run still left a conversation on disk (a timeout mid-way): the next turn resumes it.
  if (seenSession !== null && seenSession !== cfg.claudeSessionId) {
    d.repo.update(ctx.sessionId, { claudeSessionId: seenSession });
    // The rewind's or fork's resume happened: the next turn continues this conversation.
    recordConversation(ctx, null);
    d.changed(ctx.sessionId);
  }
  if (refusal && !ctx.aborted) return fail('limit', refusal);
  if (result.error_kind === 'cancelled') return { outcome: 'cancelled', message: 'Cancelled by the user.' };
  return fail(result.error_kind, result.error, isRetryableKind(result.error_kind));
}

/** The working tree before the turn, or null when it cannot be checkpointed (said once, the turn still runs). */
async function captureTree(ctx: TurnContext, root: string): Promise<string | null> {
  if (!(await gitWorkTree(root))) return null;
  try {
    return await captureWorkingTree(root);
  } catch (e) {
    ctx.emit({ type: 'notice', level: 'warning', text: `This turn's file changes are not checkpointed (/undo and /rewind will not put them back): ${e instanceof Error ? e.message : String(e)}` });
    return null;
  }
}

/** What the turn changed in the working tree becomes its undo snapshot, as write/patch record theirs. */
async function recordFiles(ctx: TurnContext, root: string, before: string | null): Promise<void> {
  if (before === null) return;
  try {
    const snap = await snapshotBetween(root, before, await captureWorkingTree(root), ctx.turnId);
    if (!snap || ctx.stopped) return;
    const state = ctx.session().state;
    // New changes end /redo, as a write does.
    ctx.update({ state: { ...state, undo: putSnapshot(state.undo, snap), redo: [] } });
  } catch (e) {
    ctx.emit({ type: 'notice', level: 'warning', text: `This turn's file changes could not be checkpointed (/undo and /rewind will not put them back): ${e instanceof Error ? e.message : String(e)}` });
  }
}

/** A conversation ran: the rewind's or fork's resume point is used up, and the turn's point (if any) is kept. */
function recordConversation(ctx: TurnContext, point: ConversationPoint | null): void {
  const { resumeAt: _used, ...state }: SessionState = ctx.session().state;
  ctx.update({ state: { ...state, ...(point ? { points: withPoint(state.points, point) } : {}) } });
}
