/**
 * The one way a capability (a feature's plan and run, a mailbox task, an autopilot iteration)
 * drives an agent: create a session in a folder with a role and an executor, run one input to
 * its end, and get back what the turn said, did and cost. It goes through the AgentService like
 * the UI does, so the turn is persisted, streamed to the UI, gated by the same approvals and
 * resumable after a restart; it never calls a model itself (DESIGN.md).
 *
 * Either executor plays either role: the role is tool switches plus, for the Coder, the role
 * guard, and both executors pass every tool call through the same gate.
 */
import type { AgentEvent, AgentMode, MessageBlock, Session, TurnOutcome } from '../../src-preload/contract';
import { AppError } from '../../src-preload/contract';
import type { CoderService } from '../coder/coder-service';
import type { AgentService } from './agent-service';
import type { AgentRole } from './store/session-repo';

export type { AgentRole } from './store/session-repo';
export type ExecutorName = 'builtin' | 'claude-code';

export interface DriverSessionOptions {
  /** The folder (usually a worktree) the agent works in. */
  root: string;
  projectId?: string;
  role: AgentRole;
  executor: ExecutorName;
  /** Provider profile name; absent = the project's or the default profile. */
  profile?: string;
  model?: string;
  /** Approval mode; absent = the settings' default. */
  mode?: AgentMode;
  title?: string;
  /** Standing instructions in the system prompt of every turn (the role's brief, a capability's rules). */
  instructions?: string;
  /**
   * The agent changes no file: its file tools are refused (the read-only preset) and its
   * commands run in a read-only sandbox, whatever the mode (yolo still runs them unasked).
   */
  readOnly?: boolean;
}

export interface ToolCallReport {
  toolUseId: string;
  tool: string;
  input: Record<string, unknown>;
  /** What the model got back; null when the call never produced a result (cancelled turn). */
  output: string | null;
  isError: boolean;
}

export interface TurnReport {
  sessionId: string;
  turnId: string;
  outcome: TurnOutcome;
  /** Every assistant text block of the turn, in order, joined by blank lines. */
  text: string;
  /** The text of the turn's last assistant message that had text (where a final answer or a fenced block usually is). */
  finalText: string;
  toolCalls: ToolCallReport[];
  /** This turn only (not the session's running total). */
  usage: { inputTokens: number; outputTokens: number; cacheReadTokens: number; cacheWriteTokens: number };
  costUsd: number;
  /** Model requests made in this turn ("turns" in the features' phase statistics). */
  modelCalls: number;
  durationMs: number;
  /** Why the turn did not complete (error, cancel, step limit); null when it completed. */
  message: string | null;
}

/** A turn's events are read back in pages of this many (a long coding turn has thousands of deltas). */
const READ_PAGE = 5_000;

export class SessionDriver {
  constructor(
    private readonly agents: AgentService,
    private readonly coder: CoderService | null,
  ) {}

  createSession(o: DriverSessionOptions): Session {
    if (o.executor === 'claude-code' && !this.coder) throw new AppError('unavailable', 'The Claude Code executor is not available in this process.');
    const s = this.agents.createSession({
      // With a project, the folder is still the one given (a worktree of the project, usually), never its checkout.
      ...(o.projectId ? { projectId: o.projectId, worktreeRoot: o.root } : { root: o.root }),
      ...(o.title ? { title: o.title } : {}),
      ...(o.mode ? { mode: o.mode } : {}),
      ...(o.profile ? { profile: o.profile } : {}),
      ...(o.model ? { model: o.model } : {}),
      role: o.role,
      ...(o.instructions ? { instructions: o.instructions } : {}),
      ...(o.readOnly ? { sandbox: 'read-only' as const } : {}),
    });
    if (o.readOnly) this.agents.updateSession({ sessionId: s.id, policyPreset: 'read-only' });
    if (o.executor === 'claude-code') this.coder!.updateSession({ sessionId: s.id, executor: 'claude-code' });
    return this.agents.getSession(s.id);
  }

  /**
   * Runs one input to its end. An abort of `signal` cancels the turn (the report then says
   * `cancelled`); it never throws for a turn that failed — the report carries the outcome.
   * `instructions`, when given, replace the session's standing instructions first.
   */
  async runTurn(sessionId: string, input: string, o: { signal?: AbortSignal; instructions?: string } = {}): Promise<TurnReport> {
    const started = Date.now();
    if (o.signal?.aborted) {
      return { sessionId, turnId: '', outcome: 'cancelled', text: '', finalText: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 }, costUsd: 0, modelCalls: 0, durationMs: 0, message: 'Cancelled before the agent was asked.' };
    }
    // New standing instructions from this turn on (a continued mailbox session's next task brings its own context).
    if (o.instructions !== undefined) this.agents.setInstructions(sessionId, o.instructions);
    const fromSeq = this.agents.sink.lastSeq(sessionId) + 1;
    const onAbort = () => this.agents.cancel(sessionId);
    o.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const r = await this.agents.run(sessionId, input);
      return this.report(r.turnSessionId, r.turnId, r.outcome, r.message, fromSeq, started);
    } finally {
      o.signal?.removeEventListener('abort', onAbort);
    }
  }

  cancel(sessionId: string): boolean {
    return this.agents.cancel(sessionId);
  }

  private *turnEvents(sessionId: string, fromSeq: number): Generator<AgentEvent> {
    for (let seq = fromSeq; ; ) {
      const page = this.agents.sink.readPage(sessionId, seq, READ_PAGE);
      yield* page.events;
      if (!page.more) return;
      seq = page.nextSeq;
    }
  }

  private report(sessionId: string, turnId: string, outcome: TurnOutcome, message: string | null, fromSeq: number, started: number): TurnReport {
    const texts: string[] = [];
    let finalText = '';
    const calls = new Map<string, ToolCallReport>();
    for (const e of this.turnEvents(sessionId, fromSeq)) {
      if (e.turnId !== turnId || e.data.type !== 'message') continue;
      const m = e.data.message;
      const blocks: MessageBlock[] = m.blocks;
      if (m.role === 'assistant') {
        const t = blocks.flatMap((b) => (b.type === 'text' && b.text.trim() !== '' ? [b.text] : []));
        if (t.length > 0) {
          texts.push(...t);
          finalText = t.join('\n\n');
        }
        for (const b of blocks) if (b.type === 'tool_use') calls.set(b.id, { toolUseId: b.id, tool: b.name, input: b.input, output: null, isError: false });
      } else if (m.role === 'tool') {
        for (const b of blocks) {
          if (b.type !== 'tool_result') continue;
          const c = calls.get(b.toolUseId);
          if (c) {
            c.output = b.content;
            c.isError = b.isError;
          }
        }
      }
    }
    const totals = this.agents.costs.totalsWhere({ turnId });
    return {
      sessionId,
      turnId,
      outcome,
      text: texts.join('\n\n'),
      finalText,
      toolCalls: [...calls.values()],
      usage: { inputTokens: totals.inputTokens, outputTokens: totals.outputTokens, cacheReadTokens: totals.cacheReadTokens, cacheWriteTokens: totals.cacheWriteTokens },
      costUsd: totals.usd,
      modelCalls: totals.calls,
      durationMs: Date.now() - started,
      message: outcome === 'completed' ? null : message,
    };
  }
}
