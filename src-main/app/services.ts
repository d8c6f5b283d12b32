import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { AppError, type StorageStatus } from '../../src-preload/contract';
import { EventHub } from '../bridge/event-hub';
import { Router } from '../bridge/router';
import type { Logger } from '../platform/logger';
import { ProjectService } from '../projects/project-service';
import { registerProjectHandlers } from '../projects/handlers';
import { SettingsService } from '../settings/settings-service';
import { databasePath, describeOpenError, openDatabase, type Database } from '../store/db';
import { EventLog } from '../store/event-log';
import { backupDue, listBackups, restoreBackup, resolveBackup, takeBackup, type BackupInfo, type RestoreResult } from '../store/backups';
import { quickCheck, type IntegrityReport } from '../store/integrity';
import { storageHealthOf, storageProblem, StorageHealth } from '../store/storage-health';
import type { StoredEvent } from '../store/event-log';
import { registerAppHandlers, type Platform } from './handlers';
import { TerminalService } from '../terminals/terminal-service';
import { registerTerminalHandlers } from '../terminals/handlers';
import { AgentService } from '../agents/agent-service';
import { registerAgentHandlers } from '../agents/handlers';
import { CoderService } from '../coder/coder-service';
import { MailboxService } from '../mailbox/mailbox-service';
import { registerMailboxHandlers } from '../mailbox/handlers';
import { SessionDriver } from '../agents/session-driver';
import { FeatureCandidateService } from '../features/run/candidates-service';
import { registerCandidateHandlers } from '../features/run/candidates-handlers';
import { DefaultGitOps as CandidateGitOps } from '../features/git-ops';
import { FeatureRunService } from '../features/run/run-service';
import { runContainers } from '../features/run/run-containers';
import { registerBudgetHandlers, registerFeatureRunHandlers } from '../features/run/handlers';
import { ReviewCommentService } from '../review-comments/comment-service';
import { registerReviewCommentHandlers, registerSessionCommentHandlers } from '../review-comments/handlers';
import { reopenFeatureForFix } from '../features/run/fix-round';
import { PrFollowService } from '../features/pr/pr-service';
import { GhPrForge } from '../features/pr/pr-forge';
import { registerPrHandlers } from '../features/pr/handlers';
import { BudgetService } from '../budgets/budget-service';
import { PlanningService } from '../features/planning-service';
import type { RepositoryTemplatesPolicy } from '../features/templates';
import type { FeaturesConfig } from '../features/config';
import { isFeatureError } from '../features/errors';
import { registerPlanningHandlers } from '../features/plan-handlers';
import { AutopilotService } from '../autopilot/autopilot-service';
import { registerAutopilotHandlers } from '../autopilot/handlers';
import { registerCoderHandlers } from '../coder/handlers';
import { ChangesService } from '../changes/changes-service';
import { registerChangesHandlers } from '../changes/handlers';
import { registerConnectionTestHandlers } from '../agents/provider/connection-handlers';
import { registerFolderHandlers } from '../projects/folder-handlers';
import { WorktreeManager } from '../worktrees/worktree-manager';
import { registerWorktreeHandlers } from '../worktrees/handlers';
import { registerFeatureReviewHandlers } from '../features/review-handlers';
import { InboxService } from '../inbox/inbox-service';
import { registerInboxHandlers } from '../inbox/handlers';
import { SessionWorktreeService } from '../session-worktrees/session-worktree-service';
import { registerSessionWorktreeHandlers } from '../session-worktrees/handlers';
import { FeatureService } from '../features/feature-service';
import { registerFeatureListHandlers } from '../features/list-handlers';
import { earlyPrepare, prepareNewWorktree, trustedWorktreeConfig, worktreeEnv } from '../worktrees/worktree-prepare';
import { setupProblem, WorktreeSetupService } from '../worktrees/setup-service';
import { sandboxedSetupRunner } from '../worktrees/setup-runner';
import type { HiddenPath } from '../sandbox/policy';
import { skippedText, TrustService } from '../trust/trust-service';
import { FeatureApprovals } from '../features/approvals';
import { registerTrustHandlers } from '../trust/handlers';
import { FileSecretStore, type SecretStore } from '../agents/provider/secrets';
import { McpService } from '../mcp/mcp-service';
import { registerMcpHandlers } from '../mcp/handlers';
import type { CommandRunner } from '../agents/tools/command-runner';
import { PtyCommandRunner } from '../terminals/agent-command-runner';
import { ContainerService, settingsPlacementStore } from '../containers/container-service';
import { ContainerRunner } from '../containers/container-runner';
import { registerContainerHandlers } from '../containers/handlers';
import { GitProgramAllowList } from '../git/program-allow-list';
import { setAllowedGitPrograms } from '../git/repo-programs';

