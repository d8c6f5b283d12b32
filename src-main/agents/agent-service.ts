/**
 * The agent engine service: sessions, turns (one at a time per session, cancellable), the
 * approval gate, provider profiles and engine settings. Built by the composition root.
 *
 * Restarts: a turn in flight when the app stops is marked `interrupted` (synchronously while
 * disposing, or at the next start when the owning process died). Its transcript is intact;
 * pending approvals stay pending and answerable — answering one resumes the turn from the
 * persisted messages (the tool call waiting on it runs or is refused, then the loop goes on).
 * New input in an interrupted session cancels such approvals and starts a fresh turn.
 */
import { existsSync, realpathSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AppError, base64Bytes, type AgentMode, type AgentSettings, type EffectiveAgentConfig, type Approval, type ImageAttachment, type SandboxMode, type Session, type TurnOutcome } from '../../src-preload/contract';
import { acceptsImages } from './provider/presets';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import type { ProjectService } from '../projects/project-service';
import type { SettingsService } from '../settings/settings-service';
import type { Database } from '../store/db';
import { storageHealthOf, storageProblem, writeOrKeep } from '../store/storage-health';
import type { EventLog } from '../store/event-log';
import { ApprovalRepo } from '../approvals/approval-repo';
import { ApprovalGate, type DecideRequest } from '../approvals/gate';
import { AgentSettingsStore } from './agent-settings';
import { newId } from './ids';
import { MAX_QUEUED_INPUTS, holdQueue, newQueuedId, queueOf, withQueue, type QueuedInputRecord } from './input-queue';
import { configEntries, readProjectConfig } from './orchestrator/project-config';
import { inputKind, runInput } from './orchestrator/run-input';
import { resumeTurn, type TurnEnd } from './orchestrator/run-turn';
import { TurnContext, type EngineDeps, type TurnAbortReason } from './orchestrator/turn-context';
import { AnthropicProvider, DEFAULT_BACKOFF } from './provider/anthropic';
import type { BackoffOptions } from './provider/faults';
import { ProfileService, type ProfileEnv } from './provider/profiles';
import { FileSecretStore, type SecretStore } from './provider/secrets';
import type { ModelProvider, ResolvedProfile } from './provider/types';
import { SessionEvents } from './session-events';
import { CostRepo } from './store/cost-repo';
import { MessageRepo } from './store/message-repo';
import { SessionRepo, withoutTurnInFlight, type AgentRole, type SessionRecord } from './store/session-repo';
import { ROLE_DISABLED_TOOLS } from './roles';
import { ownerAlive, selfIdentity } from '../platform/process-identity';
import { ChildProcessRunner, commandEnv, type CommandRunner } from './tools/command-runner';
import type { ExtraTool } from './tools/types';
import { DEFAULT_SANDBOX_MODE } from '../sandbox/policy';
import { SandboxedRunner } from '../sandbox/sandboxed-runner';
import { CallGuards } from './call-guard';

export const DEFAULT_TITLE = 'New session';
/** Session titles taken from the first message are cut here: a list row, not a paragraph. */
const TITLE_CHARS = 60;
const PROVIDER_CACHE_SIZE = 16;
/** Standing instructions of a session are a brief, not a document: capped so every request stays small. */
export const MAX_SESSION_INSTRUCTIONS = 64 * 1024;

export interface AgentServiceOptions {
  db: Database;
  events: EventLog;
  hub: EventHub;
  logger: Logger;
  settings: SettingsService;
  projects: ProjectService;
  dataDir: string;
  secrets?: SecretStore;
  env?: NodeJS.ProcessEnv;
  runner?: CommandRunner;
}

export interface RunResult {
  /** The session the input ran in. */
  turnSessionId: string;
  /** The session to continue in (differs after /new or /resume). */
  sessionId: string;
  turnId: string;
  outcome: TurnOutcome;
  message: string | null;
}

interface LiveTurn {
  turnId: string;
  controller: AbortController;
  ctx: TurnContext;
  done: Promise<RunResult>;
}

