/**
 * The approval gate: one place where a tool call that the policy answers "ask" waits for the
 * user. Approvals are persisted before they are shown, survive reloads and restarts, and
 * remember "approve for this session" by command family. `decide()` is the whole pipeline
 * (tool switch, hard floor, mode, session rules, preset, then the user) for executors other
 * than the built-in loop, e.g. the Claude Code executor routing its tool requests here.
 */
import { AppError, SessionId, type AgentEventData, type AgentMode, type Approval, type ApprovalDecision, type PolicyPreset, type RiskLevel } from '../../src-preload/contract';
import { newId } from '../agents/ids';
import { decideTool, type PolicyResult } from '../agents/policy/policy';
import type { HardFloorContext } from '../agents/policy/hard-floor';
import { previewPatch, previewWrite, writeTargetLinks } from '../agents/tools/file-tools';
import { previewDiff } from '../agents/tools/patch-apply';
import { resolveInRoot, ToolError } from '../agents/tools/root-guard';
import type { ApprovalRepo } from './approval-repo';
import { normalizeExternalTool } from './external-tools';

/** Tools whose `path` must stay inside the session root. */
const FILE_PATH_TOOLS = new Set(['read', 'write', 'patch', 'glob', 'grep']);

/** Why a wait on an approval ended early. A shutdown leaves the approval pending for after the restart. */
export interface AbortReason {
  kind: 'cancel' | 'shutdown';
}

export class ApprovalAbortedError extends Error {
  override readonly name = 'ApprovalAbortedError';
}

export interface PolicyContext {
  preset: PolicyPreset;
  disabledTools: readonly string[];
  hardFloor: boolean;
  floor?: HardFloorContext;
  /** The Coder role's guard applies (feature and autopilot agents). */
  roleGuard?: boolean;
  /** The session root, for confining file paths and previewing diffs. */
  root: string | null;
  /** Tools the user set to always allow or deny (MCP tools); null = ask as usual. */
  fixedPolicy?(tool: string): 'allow' | 'deny' | null;
}

export interface ApprovalSpec {
  sessionId: string;
  turnId: string | null;
  toolUseId: string;
  tool: string;
  input: Record<string, unknown>;
  risk: RiskLevel;
  reason: string;
  sessionRule: string;
  diff: string | null;
  source: string;
}

/** Answers approvals without a person: CLI `--approve allow|deny`, or a TTY prompt for `ask`. */
export type AutoAnswer = (a: Approval) => Promise<{ decision: ApprovalDecision; reason?: string }>;

export interface GateHooks {
  emit(sessionId: string, turnId: string | null, data: AgentEventData): void;
  changed(a: Approval): void;
  policyContext(sessionId: string): PolicyContext;
  /** An approval was answered while no turn waited on it (after a restart): the owner may resume. */
  answeredWithoutWaiter(a: Approval): void;
}

export function summarizeCall(tool: string, input: Record<string, unknown>): string {
  const one = (s: string) => (s.length > 200 ? s.slice(0, 200) + '…' : s).replace(/\s*\n\s*/g, ' ⏎ ');
  if (tool === 'bash') return one(String(input.command ?? ''));
  if (tool === 'coder') return `coder: ${one(String(input.PROMPT ?? ''))}`;
  if (typeof input.path === 'string') return `${tool} ${one(input.path)}`;
  return `${tool} ${one(JSON.stringify(input))}`;
}

/** The unified diff a write/patch would apply, or null when it cannot be previewed. */
export async function approvalDiff(root: string | null, tool: string, input: Record<string, unknown>): Promise<string | null> {
  if (!root) return null;
  try {
    if (tool === 'write') {
      const p = await previewWrite(root, input);
      return previewDiff(p.rel, p.before, p.after);
    }
    if (tool === 'patch') {
      const p = await previewPatch(root, input);
      return previewDiff(p.rel, p.before, p.after);
    }
  } catch {
    // The call itself will fail with this reason when run; the dialog just shows no diff.
  }
  return null;
}

export interface DecideRequest {
  /** An agent session id (`ses-…`); it need not belong to the built-in loop. */
  sessionId: string;
  /** Engine tool name, or another executor's (Bash, Write, Edit…), mapped onto the engine's. */
  tool: string;
  input: Record<string, unknown>;
  mode: AgentMode;
  toolUseId?: string;
  turnId?: string | null;
  /** Shown as the approval's source ("claude-code"). */
  source?: string;
  signal?: AbortSignal;
}