/** Long-lived hosts take the day's backup a minute after start; CLI commands end long before. */
const BACKUP_FIRST_CHECK_MS = 60_000;
/** Then the need for a backup is checked hourly (one is taken when the last is a day old). */
const BACKUP_CHECK_INTERVAL_MS = 60 * 60 * 1000;

/** Streamed output and deltas: what a full disk may leave out past the event log's memory bound. */
const BULK_EVENT_TYPES = new Set(['tool.output', 'text.delta', 'thinking.delta', 'tool.input.delta', 'terminal.output']);

export interface HostOptions {
  dataDir: string;
  logger: Logger;
  /** What only the desktop shell can do; browser mode and the CLI leave these out. */
  platform: Platform;
  /** Where provider API keys live; Electron passes a safeStorage-backed store. Default: a 0600 file in the data folder. */
  secretStore?: SecretStore;
  /** How agents run commands; default: in terminals (PtyCommandRunner). */
  commandRunner?: CommandRunner;
  /** Backoff of the retries of writes refused by a full disk (tests shorten it; default 1 s doubling to 30 s). */
  storageRetry?: { baseMs: number; maxMs: number };
  /** Environment overrides for every Claude Code run (tests: a temp HOME, no CLI-side API retries). */
  coderEnv?: Readonly<Record<string, string | undefined>>;
  /**
   * Whether a repository's own prompt templates (`prompts.extra_dirs`, `.flightdeck/prompts`) are
   * used. Absent: workspace trust's decision (trust/trust-service.ts).
   */
  repositoryTemplates?: RepositoryTemplatesPolicy;
}

/**
 * The composition root. Every capability is built here, in dependency order, and handed to
 * its handler registration. Electron, browser mode and the CLI all start the app through it.
 */
