/**
 * A Flightdeck session's chat turn run by Claude Code instead of the built-in loop. Same
 * signature as the engine's RunInput body, so the engine hands a claude-code session's input
 * here and everything around the turn (status, turn.started/ended, cancel, restart) stays its.
 *
 * What the user sees is the built-in session's vocabulary: streamed text and thinking, tool
 * cards (engine tool names), approvals through the same gate (policy, session rules, hard
 * floor, the dialog), usage and cost at the profile's prices, errors with their seed 000 kind.
 * The Claude Code conversation id is kept per session, so the next turn resumes it.
 */
import type { ClaudeDetection, CoderSettings, InjectedFile } from '../../src-preload/contract';
import type { TurnEnd } from '../agents/orchestrator/run-turn';
import type { TurnContext } from '../agents/orchestrator/turn-context';
import { newId } from '../agents/ids';
import { priceUsage } from '../agents/provider/pricing';
import { normalizeExternalTool } from '../approvals/external-tools';
import { isRetryableKind } from './core/backoff';
import { StreamEventMapper } from './core/events';
import type { CoderBackend } from './core/launch';
import type { Sandbox } from './core/params';
import { withRelativePaths } from './core/tool-map';
import type { ApprovalHook } from './approval-hook';
import { runCoder } from './coder';
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

/** Approval requests of the run, answered by the session's gate with the session's mode. */
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

  let prompt = text;
  let injected: InjectedFile[] = [];
  if (cfg.claudeSessionId === null && cfg.injectConstraints) {
    const built = await buildCoderPrompt({ task: text, cd: s.root, inject: true });
    if (built.injected.length > 0) {
      prompt = built.prompt;
      injected = built.injected;
      ctx.emit({ type: 'notice', level: 'info', text: `Engineering constraints injected into the prompt: ${injected.map((f) => f.path + (f.truncated ? ' (truncated)' : '')).join(', ')}.` });
    }
    d.repo.update(ctx.sessionId, { injected });
    d.changed(ctx.sessionId);
  }

  const mapper = new StreamEventMapper({
    sessionId: ctx.sessionId,
    turnId: ctx.turnId,
    profile: s.profile,
    model: s.model,
    newMessageId: () => newId('msg'),
    now: Date.now,
    price: (u) => priceUsage(u, resolved.prices),
    persist: (role, kind, blocks) => void ctx.addMessage(role, kind, blocks),
  });
  let seenSession: string | null = null;
  // Budgets and turn limits: the calls happen inside the CLI, so the run is asked before it starts
  // and after each call it reports, and ended before the next one when a limit refuses.
  const limit = new AbortController();
  let refusal = ctx.deps.callGuard?.(ctx.sessionId) ?? null;
  if (refusal) return fail('limit', refusal);
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
  const result = await runCoder(
    {
      PROMPT: prompt,
      cd: s.root,
      sandbox: sandboxForMode(s.mode, s.state.sandbox),
      ...(cfg.claudeSessionId ? { SESSION_ID: cfg.claudeSessionId } : {}),
      timeout: settings.idleTimeoutS,
      max_duration: settings.maxDurationS,
    },
    {
      claudePath: detection.path,
      backend: { profile: s.profile, baseUrl: resolved.baseUrl, apiKey: resolved.apiKey, model: s.model, authMode: authModeFor(profile?.preset, resolved.baseUrl) },
      gate: gateHook(ctx),
      signal: AbortSignal.any([ctx.signal, limit.signal]),
      checkContract: cfg.injectConstraints,
      goal: cfg.goal,
      envOverrides: d.envOverrides,
      network: sessionSandboxPolicy({ root: s.root, mode: s.mode, sandbox: s.state.sandbox }, ctx.deps.settings()).network,
      ...(d.hidden ? { hidden: d.hidden } : {}),
      ...(s.state.instructions ? { sessionInstructions: s.state.instructions } : {}),
      ...(d.mcpServers ? { mcpServers: d.mcpServers(s.projectId) } : {}),
      killGraceMs: d.killGraceMs,
      onMessage: (m) => {
        if (m.type === 'system' && m.subtype === 'init' && typeof m.session_id === 'string') seenSession = m.session_id;
        forward(mapper.map(m));
      },
      onAttempt: (info) => {
        if (info.reason === 'new_session') {
          ctx.emit({ type: 'notice', level: 'warning', text: `The Claude Code conversation ${cfg.claudeSessionId} could not be resumed (it is gone from this machine). Continuing in a new one, primed with the goal, contract, scope, assumptions and acceptance criteria.` });
        }
      },
    },
  );
  forward(mapper.flush());
  if (ctx.stopped) return { outcome: 'interrupted', message: null };

  if (result.success) {
    d.repo.update(ctx.sessionId, { claudeSessionId: result.SESSION_ID });
    d.changed(ctx.sessionId);
    return { outcome: 'completed', message: null };
  }
  // A failed run still left a conversation on disk (a timeout mid-way): the next turn resumes it.
  if (seenSession !== null && seenSession !== cfg.claudeSessionId) {
    d.repo.update(ctx.sessionId, { claudeSessionId: seenSession });
    d.changed(ctx.sessionId);
  }
  if (refusal && !ctx.aborted) return fail('limit', refusal);
  if (result.error_kind === 'cancelled') return { outcome: 'cancelled', message: 'Cancelled by the user.' };
  return fail(result.error_kind, result.error, isRetryableKind(result.error_kind));
}