export class AgentService {
  readonly profiles: ProfileService;
  readonly gate: ApprovalGate;
  readonly sink: SessionEvents;
  readonly sessions: SessionRepo;
  readonly messages: MessageRepo;
  readonly costs: CostRepo;
  readonly approvals: ApprovalRepo;
  private readonly settingsStore: AgentSettingsStore;
  /** Replaceable: the integrator plugs the pty-based runner in here. Commands reach it through `sandboxed`. */
  runner: CommandRunner;
  /** Every command the engine runs goes through this: the session's sandbox, then `runner`. */
  private readonly sandboxed: CommandRunner;
  /**
   * Where a session's commands run when it is not placed on the host (the containers service
   * answers a ContainerRunner for a session placed in a container); null = the host, sandboxed.
   */
  placementRunner: ((sessionId: string) => CommandRunner | null) | null = null;
  /** A session's placement first: a container is the sandbox of a session placed in one. */
  private readonly placed: CommandRunner = {
    run: (opts) => ((opts.owner ? this.placementRunner?.(opts.owner.sessionId) : null) ?? this.sandboxed).run(opts),
  };
  /** Retry backoff; tests shorten it. */
  backoff: BackoffOptions = DEFAULT_BACKOFF;
  /** Another executor for a session's input (the Claude Code executor plugs in here); null = the built-in loop. */
  executorFor: ((sessionId: string, kind: 'chat' | 'bang' | 'slash') => ((ctx: TurnContext, input: string) => Promise<TurnEnd>) | null) | null = null;
  /** Which executor runs a session's chat turns, for Session.executor (set by the Claude Code executor). */
  executorName: ((sessionId: string) => 'builtin' | 'claude-code') | null = null;
  /** Gives a fork the original's executor settings (set by the Claude Code executor; its conversation is resumed through SessionState.resumeAt). */
  copyExecutor: ((from: string, to: string) => void) | null = null;
  /** Called after a session is removed (the terminals of its commands are closed with it). */
  onSessionRemoved: ((sessionId: string) => void) | null = null;
  /** Tools another capability offers some sessions (the Claude Code executor's `coder` in plan mode). */
  extraTools: ((sessionId: string, mode: AgentMode) => readonly ExtraTool[]) | null = null;
  /** Called before each model call so extra tools can be made ready (MCP servers started lazily); never throws. Returns notices for the session. */
  prepareExtraTools: ((sessionId: string) => Promise<string[]>) | null = null;
  /** Tools the user set to always allow or deny (MCP tools, set by the MCP capability); null = they ask. */
  fixedToolPolicy: ((tool: string) => 'allow' | 'deny' | null) | null = null;
  /** The worktree a session works in, for Session.worktree (set by the session-worktrees capability). */
  worktreeOf: ((sessionId: string) => Session['worktree']) | null = null;
  /** Budgets and turn limits asked before every model call of every session (see call-guard.ts). */
  readonly callGuards = new CallGuards();
  private readonly live = new Map<string, LiveTurn>();
  /** Sessions whose next queued input waits for the disk to take writes again (see drainQueue). */
  private readonly queuesAwaitingStorage = new Set<string>();
  private readonly providers = new Map<string, ModelProvider>();
  private readonly ownerId = selfIdentity();
  private readonly env: NodeJS.ProcessEnv;
  private readonly deps: EngineDeps;
  private disposed = false;

  constructor(private readonly o: AgentServiceOptions) {
    this.env = o.env ?? process.env;
    this.sessions = new SessionRepo(o.db);
    this.messages = new MessageRepo(o.db);
    this.costs = new CostRepo(o.db);
    this.approvals = new ApprovalRepo(o.db);
    this.settingsStore = new AgentSettingsStore(o.settings);
    this.sink = new SessionEvents(o.events, o.hub, o.logger.child('events'));
    this.profiles = new ProfileService(o.settings, o.secrets ?? new FileSecretStore(join(o.dataDir, 'secrets.json')), this.env as ProfileEnv);
    this.runner = o.runner ?? new ChildProcessRunner();
    // Flightdeck's data folder (stored keys, the database) is hidden from every command.
    this.sandboxed = new SandboxedRunner(() => this.runner, {}, [
      { path: o.dataDir, kind: 'dir' },
      { path: join(o.dataDir, 'secrets.json'), kind: 'file' },
    ]);
    this.gate = new ApprovalGate(this.approvals, {
      emit: (sessionId, turnId, data) => this.sink.emit(sessionId, turnId, data),
      changed: (approval) => {
        o.hub.publish('agents.approvals.changed', { approval });
        this.publishSession(approval.sessionId);
      },
      policyContext: (sessionId) => {
        const s = this.sessions.get(sessionId);
        const st = this.settings();
        return { preset: s?.policyPreset ?? st.defaultPolicyPreset, disabledTools: s?.disabledTools ?? [], hardFloor: st.hardFloor, ...(s?.state.role === 'coder' ? { roleGuard: true } : {}), root: s?.root ?? null, fixedPolicy: (tool) => this.fixedToolPolicy?.(tool) ?? null };
      },
      answeredWithoutWaiter: (a) => this.resumeAfterAnswer(a),
    });
    this.deps = {
      sessions: this.sessions,
      messages: this.messages,
      costs: this.costs,
      gate: this.gate,
      events: this.sink,
      profiles: this.profiles,
      logger: o.logger,
      settings: () => this.settings(),
      runner: () => this.placed,
      provider: (p) => this.providerFor(p),
      commandEnv: () => this.commandEnv(),
      configDir: (s) => this.configDir(s),
      createSessionLike: (from) => this.createRecord({ root: from.root, projectId: from.projectId, mode: from.mode, profile: from.profile, model: from.model, policyPreset: from.policyPreset, disabledTools: from.disabledTools, ...(from.state.sandbox ? { sandbox: from.state.sandbox } : {}), ...(from.state.role ? { role: from.state.role } : {}), ...(from.state.instructions ? { instructions: from.state.instructions } : {}) }),
      sessionChanged: (id) => this.publishSession(id),
      executorOf: (id) => this.executorName?.(id) ?? 'builtin',
      extraTools: (sessionId, mode) => this.extraTools?.(sessionId, mode) ?? [],
      prepareExtraTools: async (sessionId) => (await this.prepareExtraTools?.(sessionId)) ?? [],
      callGuard: (sessionId) => this.callGuards.check(sessionId),
      ownerPid: process.pid,
      ownerId: this.ownerId,
    };
  }