export class AppServices {
  readonly hub = new EventHub();
  readonly router: Router;
  readonly db: Database;
  readonly events: EventLog;
  readonly projects: ProjectService;
  readonly settings: SettingsService;
  /** Workspace trust: whether a repository's own setup, checks, templates and placement are used (see docs/security.md). */
  readonly trust: TrustService;
  readonly terminals: TerminalService;
  readonly agents: AgentService;
  readonly coder: CoderService;
  /** MCP servers configured once, for the built-in loop and Claude Code (issue 25). */
  readonly mcp: McpService;
  /** How features, the mailbox and autopilot drive agent sessions (roles, executors, per-turn reports). */
  readonly driver: SessionDriver;
  /** Notices of finished, failed and waiting features (and the desktop notifications made from them). */
  readonly inbox: InboxService;
  /** Feature runs: phases, review, verify, PR; the queue; crash resume (see docs/features.md). */
  readonly featureRuns: FeatureRunService;
  /** Best-of-N candidates of a feature: run, compared, judged, one picked (issue 24 §3). */
  readonly featureCandidates: FeatureCandidateService;
  /** Diff comments on features, sent to the agent as fix rounds. */
  readonly reviewComments: ReviewCommentService;
  /** The pull request loop after delivery with gh (issue 24 §2): started by long-lived hosts. */
  readonly prFollow: PrFollowService;
  /** Daily spend budgets, asked before every model call (see docs/features.md). */
  readonly budgets: BudgetService;
  /** Features' init, planning chat, plan drafts and finalize (see docs/features.md). */
  readonly planning: PlanningService;
  /** Autopilot runs: a goal and an acceptance command worked towards in a worktree (see docs/autopilot.md). */
  readonly autopilot: AutopilotService;
  readonly changes: ChangesService;
  /** Programs a repository's own git config names that the user allowed (see docs/security.md): the app's git refuses the rest. */
  readonly gitPrograms: GitProgramAllowList;
  /** Agent sessions placed in Docker containers, on local or remote engines (see docs/containers.md). */
  readonly containers: ContainerService;
  /** The agent mailbox: command files in, reports, sessions, logs and ADRs out (see docs/mailbox.md). */
  readonly mailbox: MailboxService;
  /**
   * Worktrees' setup commands, run after the worktree is usable, in the workspace sandbox, each in
   * a terminal the user can watch; pending / running / done / failed published per worktree.
   */
  readonly worktreeSetups = new WorktreeSetupService({
    runner: {
      runCommand: (o) => {
        const hidden: HiddenPath[] = [
          { path: this.options.dataDir, kind: 'dir' },
          { path: join(this.options.dataDir, 'secrets.json'), kind: 'file' },
        ];
        return sandboxedSetupRunner(this.terminals, hidden).runCommand(o);
      },
    },
    owner: (root, worktree) => {
      const projectId = this.projects.list().find((p) => p.path === root)?.id;
      return { ...(projectId ? { projectId } : {}), worktreePath: worktree, phase: 'setup' };
    },
    // A re-run uses the setup as the repository's trust allows it now: an untrusted one's never runs.
    commandsOf: async (root) => {
      const { config, skipped } = await trustedWorktreeConfig(root, (c) => this.trustedWorktree(root, c)).catch((e: unknown) => {
        if (isFeatureError(e)) throw new AppError('invalid_input', `${e.kind} error: ${e.message}`);
        throw e;
      });
      const untrusted = skipped.find((t) => t.startsWith('worktree.setup'));
      return { commands: config.setup, refused: untrusted ? `${root} is untrusted: ${untrusted}` : null };
    },
    onChange: (root, path, setup) => this.hub.publish('worktrees.setup.changed', { projectId: this.projects.list().find((p) => p.path === root)?.id ?? null, root, path, setup }),
    logger: { warn: (msg, fields) => this.options.logger.warn(`worktree setup: ${msg}`, fields) },
  });
  /** Feature worktrees under `.trees/` of each project (see docs/worktrees.md). */
  readonly worktrees = new WorktreeManager({
    // Every new worktree gets the project's worktree.copy / ports, then its setup, which runs on
    // after create returns (worktreeSetups), its commands in terminals the user can watch.
    // Only what the repository's trust allows (an untrusted one's setup never runs), and the setup in the workspace sandbox.
    prepareEarly: (root) => earlyPrepare(root, (config) => this.trustedWorktree(root, config)),
    prepare: (root, entry, early) =>
      prepareNewWorktree({
        root,
        worktree: entry.path,
        trusted: (config) => this.trustedWorktree(root, config),
        early,
        startSetup: (commands, env) => this.worktreeSetups.begin(root, entry.path, commands, env),
      }),
    setupDone: (path, signal) => this.worktreeSetups.wait(path, signal),
    stopSetup: (path) => this.stopSetup(path),
  });
  /** Sessions started in a worktree of their own, and their commit / merge / push / discard. */
  readonly sessionWorktrees: SessionWorktreeService;
  /** Features' list, status and clean over the feature index (see docs/features.md). */
  readonly features: FeatureService;
  /** The disk under the database: full-disk episodes, writes kept in memory until space returns. */
  readonly storage: StorageHealth;
  readonly dbPath: string;
  /** The start-up quick_check of the database (re-run after a restore). */
  integrity: IntegrityReport;
  private backupTimer: NodeJS.Timeout | null = null;
  private backupRunning: Promise<BackupInfo | null> | null = null;
  private disposed = false;
  private storagePublishQueued = false;
  /** Listeners of committed event-log batches: whatever they publish was persisted first. */
  private readonly persistedListeners = new Set<(batch: readonly StoredEvent[]) => void>();