export class ApprovalGate {
  private readonly waiters = new Map<string, { resolve(a: Approval): void }>();
  private readonly autoAnswers = new Map<string, AutoAnswer>();

  constructor(
    private readonly repo: ApprovalRepo,
    private readonly hooks: GateHooks,
  ) {}

  rules(sessionId: string): string[] {
    return this.repo.rules(sessionId);
  }

  /** Forgets a remembered rule: the next call it covered asks again. */
  removeRule(sessionId: string, rule: string): boolean {
    return this.repo.removeRule(sessionId, rule);
  }

  pending(sessionId?: string): Approval[] {
    return this.repo.pending(sessionId);
  }

  get(id: string): Approval | null {
    return this.repo.get(id);
  }

  /** Headless runs: every approval of the session is answered by `answer` (null removes it). */
  setAutoAnswer(sessionId: string, answer: AutoAnswer | null): void {
    if (answer) this.autoAnswers.set(sessionId, answer);
    else this.autoAnswers.delete(sessionId);
  }

  hasAutoAnswer(sessionId: string): boolean {
    return this.autoAnswers.has(sessionId);
  }

  /** Persists an approval (or finds the pending one for this tool call) and waits for its answer. */
  async request(spec: ApprovalSpec, signal: AbortSignal): Promise<Approval> {
    let approval = this.repo.forToolUse(spec.sessionId, spec.toolUseId);
    if (approval && approval.status !== 'pending') return approval;
    if (!approval) {
      approval = {
        id: newId('apr'),
        sessionId: spec.sessionId,
        turnId: spec.turnId,
        toolUseId: spec.toolUseId,
        tool: spec.tool,
        input: spec.input,
        summary: summarizeCall(spec.tool, spec.input),
        risk: spec.risk,
        reason: spec.reason,
        diff: spec.diff,
        sessionRule: spec.sessionRule,
        status: 'pending',
        decision: null,
        decisionReason: null,
        source: spec.source,
        createdAt: Date.now(),
        resolvedAt: null,
      };
      this.repo.insert(approval);
      this.hooks.emit(spec.sessionId, spec.turnId, { type: 'approval.requested', approval });
      this.hooks.changed(approval);
    }
    const id = approval.id;
    const waiting = new Promise<Approval>((resolve, reject) => {
      const onAbort = () => {
        this.waiters.delete(id);
        const reason = signal.reason as AbortReason | undefined;
        if (reason?.kind !== 'shutdown') this.settle(id, 'cancelled', null, 'The turn was cancelled.');
        reject(new ApprovalAbortedError('approval wait aborted'));
      };
      if (signal.aborted) return onAbort();
      signal.addEventListener('abort', onAbort, { once: true });
      this.waiters.set(id, {
        resolve: (a) => {
          signal.removeEventListener('abort', onAbort);
          resolve(a);
        },
      });
    });
    const auto = this.autoAnswers.get(spec.sessionId);
    if (auto) {
      const settleWith = (decision: ApprovalDecision, reason?: string) => {
        try {
          if (this.repo.get(id)?.status === 'pending') this.answer(id, decision, reason);
        } catch {
          // The app is closing (database gone) or the approval was answered elsewhere meanwhile.
        }
      };
      void auto(approval).then(
        (d) => settleWith(d.decision, d.reason),
        () => settleWith('deny', 'The approval prompt failed.'),
      );
    }
    return waiting;
  }

  /** The user's answer. Throws not_found / conflict for unknown or already answered approvals. */
  answer(id: string, decision: ApprovalDecision, reason?: string): Approval {
    const current = this.repo.get(id);
    if (!current) throw new AppError('not_found', 'There is no such approval (the session may have been removed).');
    if (current.status !== 'pending') throw new AppError('conflict', `This approval was already ${current.status}.`, { status: current.status });
    const status = decision === 'deny' ? 'denied' : 'approved';
    const resolved = this.settle(id, status, decision, decision === 'deny' ? (reason?.trim() || null) : null);
    if (!resolved) throw new AppError('conflict', 'This approval was answered at the same time elsewhere.');
    // Only the answer that won remembers its rule (another process may have answered first).
    if (decision === 'approve_session') this.repo.addRule(current.sessionId, current.sessionRule);
    const waiter = this.waiters.get(id);
    if (waiter) {
      this.waiters.delete(id);
      waiter.resolve(resolved);
    } else if (resolved.status !== 'cancelled') {
      this.hooks.answeredWithoutWaiter(resolved);
    }
    return resolved;
  }