  /** Marks turns whose process died as interrupted (their approvals stay answerable). */
  start(): void {
    for (const s of this.sessions.inFlight()) {
      if (s.ownerPid !== null && s.ownerPid !== process.pid && ownerAlive(s.ownerPid, s.ownerId)) continue;
      this.markInterrupted(s, 'Flightdeck stopped during this turn.');
    }
  }

  /** Stops every turn; called before the event log and database close. Synchronous. */
  dispose(): void {
    if (this.disposed) return;
    for (const [id, t] of this.live) {
      const s = this.sessions.get(id);
      if (s) this.markInterrupted(s, 'Flightdeck stopped during this turn.', t.turnId, t.ctx.step);
      t.controller.abort({ kind: 'shutdown' } satisfies TurnAbortReason);
    }
    this.live.clear();
    this.disposed = true;
    this.sink.dispose();
  }

  private markInterrupted(s: SessionRecord, message: string, turnId?: string, steps = 0): void {
    // The turn recorded when it started; older rows (before turnInFlight existed) fall back to the transcript.
    const tid = turnId ?? s.state.turnInFlight ?? this.messages.live(s.id).at(-1)?.turnId ?? s.lastTurn?.turnId ?? null;
    // On a full disk the record waits in memory (disposing must not throw and skip closing the database).
    writeOrKeep(this.o.db, 'interrupted turn', () => {
      this.sessions.update(s.id, {
        status: 'interrupted',
        ownerPid: null,
        ownerId: null,
        state: holdQueue(withoutTurnInFlight(s.state), 'Flightdeck stopped during the turn: queued messages wait for you.'),
        ...(tid ? { lastTurn: { turnId: tid, outcome: 'interrupted', message, endedAt: Date.now() } } : {}),
      });
    });
    this.sink.emit(s.id, tid, { type: 'status', status: 'interrupted' });
    this.sink.emit(s.id, tid, { type: 'turn.ended', outcome: 'interrupted', message, steps });
    this.publishSession(s.id);
  }

  // ---------------------------------------------------------------------------------------
  // Settings, providers, environment
  // ---------------------------------------------------------------------------------------

  settings(): AgentSettings {
    return this.settingsStore.get();
  }

  updateSettings(patch: Partial<AgentSettings>): AgentSettings {
    const next = this.settingsStore.update(patch);
    this.providers.clear();
    this.o.hub.publish('agents.settings.changed', next);
    return next;
  }

  /** The agent loop's settings in effect for a session's folder, each with the file it came from. */
  effectiveConfig(sessionId: string): EffectiveAgentConfig {
    const dir = this.configDir(this.record(sessionId));
    const c = readProjectConfig(dir);
    return { dir, entries: configEntries(c), problem: c.problem };
  }

  publishProfiles(): void {
    this.providers.clear();
    this.o.hub.publish('agents.profiles.changed', { profiles: this.profiles.list() });
  }

  private providerFor(p: ResolvedProfile): ModelProvider {
    const st = this.settings();
    const key = JSON.stringify([p, st.maxRetries, st.idleTimeoutMs, this.backoff]);
    let provider = this.providers.get(key);
    if (!provider) {
      if (this.providers.size >= PROVIDER_CACHE_SIZE) this.providers.clear();
      provider = new AnthropicProvider({ profile: p, maxRetries: st.maxRetries, idleTimeoutMs: st.idleTimeoutMs, backoff: this.backoff });
      this.providers.set(key, provider);
    }
    return provider;
  }