  private constructor(readonly options: HostOptions) {
    const log = options.logger;
    try {
      mkdirSync(options.dataDir, { recursive: true });
    } catch (e) {
      throw describeOpenError(e, databasePath(options.dataDir));
    }
    this.router = new Router(log.child('bridge'));
    this.gitPrograms = new GitProgramAllowList(options.dataDir);
    setAllowedGitPrograms((commonDir) => this.gitPrograms.allowed(commonDir));
    this.dbPath = databasePath(options.dataDir);
    this.db = openDatabase(this.dbPath);
    // Checked by the long-lived hosts (checkIntegrity), not here: a short CLI command must not read the whole file.
    this.integrity = { ok: true, complete: false, problems: [], checkedAt: 0 };
    this.storage = storageHealthOf(this.db) ?? new StorageHealth(options.dataDir);
    let lastEventError: string | null = null;
    this.events = new EventLog(this.db, {
      ...(options.storageRetry ? { retryBaseMs: options.storageRetry.baseMs, retryMaxMs: options.storageRetry.maxMs } : {}),
      // Past the memory bound on a full disk only streamed bulk is left out; the conversation keeps the full text.
      droppable: (type) => BULK_EVENT_TYPES.has(type),
      onPersisted: (batch) => {
        lastEventError = null;
        for (const listener of this.persistedListeners) listener(batch);
      },
      onError: (e) => {
        log.error('event log flush failed', { error: e, unsaved: this.events.pending });
        // A full disk is told once by the storage watcher; another failure once per distinct message, not per retry.
        const message = e instanceof Error ? e.message : String(e);
        if (storageProblem(e) || message === lastEventError) return;
        lastEventError = message;
        const err = e instanceof AppError ? e.toShape() : undefined;
        this.hub.publish('app.notice', { level: 'error', title: 'Could not save agent events', message, ...(err ? { error: err } : {}) });
      },
    });
    this.storage.configure({
      notify: (n) => {
        log.warn(n.message);
        this.hub.publish('app.notice', n);
      },
      changed: () => {
        this.publishStorage();
        // Messages queued behind a turn that ended while the disk was full go once it takes writes.
        if (this.storage.state === 'ok') this.agents?.storageRecovered();
      },
      pendingElsewhere: () => this.events.pending,
      // One row rewritten: a commit needs new WAL space, so it succeeds only when the disk takes writes.
      probe: () => {
        this.db.prepare("INSERT INTO settings (key, value) VALUES ('internal.storageProbe', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value").run(JSON.stringify(Date.now()));
      },
      ...(options.storageRetry ? { retryBaseMs: options.storageRetry.baseMs, retryMaxMs: options.storageRetry.maxMs } : {}),
    });
    // Requests that write on a full disk answer `disk_full` naming the data folder (and the user hears it once).
    this.router.translateError = (e) => this.storage.failed(e);
    this.settings = new SettingsService(this.db, this.hub);
    this.projects = new ProjectService(this.db, this.hub, log.child('projects'));
    this.trust = new TrustService({ db: this.db, hub: this.hub, log: log.child('trust') });

    registerAppHandlers(this.router, this, options.platform);
    registerProjectHandlers(this.router, this.projects);
    registerTrustHandlers(this.router, this.trust, this.projects);
    registerFolderHandlers(this.router);
    registerWorktreeHandlers(this.router, this.worktrees, this.projects, this.worktreeSetups, (sessionId) => this.sessionWorktrees.worktreeOf(sessionId));
    registerFeatureReviewHandlers(this.router, this.db, this.projects);
    this.inbox = new InboxService({
      dataDir: options.dataDir,
      hub: this.hub,
      logger: log.child('inbox'),
      sessionRoot: (id) => this.agents.sessions.get(id)?.root ?? null,
      projectIdOf: (path) => this.projects.list().find((p) => p.path === path)?.id ?? null,
    });
    registerInboxHandlers(this.router, this.inbox);
    this.features = new FeatureService({ db: this.db, log: log.child('features'), hub: this.hub, projects: this.projects, worktrees: this.worktrees });
    registerFeatureListHandlers(this.router, this.features, this.projects);
    this.terminals = new TerminalService({
      hub: this.hub,
      projects: this.projects,
      events: this.events,
      log: log.child('terminals'),
      processRecordsDir: join(options.dataDir, 'run', 'terminal-sessions'),
      // A terminal or agent command in a worktree gets the worktree's PORT (worktree.ports).
      envFor: worktreeEnv,
    });
    registerTerminalHandlers(this.router, this.terminals);
    this.agents = new AgentService({
      db: this.db,
      events: this.events,
      hub: this.hub,
      logger: log.child('agents'),
      settings: this.settings,
      projects: this.projects,
      dataDir: options.dataDir,
      ...(options.secretStore ? { secrets: options.secretStore } : {}),
      // Agents' commands run in terminals the user can open and watch (HostOptions.commandRunner overrides).
      runner: options.commandRunner ?? new PtyCommandRunner(this.terminals),
    });
    this.onEventsPersisted((batch) => this.agents.sink.onPersisted(batch));
    this.agents.onSessionRemoved = (sessionId) => {
      for (const t of this.terminals.list()) if (t.owner.sessionId === sessionId) this.terminals.close(t.id);
    };
    registerAgentHandlers(this.router, this.agents);
    this.sessionWorktrees = new SessionWorktreeService({ db: this.db, agents: this.agents, hub: this.hub, projects: this.projects, worktrees: this.worktrees, logger: log.child('session-worktrees') });
    registerSessionWorktreeHandlers(this.router, this.sessionWorktrees, this.projects);
    registerConnectionTestHandlers(this.router, this.agents.profiles);
    this.coder = new CoderService({ db: this.db, hub: this.hub, settings: this.settings, agents: this.agents, logger: log.child('coder'), dataDir: options.dataDir, ...(options.coderEnv ? { envOverrides: options.coderEnv } : {}) });
    registerCoderHandlers(this.router, this.coder);
    this.mcp = new McpService({
      settings: this.settings,
      // The same store as provider keys (two FileSecretStores on one file read it afresh on every get).
      secrets: options.secretStore ?? new FileSecretStore(join(options.dataDir, 'secrets.json')),
      hub: this.hub,
      logger: log.child('mcp'),
      sessionProject: (id) => this.agents.sessions.get(id)?.projectId,
      projectRoot: (id) => this.projects.get(id).path,
      trusted: async (root) => (await this.trust.status(root)).state === 'trusted',
    });
    registerMcpHandlers(this.router, this.mcp);
    this.coder.mcpConfig = (projectId) => this.mcp.claudeConfig(projectId);
    this.coder.mcpRedact = (tool, text) => this.mcp.redactToolResult(tool, text);
    this.containers = new ContainerService({
      dataDir: options.dataDir,
      logger: log.child('containers'),
      terminals: this.terminals,
      placements: settingsPlacementStore(this.settings),
      sessionInfo: (id) => {
        const s = this.agents.sessions.get(id);
        return s ? { root: s.root, projectId: s.projectId } : null;
      },
      onSyncState: (sessionId, state) => this.hub.publish('containers.workspace.syncState', { sessionId, state }),
    });
    // A session placed in a container runs its commands there; every other session stays on the host.
    this.agents.placementRunner = (id) => (this.containers.placement(id) ? new ContainerRunner(this.containers, id) : null);
    this.coder.placementLaunch = (id) => (this.containers.placement(id) ? () => this.containers.claudeLaunch(id) : null);
    registerContainerHandlers(this.router, this.containers, this.hub);
    this.driver = new SessionDriver(this.agents, this.coder);
    this.mailbox = new MailboxService({ dataDir: options.dataDir, settings: this.settings, projects: this.projects, driver: this.driver, hub: this.hub, logger: log.child('mailbox'), sessionExists: (id) => this.agents.sessions.get(id) !== undefined, containers: this.containers, worktrees: this.worktrees, trust: this.trust });
    registerMailboxHandlers(this.router, this.mailbox, this.hub);
    this.budgets = new BudgetService({ db: this.db, hub: this.hub, settings: this.settings, projects: this.projects, logger: log.child('budgets') });
    this.agents.callGuards.add((sessionId) => this.budgets.beforeModelCall(sessionId));
    registerBudgetHandlers(this.router, this.budgets);
    // A repository's own prompt templates are used only while the user trusts exactly what its prompt folders hold.
    const trustedConfig = async (root: string, config: FeaturesConfig) => {
      const t = await this.trust.apply(root, config);
      // A host given its own templates policy (tests of the template boundary) lets it decide the template folders too.
      return options.repositoryTemplates?.(root) ? { ...t.config, prompts: config.prompts } : t.config;
    };
    const repositoryTemplates: RepositoryTemplatesPolicy = options.repositoryTemplates ?? ((root) => this.trust.templatesTrusted(root));
    this.reviewComments = new ReviewCommentService({ db: this.db });
    registerSessionCommentHandlers(this.router, this.reviewComments, { getSession: (id) => this.agents.getSession(id), submit: (id, input) => this.agents.submit(id, input) });
    registerReviewCommentHandlers(this.router, this.reviewComments, this.projects, this.worktrees, async (root, slug) => {
      await reopenFeatureForFix(root, slug, new Date());
      // The run's outcome arrives as run events, like any run started from the feature page.
      return (await this.featureRuns.enqueue({ projectPath: root, slug })).id;
    });
    // A feature's approved agent settings live here, not only in its worktree's state.yml (which its agent can write).
    const approvals = new FeatureApprovals(this.db);
    this.featureRuns = new FeatureRunService({ db: this.db, events: this.events, hub: this.hub, logger: log.child('feature-runs'), settings: this.settings, projects: this.projects, agents: this.agents, driver: this.driver, terminals: this.terminals, containers: runContainers(this.containers), dataDir: options.dataDir, repositoryTemplates, trustedConfig, comments: this.reviewComments, approvals, repositoryTrusted: (root) => this.trust.templatesTrusted(root), prFeedback: (root, slug) => this.prFollow.fixRound(root, slug), setupDone: (worktree, signal, onWait, root) => this.setupWait(worktree, signal, onWait, root) });
    this.onEventsPersisted((batch) => this.featureRuns.onPersisted(batch));
    registerFeatureRunHandlers(this.router, this.featureRuns, this.projects);
    this.prFollow = new PrFollowService({
      db: this.db,
      hub: this.hub,
      logger: log.child('pr-follow'),
      // pr.auto_merge only from a trusted repository (trust/trust-parts).
      trustedConfig,
      forge: new GhPrForge(),
      inbox: this.inbox,
      projectIdOf: (root) => this.projects.list().find((p) => p.path === root)?.id ?? null,
      runs: {
        startFix: async (root, slug, o) => {
          if (o.reopen) await reopenFeatureForFix(root, slug, new Date());
          return (await this.featureRuns.enqueue({ projectPath: root, slug })).id;
        },
        isLive: (root, slug) => this.featureRuns.list().some((r) => r.projectPath === root && r.slug === slug && (r.status === 'queued' || r.status === 'running' || r.status === 'cancelling')),
      },
    });
    registerPrHandlers(this.router, this.prFollow, this.projects);
    this.featureCandidates = new FeatureCandidateService({ db: this.db, runs: this.featureRuns, git: new CandidateGitOps(), logger: log.child('feature-candidates'), driver: this.driver, trustedConfig, projectIdOf: (root) => this.projects.list().find((p) => p.path === root)?.id ?? null, prepare: (root, tree) => this.worktrees.prepareMade(root, tree), setupDone: (tree, root) => this.setupWait(tree, undefined, undefined, root), stopSetup: (tree) => this.stopSetup(tree) });
    registerCandidateHandlers(this.router, this.featureCandidates, this.projects);
    this.planning = new PlanningService({ dataDir: options.dataDir, driver: this.driver, worktrees: this.worktrees, hub: this.hub, log: log.child('planning'), repositoryTemplates, trustedConfig, approvals });
    registerPlanningHandlers(this.router, this.planning, this.projects, log.child('planning'));
    this.autopilot = new AutopilotService({ db: this.db, hub: this.hub, projects: this.projects, worktrees: this.worktrees, driver: () => this.driver, dataDir: options.dataDir, logger: log.child('autopilot'), terminals: this.terminals, placement: (id) => this.agents.placementRunner?.(id) ?? null, sandboxNetwork: () => ({ mode: this.agents.settings().sandboxNetwork, allowedDomains: this.agents.settings().sandboxAllowedDomains }), repositoryTemplates });
    registerAutopilotHandlers(this.router, this.autopilot);
    this.changes = new ChangesService({
      hub: this.hub,
      logger: log.child('changes'),
      session: (id) => {
        const s = this.agents.sessions.get(id);
        if (!s) throw new AppError('not_found', `There is no session ${id}.`);
        return s;
      },
      isRunning: (id) => this.agents.isRunning(id),
    });
    registerChangesHandlers(this.router, this.changes);
  }

