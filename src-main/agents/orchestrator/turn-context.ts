/**
 * What a running turn works with: the engine's dependencies plus the turn's own state.
 * Seed 001's `ctx` argument of RunInput / RunTurn / runBangCommand / runSlashCommand.
 */
import type { AgentEventData, AgentMode, AgentSettings, SessionStatus } from '../../../src-preload/contract';
import type { ApprovalGate } from '../../approvals/gate';
import type { Logger } from '../../platform/logger';
import type { ProfileService } from '../provider/profiles';
import type { ModelProvider, ResolvedProfile } from '../provider/types';
import type { SessionEvents } from '../session-events';
import type { CostRepo } from '../store/cost-repo';
import type { MessageRepo, StoredMessage } from '../store/message-repo';
import type { SessionPatch, SessionRecord, SessionRepo } from '../store/session-repo';
import type { StoredBlock, MessageKind, MessageRole } from '../store/blocks';
import type { CommandRunner } from '../tools/command-runner';
import type { ExtraTool } from '../tools/types';
import { toContractMessage } from '../store/message-repo';

export interface EngineDeps {
  sessions: SessionRepo;
  messages: MessageRepo;
  costs: CostRepo;
  gate: ApprovalGate;
  events: SessionEvents;
  profiles: ProfileService;
  logger: Logger;
  settings(): AgentSettings;
  runner(): CommandRunner;
  provider(profile: ResolvedProfile): ModelProvider;
  /** Environment for commands (credentials removed). */
  commandEnv(): NodeJS.ProcessEnv;
  /** Folder holding the project's .coder/config.json and .flightdeck/config.yml for a session. */
  configDir(s: SessionRecord): string;
  /** Creates a session like `from` (for /new). */
  createSessionLike(from: SessionRecord): SessionRecord;
  /** Publishes agents.sessions.changed for a session. */
  sessionChanged(id: string): void;
  /** Which executor runs the session's chat turns (absent: the built-in loop). */
  executorOf?(sessionId: string): 'builtin' | 'claude-code';
  /** Tools other capabilities add for this session and mode (see ExtraTool). */
  extraTools(sessionId: string, mode: AgentMode): readonly ExtraTool[];
  /** Makes the extra tools ready before a model call (MCP servers started lazily); what the session should be told (a server that failed). */
  prepareExtraTools?(sessionId: string): Promise<string[]>;
  /** Budgets and turn limits asked before each model call: the refusal message, or null (agents/call-guard.ts). */
  callGuard?(sessionId: string): string | null;
  /** Marks the process that runs the session's turns. */
  ownerPid: number;
  ownerId: string;
}

/** Why a turn stopped early, carried as the AbortSignal's reason. */
export interface TurnAbortReason {
  kind: 'cancel' | 'shutdown';
}

export class TurnContext {
  step = 0;
  /** Root-relative paths changed by write/patch during this turn (auto-verify, undo). */
  readonly edited = new Set<string>();
  verifyAttempts = 0;
  /** The user asked for verification in so many words (default mode's trigger). */
  verifyRequested = false;
  complex = false;
  /** The session the user continues in after this input (changed by /new and /resume). */
  nextSessionId: string;
  /** Set when compaction found nothing older to summarize, so the notice is shown once per turn. */
  compactionStuck = false;
  /** Whether the root is a git work tree; looked up on the first write of the turn. */
  gitRepo: boolean | undefined;

  constructor(
    readonly deps: EngineDeps,
    readonly sessionId: string,
    readonly turnId: string,
    readonly signal: AbortSignal,
  ) {
    this.nextSessionId = sessionId;
  }

  session(): SessionRecord {
    const s = this.deps.sessions.get(this.sessionId);
    if (!s) throw new Error(`session ${this.sessionId} was removed during the turn`);
    return s;
  }

  /**
   * After a shutdown abort the database is closing: a turn's late continuations write nothing
   * (the service recorded the interruption synchronously while disposing).
   */
  get stopped(): boolean {
    return this.abortKind === 'shutdown';
  }

  emit(data: AgentEventData): void {
    if (this.stopped) return;
    this.deps.events.emit(this.sessionId, this.turnId, data);
  }

  update(patch: SessionPatch): void {
    if (this.stopped) return;
    this.deps.sessions.update(this.sessionId, patch);
    this.deps.sessionChanged(this.sessionId);
  }

  setStatus(status: SessionStatus): void {
    if (this.stopped) return;
    if (this.session().status === status) return;
    this.update({ status });
    this.emit({ type: 'status', status });
  }

  /** Persists a message and shows it: seed 001 §10 (saved as it happens, not only at the end). */
  addMessage(role: MessageRole, kind: MessageKind, blocks: StoredBlock[]): StoredMessage | null {
    if (this.stopped) return null;
    const m = this.deps.messages.append(this.sessionId, { turnId: this.turnId, role, kind, blocks });
    this.emit({ type: 'message', message: toContractMessage(m) });
    return m;
  }

  get aborted(): boolean {
    return this.signal.aborted;
  }

  get abortKind(): TurnAbortReason['kind'] | null {
    return this.signal.aborted ? ((this.signal.reason as TurnAbortReason | undefined)?.kind ?? 'cancel') : null;
  }
}