  private commandEnv(): NodeJS.ProcessEnv {
    const keys: string[] = [];
    for (const p of this.profiles.list()) {
      const k = p.apiKeySet ? this.profiles.resolve(p.name).apiKey : null;
      if (k) keys.push(k);
    }
    return commandEnv(this.env, keys);
  }

  private configDir(s: SessionRecord): string {
    if (s.projectId) {
      try {
        return this.o.projects.get(s.projectId).path;
      } catch {
        // The project was removed: the session's own root still holds a usable config.
      }
    }
    return s.root;
  }

  // ---------------------------------------------------------------------------------------
  // Sessions
  // ---------------------------------------------------------------------------------------

  toSession(s: SessionRecord): Session {
    return {
      id: s.id,
      title: s.title,
      root: s.root,
      projectId: s.projectId,
      mode: s.mode,
      profile: s.profile,
      model: s.model,
      policyPreset: s.policyPreset,
      sandbox: s.state.sandbox ?? DEFAULT_SANDBOX_MODE,
      disabledTools: s.disabledTools,
      status: s.status,
      todos: s.todos,
      turnCount: s.turnCount,
      lastTurn: s.lastTurn as Session['lastTurn'],
      pendingApprovals: this.approvals.countPending(s.id),
      archived: s.state.archived === true,
      ...(s.state.role ? { role: s.state.role } : {}),
      ...(this.executorName ? { executor: this.executorName(s.id) } : {}),
      ...(this.worktreeOf ? { worktree: this.worktreeOf(s.id) } : {}),
      cost: this.costs.totals(s.id),
      ...(s.state.queue && s.state.queue.length > 0 ? { queue: s.state.queue.map((q) => ({ id: q.id, text: q.text, images: q.images?.length ?? 0, queuedAt: q.queuedAt })) } : {}),
      ...(s.state.queueHeld ? { queueHeld: s.state.queueHeld } : {}),
      createdAt: s.createdAt,
      updatedAt: s.updatedAt,
    };
  }

  /** Publishes a session again after another capability changed what it shows (its worktree). */
  republish(id: string): void {
    this.publishSession(id);
  }

  private publishSession(id: string): void {
    if (this.disposed) return;
    const s = this.sessions.get(id);
    if (s) this.o.hub.publish('agents.sessions.changed', { session: this.toSession(s), removedId: null });
  }

  private record(id: string): SessionRecord {
    const s = this.sessions.get(id);
    if (!s) throw new AppError('not_found', `There is no session ${id}.`);
    return s;
  }

  getSession(id: string): Session {
    return this.toSession(this.record(id));
  }

  /**
   * Replaces a session's standing instructions (main process only, never from the renderer): a
   * capability whose brief changes between turns (the mailbox's layered context of each task)
   * sets it before the turn; both executors read it at the start of every turn.
   */
  setInstructions(id: string, instructions: string): void {
    const s = this.record(id);
    const { instructions: _old, ...rest } = s.state;
    this.sessions.update(s.id, { state: instructions ? { ...rest, instructions: instructions.slice(0, MAX_SESSION_INSTRUCTIONS) } : rest });
  }

  listSessions(projectId?: string): Session[] {
    return this.sessions.list(projectId).map((s) => this.toSession(s));
  }

  createSession(input: { projectId?: string; root?: string; worktreeRoot?: string; title?: string; mode?: AgentMode; profile?: string; model?: string; sandbox?: SandboxMode; role?: AgentRole; instructions?: string }): Session {
    let root: string;
    let projectId: string | null = null;
    if (input.projectId) {
      root = this.o.projects.get(input.projectId).path;
      // A worktree of the project (a session started in its own worktree) instead of its checkout.
      if (input.worktreeRoot) root = realpathSync(input.worktreeRoot);
      projectId = input.projectId;
    } else {
      const raw = input.root ?? '';
      if (!existsSync(raw)) throw new AppError('path_not_found', `${raw} does not exist.`);
      if (!statSync(raw).isDirectory()) throw new AppError('not_a_directory', `${raw} is not a folder.`);
      root = realpathSync(raw);
      projectId = this.o.projects.list().find((p) => p.path === root)?.id ?? null;
    }
    if (input.profile && !this.profiles.get(input.profile)) throw new AppError('not_found', `There is no provider profile "${input.profile}".`);
    const s = this.createRecord({ root, projectId, ...(input.title ? { title: input.title } : {}), ...(input.mode ? { mode: input.mode } : {}), ...(input.profile ? { profile: input.profile } : {}), ...(input.model ? { model: input.model } : {}), ...(input.sandbox ? { sandbox: input.sandbox } : {}), ...(input.role ? { role: input.role, disabledTools: [...ROLE_DISABLED_TOOLS[input.role]] } : {}), ...(input.instructions ? { instructions: input.instructions } : {}) });
    return this.toSession(s);
  }