  static async create(options: HostOptions): Promise<AppServices> {
    const services = new AppServices(options);
    try {
      await services.start();
    } catch (e) {
      services.dispose();
      throw e;
    }
    return services;
  }

  /** Subscribe to every batch the event log commits (all runs); returns the unsubscribe. */
  onEventsPersisted(listener: (batch: readonly StoredEvent[]) => void): () => void {
    this.persistedListeners.add(listener);
    return () => this.persistedListeners.delete(listener);
  }

  get dataDir(): string {
    return this.options.dataDir;
  }

  storageStatus(): StorageStatus {
    return {
      dataDir: this.dataDir,
      dbPath: this.dbPath,
      writes: this.storage.state,
      writesMessage: this.storage.message,
      unsaved: this.storage.keptWrites + this.events.pending,
      integrity: this.integrity.ok ? 'ok' : 'damaged',
      integrityProblems: this.integrity.problems,
      backups: listBackups(this.dataDir),
    };
  }

  /**
   * Coalesced to one status per turn of the event loop: the storage watcher reports every kept
   * write added or saved, and draining thousands after a full disk must not list the backup
   * folder and publish once per write.
   */
  private publishStorage(): void {
    if (this.disposed || this.storagePublishQueued) return;
    this.storagePublishQueued = true;
    queueMicrotask(() => {
      this.storagePublishQueued = false;
      if (!this.disposed) this.hub.publish('app.storage.changed', this.storageStatus());
    });
  }

