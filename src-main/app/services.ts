import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { AppError } from '../../src-preload/contract';
import { EventHub } from '../bridge/event-hub';
import { Router } from '../bridge/router';
import type { Logger } from '../platform/logger';
import { ProjectService } from '../projects/project-service';
import { registerProjectHandlers } from '../projects/handlers';
import { SettingsService } from '../settings/settings-service';
import { openDatabase, type Database } from '../store/db';
import { EventLog } from '../store/event-log';
import type { StoredEvent } from '../store/event-log';
import { registerAppHandlers, type Platform } from './handlers';
import { TerminalService } from '../terminals/terminal-service';
import { registerTerminalHandlers } from '../terminals/handlers';
import { AgentService } from '../agents/agent-service';
import { registerAgentHandlers } from '../agents/handlers';
import { CoderService } from '../coder/coder-service';
import { registerCoderHandlers } from '../coder/handlers';
import type { SecretStore } from '../agents/provider/secrets';
import type { CommandRunner } from '../agents/tools/command-runner';
import { PtyCommandRunner } from '../terminals/agent-command-runner';

export interface HostOptions {
  dataDir: string;
  logger: Logger;
  /** What only the desktop shell can do; browser mode and the CLI leave these out. */
  platform: Platform;
  /** Where provider API keys live; Electron passes a safeStorage-backed store. Default: a 0600 file in the data folder. */
  secretStore?: SecretStore;
  /** How agents run commands; default: in terminals (PtyCommandRunner). */
  commandRunner?: CommandRunner;
  /** Environment overrides for every Claude Code run (tests: a temp HOME, no CLI-side API retries). */
  coderEnv?: Readonly<Record<string, string | undefined>>;
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
  readonly terminals: TerminalService;
  readonly agents: AgentService;
  readonly coder: CoderService;
  private disposed = false;
  /** Listeners of committed event-log batches: whatever they publish was persisted first. */
  private readonly persistedListeners = new Set<(batch: readonly StoredEvent[]) => void>();

  private constructor(readonly options: HostOptions) {
    const log = options.logger;
    mkdirSync(options.dataDir, { recursive: true });
    this.router = new Router(log.child('bridge'));
    this.db = openDatabase(join(options.dataDir, 'flightdeck.db'));
    this.events = new EventLog(this.db, {
      onPersisted: (batch) => {
        for (const listener of this.persistedListeners) listener(batch);
      },
      onError: (e) => {
        log.error('event log flush failed', { error: e });
        const err = e instanceof AppError ? e.toShape() : undefined;
        this.hub.publish('app.notice', {
          level: 'error',
          title: 'Could not save agent events',
          message: e instanceof Error ? e.message : String(e),
          ...(err ? { error: err } : {}),
        });
      },
    });
    this.settings = new SettingsService(this.db, this.hub);
    this.projects = new ProjectService(this.db, this.hub, log.child('projects'));

    registerAppHandlers(this.router, this, options.platform);
    registerProjectHandlers(this.router, this.projects);
    this.terminals = new TerminalService({ hub: this.hub, projects: this.projects, events: this.events, log: log.child('terminals') });
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
    this.coder = new CoderService({ db: this.db, hub: this.hub, settings: this.settings, agents: this.agents, logger: log.child('coder'), ...(options.coderEnv ? { envOverrides: options.coderEnv } : {}) });
    registerCoderHandlers(this.router, this.coder);
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

  private async start(): Promise<void> {
    this.terminals.start();
    this.agents.start();
    this.coder.start();
  }

  /** Stops everything that runs and closes the database. Safe to call twice. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.coder.dispose();
    this.agents.dispose();
    this.terminals.dispose();
    this.projects.dispose();
    this.events.dispose();
    this.db.close();
  }
}