  private createRecord(o: Partial<SessionRecord> & { root: string; projectId: string | null; sandbox?: SandboxMode; role?: AgentRole; instructions?: string }): SessionRecord {
    const st = this.settings();
    const now = Date.now();
    const base = { root: o.root, projectId: o.projectId } as SessionRecord;
    const { config } = readProjectConfig(this.configDir(base));
    const cfgProfile = config.agent.profile && this.profiles.get(config.agent.profile) ? config.agent.profile : null;
    const profile = o.profile ?? cfgProfile ?? this.profiles.defaultName();
    const model = o.model ?? (profile === (cfgProfile ?? profile) && config.agent.model ? config.agent.model : this.profiles.get(profile)!.model);
    const s: SessionRecord = {
      id: newId('ses'),
      title: o.title ?? DEFAULT_TITLE,
      root: o.root,
      projectId: o.projectId,
      mode: o.mode ?? st.defaultMode,
      profile,
      model,
      policyPreset: o.policyPreset ?? st.defaultPolicyPreset,
      disabledTools: o.disabledTools ?? [],
      status: 'idle',
      todos: [],
      state: { undo: [], ...(o.sandbox && o.sandbox !== DEFAULT_SANDBOX_MODE ? { sandbox: o.sandbox } : {}), ...(o.role ? { role: o.role } : {}), ...(o.instructions ? { instructions: o.instructions.slice(0, MAX_SESSION_INSTRUCTIONS) } : {}) },
      turnCount: 0,
      lastTurn: null,
      ownerPid: null,
      ownerId: null,
      createdAt: now,
      updatedAt: now,
    };
    this.sessions.insert(s);
    this.publishSession(s.id);
    return s;
  }

  updateSession(input: { sessionId: string; title?: string; mode?: AgentMode; profile?: string; model?: string; policyPreset?: Session['policyPreset']; disabledTools?: Session['disabledTools']; sandbox?: SandboxMode; archived?: boolean }): Session {
    const s = this.record(input.sessionId);
    const turnId = this.live.get(s.id)?.turnId ?? null;
    let profile = s.profile;
    let model = s.model;
    if (input.profile !== undefined) {
      const p = this.profiles.get(input.profile);
      if (!p) throw new AppError('not_found', `There is no provider profile "${input.profile}".`);
      profile = p.name;
      if (input.model === undefined) model = p.model;
    }
    if (input.model !== undefined) model = input.model;
    const next = this.sessions.update(s.id, {
      ...(input.title !== undefined ? { title: input.title } : {}),
      ...(input.mode !== undefined ? { mode: input.mode } : {}),
      ...(input.policyPreset !== undefined ? { policyPreset: input.policyPreset } : {}),
      ...(input.disabledTools !== undefined ? { disabledTools: [...new Set(input.disabledTools)] } : {}),
      // Takes effect at the next command; a command already running keeps the sandbox it started in.
      // Archiving only hides the session from the default lists.
      ...(input.sandbox !== undefined || input.archived !== undefined
        ? { state: { ...s.state, ...(input.sandbox !== undefined ? { sandbox: input.sandbox } : {}), ...(input.archived !== undefined ? { archived: input.archived } : {}) } }
        : {}),
      profile,
      model,
    });
    if (input.mode !== undefined && input.mode !== s.mode) this.sink.emit(s.id, turnId, { type: 'mode.changed', mode: input.mode });
    if (profile !== s.profile || model !== s.model) this.sink.emit(s.id, turnId, { type: 'model.changed', profile, model, persistedTo: null, persistError: null });
    if (input.policyPreset !== undefined && input.policyPreset !== s.policyPreset) this.sink.emit(s.id, turnId, { type: 'permissions.changed', preset: input.policyPreset });
    this.publishSession(s.id);
    return this.toSession(next);
  }

  removeSession(id: string): boolean {
    if (this.live.has(id)) throw new AppError('conflict', 'A turn is running in this session; cancel it first.');
    // Events still buffered for it are written first, so the delete takes them too (no orphan rows).
    this.sink.discard(id);
    this.o.events.flush();
    const removed = this.sessions.remove(id);
    if (removed) {
      this.o.hub.publish('agents.sessions.changed', { session: null, removedId: id });
      this.onSessionRemoved?.(id);
    }
    return removed;
  }

  // ---------------------------------------------------------------------------------------
  // Turns
  // ---------------------------------------------------------------------------------------

  isRunning(sessionId: string): boolean {
    return this.live.has(sessionId);
  }