  /** Cancels every pending approval of a session (new input replaces an interrupted turn). */
  cancelPending(sessionId: string, why: string): void {
    for (const a of this.repo.pending(sessionId)) {
      this.waiters.get(a.id)?.resolve({ ...a, status: 'cancelled' });
      this.waiters.delete(a.id);
      this.settle(a.id, 'cancelled', null, why);
    }
  }

  private settle(id: string, status: Exclude<Approval['status'], 'pending'>, decision: ApprovalDecision | null, reason: string | null): Approval | null {
    const resolved = this.repo.resolve(id, status, decision, reason);
    if (!resolved) return null;
    this.hooks.emit(resolved.sessionId, resolved.turnId, { type: 'approval.resolved', approval: resolved });
    this.hooks.changed(resolved);
    return resolved;
  }

  /** Policy only (no waiting): what the pipeline decides for a call before any user answer. */
  evaluate(sessionId: string, tool: string, input: Record<string, unknown>, mode: AgentMode): PolicyResult {
    const ctx = this.hooks.policyContext(sessionId);
    // A file path outside the session root is refused before anyone is asked: approving it
    // could never succeed (the tool refuses it too), so the dialog would only waste a decision.
    if (ctx.root && typeof input.path === 'string' && input.path !== '' && FILE_PATH_TOOLS.has(tool)) {
      try {
        resolveInRoot(ctx.root, input.path, { write: tool === 'write' || tool === 'patch' });
      } catch (e) {
        if (!(e instanceof ToolError)) throw e;
        return { decision: 'deny', source: 'policy', reason: e.message, risk: 'high', sessionRule: tool };
      }
    }
    return decideTool({
      tool,
      input,
      mode,
      preset: ctx.preset,
      disabledTools: ctx.disabledTools,
      hardFloor: ctx.hardFloor,
      ...(ctx.roleGuard ? { roleGuard: true } : {}),
      ...(ctx.floor ? { floor: ctx.floor } : {}),
      sessionRules: this.repo.rules(sessionId),
      ...(ctx.root ? { targetLinks: writeTargetLinks(ctx.root, tool, input) } : {}),
      ...(ctx.fixedPolicy ? { fixedPolicy: ctx.fixedPolicy(tool) } : {}),
    });
  }

  /**
   * The whole gate for other executors: maps their tool names, confines file paths to the
   * session root, applies the policy, asks the user when needed and returns the verdict.
   * Events (`tool.decision`, `approval.*`) go into the session's stream like the loop's own.
   */
  async decide(req: DecideRequest): Promise<{ allow: boolean; reason: string }> {
    // Approvals and events are keyed by session; the contract only carries `ses-…` ids.
    if (!SessionId.safeParse(req.sessionId).success) throw new AppError('invalid_input', `decide() needs an agent session id (ses-…), got "${req.sessionId}".`);
    const { tool, input } = normalizeExternalTool(req.tool, req.input);
    const toolUseId = req.toolUseId ?? newId('tool');
    const turnId = req.turnId ?? null;
    const ctx = this.hooks.policyContext(req.sessionId);
    // evaluate() refuses paths outside the session root before anything is asked.
    const p = this.evaluate(req.sessionId, tool, input, req.mode);
    this.hooks.emit(req.sessionId, turnId, { type: 'tool.decision', toolUseId, tool, decision: p.decision, source: p.source, reason: p.reason, risk: p.risk });
    if (p.decision === 'allow') return { allow: true, reason: p.reason };
    if (p.decision === 'deny') return { allow: false, reason: p.reason };
    try {
      const a = await this.request(
        { sessionId: req.sessionId, turnId, toolUseId, tool, input, risk: p.risk, reason: p.reason, sessionRule: p.sessionRule, diff: await approvalDiff(ctx.root, tool, input), source: req.source ?? 'external' },
        req.signal ?? new AbortController().signal,
      );
      if (a.status === 'approved') return { allow: true, reason: a.decision === 'approve_session' ? `Approved for this session (${a.sessionRule}).` : 'Approved once by the user.' };
      return { allow: false, reason: a.decisionReason ? `Denied by the user: ${a.decisionReason}` : 'Denied by the user.' };
    } catch (e) {
      if (e instanceof ApprovalAbortedError) return { allow: false, reason: 'The approval was cancelled.' };
      throw e;
    }
  }
}