  /**
   * The start-up check of the database file (time-boxed quick_check), run by the long-lived hosts
   * (the window, browser mode) as they start, and before any automatic backup.
   */
  checkIntegrity(): IntegrityReport {
    this.integrity = quickCheck(this.db, this.dbPath);
    if (!this.integrity.ok) this.options.logger.error('the database failed its start-up check', { path: this.dbPath, problems: this.integrity.problems });
    return this.integrity;
  }

  /**
   * Takes today's automatic backup if none was taken in the last day. A damaged database is
   * never backed up (it would push a good backup out of the rotation).
   */
  async backupIfDue(now = Date.now()): Promise<BackupInfo | null> {
    if (!this.disposed && this.integrity.checkedAt === 0) this.checkIntegrity();
    if (this.disposed || !this.integrity.ok || !backupDue(this.dataDir, now)) return null;
    return this.backupNow(now);
  }

  async backupNow(now = Date.now()): Promise<BackupInfo | null> {
    if (this.backupRunning) return this.backupRunning;
    this.backupRunning = takeBackup(this.db, this.dataDir, now)
      .then((b) => {
        this.options.logger.info('database backed up', { file: b.file });
        this.publishStorage();
        return b;
      })
      .finally(() => {
        this.backupRunning = null;
      });
    return this.backupRunning;
  }