  /** Starts RunInput and returns at once; progress arrives as events. */
  input(sessionId: string, input: string, images: readonly ImageAttachment[] = []): { sessionId: string; turnId: string } {
    const t = this.startInput(sessionId, input, images);
    return { sessionId, turnId: t.turnId };
  }

  /** Runs one input to its end (CLI, tests). Resolves after its events are persisted and published. */
  async run(sessionId: string, input: string): Promise<RunResult> {
    return this.startInput(sessionId, input).done;
  }

  /** The running turn of a session, to await (tests, CLI after an approval). */
  running(sessionId: string): Promise<RunResult> | null {
    return this.live.get(sessionId)?.done ?? null;
  }

  cancel(sessionId: string): boolean {
    const t = this.live.get(sessionId);
    if (!t) return false;
    // An interruption is a change of plan: what was queued behind the turn waits for the user.
    const s = this.sessions.get(sessionId);
    if (s && queueOf(s.state).length > 0) this.sessions.update(sessionId, { state: holdQueue(s.state, 'You interrupted the turn: queued messages wait for you.') });
    t.controller.abort({ kind: 'cancel' } satisfies TurnAbortReason);
    return true;
  }

  /**
   * What the composer sends: starts a turn when the session can take one, else queues the input
   * behind the running turn. One synchronous step, so no turn can start or end between the
   * decision and its effect (a renderer deciding from its own view of the status lost inputs).
   */
  submit(sessionId: string, input: string, images: readonly ImageAttachment[] = []): { outcome: 'started'; sessionId: string; turnId: string } | { outcome: 'queued'; sessionId: string; queuedId: string; position: number } {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is shutting down.');
    const s = this.record(sessionId);
    const queue = queueOf(s.state);
    const busy = this.live.has(sessionId);
    // Held messages wait for the user; a new one typed meanwhile is their decision to go on now.
    if (!busy && (queue.length === 0 || s.state.queueHeld)) {
      const t = this.startInput(sessionId, input, images);
      return { outcome: 'started', sessionId, turnId: t.turnId };
    }
    if (images.length > 0) this.checkImages(s, inputKind(input), this.executorFor?.(sessionId, inputKind(input)) != null);
    if (queue.length >= MAX_QUEUED_INPUTS) {
      throw new AppError('conflict', `${MAX_QUEUED_INPUTS} messages already wait for this turn to end; remove one or wait.`);
    }
    storageHealthOf(this.o.db)?.requireWritable();
    const item: QueuedInputRecord = { id: newQueuedId(), text: input, ...(images.length > 0 ? { images: [...images] } : {}), queuedAt: Date.now() };
    // Queuing behind a running turn is asking for it to be sent: an earlier interruption no longer holds the queue.
    this.sessions.update(sessionId, { state: withQueue(s.state, [...queue, item], busy ? null : s.state.queueHeld) });
    this.publishSession(sessionId);
    if (!busy) this.drainQueue(sessionId);
    return { outcome: 'queued', sessionId, queuedId: item.id, position: queue.length + 1 };
  }

  /** Takes a waiting input out of the queue; false when it already went or was removed. */
  removeQueued(sessionId: string, queuedId: string): boolean {
    const s = this.record(sessionId);
    const queue = queueOf(s.state);
    if (!queue.some((q) => q.id === queuedId)) return false;
    this.sessions.update(sessionId, { state: withQueue(s.state, queue.filter((q) => q.id !== queuedId)) });
    this.publishSession(sessionId);
    return true;
  }

  /** Releases held queued inputs; the first goes now when no turn runs. */
  resumeQueue(sessionId: string): boolean {
    const s = this.record(sessionId);
    this.sessions.update(sessionId, { state: withQueue(s.state, queueOf(s.state), null) });
    this.publishSession(sessionId);
    return this.drainQueue(sessionId);
  }

  /** The disk takes writes again: the queued inputs that waited for it (see drainQueue) go now. */
  storageRecovered(): void {
    for (const id of [...this.queuesAwaitingStorage]) {
      this.queuesAwaitingStorage.delete(id);
      this.drainQueue(id);
    }
  }

  /** Starts the first queued input when the session is free and its queue is not held. */
  private drainQueue(sessionId: string): boolean {
    if (this.disposed || this.live.has(sessionId)) return false;
    try {
      // What a full disk kept (this turn's end, holding the queue as it was) is written first:
      // taking the input out of the queue before it would let that write put back a message
      // that already went, and it would be sent twice. While the disk refuses, the queue waits.
      storageHealthOf(this.o.db)?.requireWritable();
    } catch (e) {
      this.queuesAwaitingStorage.add(sessionId);
      this.o.logger.warn('queued input waits for the disk', { sessionId, error: e });
      return false;
    }
    const s = this.sessions.get(sessionId);
    if (!s || s.state.queueHeld) return false;
    const [next, ...rest] = queueOf(s.state);
    if (!next) return false;
    try {
      // Taken out of the stored queue before it starts, so it is never sent twice. When that write
      // fails (the disk filled just now), nothing changed: it stays queued until space returns,
      // and the caller (a turn's end) goes on.
      this.sessions.update(sessionId, { state: withQueue(s.state, rest) });
    } catch (e) {
      if (storageProblem(e) === null) throw e;
      storageHealthOf(this.o.db)?.failed(e);
      this.queuesAwaitingStorage.add(sessionId);
      this.o.logger.warn('queued input waits for the disk', { sessionId, error: e });
      return false;
    }
    try {
      this.startInput(sessionId, next.text, next.images ?? []);
      return true;
    } catch (e) {
      // Refused (its images no longer fit the model, the disk is full): it goes back first and waits for the user.
      const now = this.sessions.get(sessionId);
      const reason = e instanceof AppError ? e.message : 'The queued message could not be sent.';
      if (now) this.sessions.update(sessionId, { state: withQueue(now.state, [next, ...queueOf(now.state)], reason) });
      this.publishSession(sessionId);
      this.o.logger.warn('a queued input could not start', { sessionId, error: e });
      return false;
    }
  }

  private startInput(sessionId: string, input: string, images: readonly ImageAttachment[] = []): LiveTurn {
    if (this.disposed) throw new AppError('unavailable', 'Flightdeck is shutting down.');
    // Checked before anything changes: a second input must not cancel the running turn's approvals.
    if (this.live.has(sessionId)) throw new AppError('conflict', 'A turn is already running in this session; wait for it or cancel it.');
    const s = this.record(sessionId);
    const kind = inputKind(input);
    const external = this.executorFor?.(sessionId, kind) ?? null;
    if (images.length > 0) this.checkImages(s, kind, external !== null);
    if (s.status === 'interrupted' || s.status === 'awaiting_approval') this.gate.cancelPending(sessionId, 'New input replaced the interrupted turn.');
    if (kind === 'chat' && s.title === DEFAULT_TITLE) {
      const first = input.trim().split('\n')[0] ?? '';
      this.sessions.update(sessionId, { title: first.length > TITLE_CHARS ? first.slice(0, TITLE_CHARS - 1) + '…' : first || DEFAULT_TITLE });
    }
    if (external) return this.begin(sessionId, newId('turn'), { input: input.trim(), kind }, (ctx) => external(ctx, input));
    const shown = images.map((i) => ({ mediaType: i.mediaType, bytes: base64Bytes(i.data) }));
    return this.begin(sessionId, newId('turn'), { input: input.trim(), kind, ...(shown.length > 0 ? { images: shown } : {}) }, (ctx) => runInput(ctx, input, images));
  }

  /** Images are refused before anything starts when nothing would carry them to a model that reads them. */
  private checkImages(s: { profile: string; model: string }, kind: 'chat' | 'bang' | 'slash', external: boolean): void {
    if (kind !== 'chat') throw new AppError('invalid_input', 'Images go with a message to the agent, not with a ! or / command.');
    if (external) throw new AppError('invalid_input', 'This session runs on Claude Code, which does not take pasted images here yet; remove the image or use a built-in session.');
    const p = this.profiles.get(s.profile);
    if (p && !acceptsImages(p.preset, s.model)) {
      throw new AppError('invalid_input', `${p.label} (${s.model}) does not read images. Remove the image, or switch to a model that does with /model.`);
    }
  }

  private resumeAfterAnswer(a: Approval): void {
    if (this.disposed || this.live.has(a.sessionId) || a.turnId === null) return;
    const s = this.sessions.get(a.sessionId);
    if (!s || (s.status !== 'interrupted' && s.status !== 'awaiting_approval')) return;
    try {
      // No user input here: the event says the turn resumed instead of inventing a message.
      this.begin(a.sessionId, a.turnId, { input: '', kind: 'chat', resumed: true }, (ctx) => resumeTurn(ctx));
    } catch (e) {
      this.o.logger.warn('could not resume a turn after its approval was answered', { sessionId: a.sessionId, error: e });
    }
  }