  /**
   * Replaces the database with a backup (the latest unless one is named). Refused while a turn
   * runs; the replaced file is kept beside the database. Everything reads the restored data at once.
   */
  async restoreDatabase(which?: string): Promise<RestoreResult> {
    const running = this.agents.listSessions().filter((s) => this.agents.isRunning(s.id));
    if (running.length) throw new AppError('conflict', 'An agent turn is running; cancel it before restoring the database.');
    const backup = resolveBackup(this.dataDir, which, { automaticOnly: true });
    // Whatever is still buffered belongs to the data being replaced; it is written first, so it is in the kept copy.
    this.events.flush();
    const result = await restoreBackup(this.dbPath, backup.file);
    this.integrity = quickCheck(this.db, this.dbPath);
    this.options.logger.warn('database restored from a backup', { ...result });
    this.hub.publish('app.notice', {
      level: 'success',
      title: 'Database restored',
      message: `Restored the backup of ${new Date(backup.takenAt).toLocaleString()}. The replaced database is kept at ${result.keptAs || '(nothing was there)'}.`,
    });
    this.publishStorage();
    this.hub.publish('projects.changed', { projects: this.projects.list() });
    return result;
  }

  private async start(): Promise<void> {
    this.terminals.start();
    this.agents.start();
    this.coder.start();
    // MCP tools join the Claude Code executor's plan tool in the built-in loop's tool list.
    const coderTools = this.agents.extraTools;
    // A session placed in a container gets none: its servers would run here, on the host, outside
    // the isolation the placement promises (Claude Code in a container gets none either).
    const hostSession = (sessionId: string) => this.containers.placement(sessionId) === null;
    this.agents.extraTools = (sessionId, mode) => [...(coderTools?.(sessionId, mode) ?? []), ...(hostSession(sessionId) ? this.mcp.toolsFor(sessionId) : [])];
    this.agents.prepareExtraTools = async (sessionId) => (hostSession(sessionId) ? this.mcp.prepare(sessionId) : []);
    this.agents.fixedToolPolicy = (tool) => this.mcp.toolPolicy(tool);
    this.inbox.start();
    this.featureRuns.start();
    // Delivered PRs are recorded by every process; only long-lived hosts look at them (prFollow.start).
    this.prFollow.attach();
    // Containers left by a Flightdeck that crashed are removed (kept ones re-attached) without delaying start-up.
    this.containers.reap(undefined, { localOnly: true }).catch((e: unknown) => this.options.logger.warn('could not reap orphaned containers', { error: e }));
    this.changes.start();
    this.worktrees.start();
    this.worktreeSetups.start();
    this.planning.start();
    this.autopilot.start();
    this.sessionWorktrees.start();
    this.features.start();
    const tick = () => {
      this.backupIfDue().catch((e: unknown) => {
        // A backup that fails (full disk, damaged file) is retried at the next tick; the live data is untouched.
        this.options.logger.warn('automatic backup failed', { error: e });
      });
    };
    // The first check waits a minute so a short CLI command never pays for a backup; hourly after that.
    const schedule = (delay: number) => {
      this.backupTimer = setTimeout(() => {
        tick();
        schedule(BACKUP_CHECK_INTERVAL_MS);
      }, delay);
      this.backupTimer.unref?.();
    };
    schedule(BACKUP_FIRST_CHECK_MS);
  }