  private begin(sessionId: string, turnId: string, start: { input: string; kind: 'chat' | 'bang' | 'slash'; resumed?: boolean; images?: Array<{ mediaType: ImageAttachment['mediaType']; bytes: number }> }, body: (ctx: TurnContext) => Promise<TurnEnd>): LiveTurn {
    if (this.live.has(sessionId)) throw new AppError('conflict', 'A turn is already running in this session; wait for it or cancel it.');
    const s = this.record(sessionId);
    if (s.ownerPid !== null && s.ownerPid !== process.pid && (s.status === 'running' || s.status === 'awaiting_approval') && ownerAlive(s.ownerPid, s.ownerId)) {
      throw new AppError('conflict', `This session is running in another Flightdeck process (pid ${s.ownerPid}).`);
    }
    // A turn-end record still waiting for disk space must be written before this turn's start overtakes it.
    storageHealthOf(this.o.db)?.requireWritable();
    const controller = new AbortController();
    const ctx = new TurnContext(this.deps, sessionId, turnId, controller.signal);
    this.sessions.update(sessionId, { status: 'running', ownerPid: process.pid, ownerId: this.ownerId, state: { ...s.state, turnInFlight: turnId } });
    this.sink.emit(sessionId, turnId, { type: 'turn.started', input: start.input, kind: start.kind, mode: s.mode, model: s.model, ...(start.resumed ? { resumed: true } : {}), ...(start.images ? { images: start.images } : {}) });
    this.sink.emit(sessionId, turnId, { type: 'status', status: 'running' });
    this.publishSession(sessionId);
    const live: LiveTurn = { turnId, controller, ctx, done: Promise.resolve(null as never) };
    this.live.set(sessionId, live);
    // Turns are conversations with the agent: `!` and `/` commands and a resumed turn do not count again.
    live.done = this.finish(ctx, body, start.kind === 'chat' && !start.resumed);
    return live;
  }

  private async finish(ctx: TurnContext, body: (ctx: TurnContext) => Promise<TurnEnd>, counts: boolean): Promise<RunResult> {
    let end: TurnEnd;
    try {
      end = await body(ctx);
    } catch (e) {
      if (ctx.stopped || this.disposed) end = { outcome: 'interrupted', message: null };
      else {
        this.o.logger.error('turn failed unexpectedly', { sessionId: ctx.sessionId, error: e });
        const full = storageProblem(e) !== null;
        const health = storageHealthOf(this.o.db);
        if (full) health?.failed(e);
        const message = full ? (health?.message ?? 'The disk holding the Flightdeck data folder is full.') : `Internal error: ${e instanceof Error ? e.message : String(e)}`;
        ctx.emit({ type: 'error', code: full ? 'disk_full' : 'internal', message, retryable: full });
        end = { outcome: 'failed', message };
      }
    }
    const result: RunResult = { turnSessionId: ctx.sessionId, sessionId: ctx.nextSessionId, turnId: ctx.turnId, outcome: ctx.stopped ? 'interrupted' : end.outcome, message: end.message };
    // After a shutdown the service already recorded the interruption; the database is closing.
    if (ctx.stopped || this.disposed) return result;
    this.live.delete(ctx.sessionId);
    const s = this.sessions.get(ctx.sessionId);
    if (s) {
      const endedAt = Date.now();
      // On a full disk this record waits in memory and is written (then published) when space returns.
      writeOrKeep(this.o.db, 'turn end', () => {
        this.sessions.update(ctx.sessionId, {
          status: 'idle',
          ownerPid: null,
          ownerId: null,
          state: withoutTurnInFlight(s.state),
          turnCount: s.turnCount + (counts ? 1 : 0),
          lastTurn: { turnId: ctx.turnId, outcome: end.outcome, message: end.message, endedAt },
        });
        this.publishSession(ctx.sessionId);
      });
      this.sink.emit(ctx.sessionId, ctx.turnId, { type: 'status', status: 'idle' });
      this.sink.emit(ctx.sessionId, ctx.turnId, { type: 'turn.ended', outcome: end.outcome, message: end.message, steps: ctx.step });
      this.publishSession(ctx.sessionId);
      // In the same step as the end: an input submitted now finds either this turn or the next one running.
      this.drainQueue(ctx.sessionId);
    }
    await this.sink.flushed().catch((e: unknown) => this.o.logger.warn('events not flushed at turn end', { error: e }));
    return result;
  }

  // ---------------------------------------------------------------------------------------
  // Approvals for other executors
  // ---------------------------------------------------------------------------------------

  /**
   * The reusable gate (policy, hard floor, session rules, approval dialog) for executors other
   * than the built-in loop. `mode` defaults to the session's when the session exists.
   */
  decide(req: Omit<DecideRequest, 'mode'> & { mode?: AgentMode }): Promise<{ allow: boolean; reason: string }> {
    const mode = req.mode ?? this.sessions.get(req.sessionId)?.mode ?? this.settings().defaultMode;
    return this.gate.decide({ ...req, mode });
  }
}