  /**
   * Waits for a worktree's setup to end (`onWait` hears the command running when there is one to
   * wait for); its problem in words, null when it finished well or none ran. A setup a restart
   * cut off is run again first (as the repository's trust allows now): a run resumed after the
   * restart needs what it installs, and the user did not stop it.
   */
  async setupWait(worktree: string, signal?: AbortSignal, onWait?: (command: string) => void, root?: string): Promise<string | null> {
    // `root` is the repository the run or candidate belongs to, as Flightdeck recorded it (not
    // read from the worktree, which an agent can write): its trust and setup commands apply.
    if (root && this.worktreeSetups.status(worktree)?.state === 'interrupted') {
      try {
        await this.worktreeSetups.rerun(root, worktree);
      } catch (e) {
        // Refused (no longer trusted, no setup any more): the wait below reports the interruption.
        this.options.logger.warn('an interrupted setup was not run again', { worktree, error: e });
      }
    }
    const now = this.worktreeSetups.status(worktree);
    if (now && (now.state === 'pending' || now.state === 'running')) onWait?.(now.commands[now.step] ?? '');
    return setupProblem(await this.worktreeSetups.wait(worktree, signal));
  }

  /** Stops a worktree's running setup and waits for it to end (before the worktree is removed). */
  private async stopSetup(path: string): Promise<void> {
    if (this.worktreeSetups.cancel(path)) await this.worktreeSetups.wait(path);
  }

  /** The project's config as its trust allows, with what was left out in words. */
  private async trustedWorktree(root: string, config: FeaturesConfig): Promise<{ config: FeaturesConfig; skipped: readonly string[] }> {
    const t = await this.trust.apply(root, config);
    return { config: t.config, skipped: t.skipped.map((part) => skippedText(part, t.status.items)) };
  }

  /** Stops everything that runs and closes the database. Safe to call twice. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.backupTimer) clearTimeout(this.backupTimer);
    this.storage.dispose();
    // First: a run in flight is recorded as interrupted while the agents and the database are still there.
    this.featureRuns.dispose();
    this.prFollow.dispose();
    // Before the agents: runs in progress are recorded as paused while the database is open.
    this.autopilot.dispose();
    // Closes the state file watchers; a reconcile still running finds the database closed and only logs it.
    void this.features.dispose();
    this.sessionWorktrees.dispose();
    this.planning.dispose();
    this.worktrees.dispose();
    this.worktreeSetups.dispose();
    this.changes.dispose();
    this.coder.dispose();
    this.mcp.dispose();
    this.inbox.dispose();
    // Watchers stop taking files; a task in flight stays claimed and is reported as interrupted at the next start.
    void this.mailbox.dispose();
    // Quitting stops this app's containers (except kept ones); the requests go out now, the engine finishes them.
    void this.containers.shutdown();
    this.agents.dispose();
    this.terminals.dispose();
    this.projects.dispose();
    this.events.dispose();
    this.db.close();
  }
}
