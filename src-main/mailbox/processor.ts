/**
 * The mailbox watcher: takes command files from `commands/pending/` once they are complete,
 * runs each exactly once through an agent session, writes the session file, the logs and both
 * reports, and moves the file to `commands/processed/` (the completion signal). A file that
 * cannot run goes to `commands/rejected/` with its reasons; nothing stops the watcher.
 *
 * Completeness: a file is taken when its size and modification time have not changed for
 * `stableMs` (a writer that renames a finished file into place is taken on the next look).
 * Editor temporary files (dot files, `~` backups, swap files) are never looked at.
 * Exactly once: the processing journal (journal.ts) claims each command id exclusively before
 * anything runs, and after a crash a claimed-but-unfinished task is reported as interrupted,
 * never run again.
 *
 * Where a task runs is a placement (`host`, `container`): the host runs the agent in the
 * mailbox's workspace; a container placement plugs in through `TaskPlacement`.
 */
import { appendFileSync, closeSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { isAbsolute, join, relative, sep } from 'node:path';
import { randomBytes } from 'node:crypto';
import { watch as chokidarWatch, type FSWatcher } from 'chokidar';
import type { AgentEvent, RunPlacement } from '../../src-preload/contract';
import { writeFileAtomic } from '../platform/atomic-file';
import { KeyedLock } from '../platform/keyed-lock';
import type { Logger } from '../platform/logger';
import { adrsWritten } from './adr';
import { checkCommandAgainstState, parseCommandFile, type CommandFile, type CommandProblem, type ParseResult, type Placement } from './command-file';
import { loadContext, contextFolders } from './context';
import { Journal, entryOwnerAlive, registerOwnerToken, releaseOwnerToken, type JournalEntry } from './journal';
import { ensureMailbox, loadCommandFile, markProcessed, rejectCommandFile, type LoadedCommandFile, type MailboxLayout } from './layout';
import { checkMissionUpdate, ensureMission, readClaudercPrompt, readMission, type MissionLanguage } from './mission';
import { LOG_SUMMARY_LINES, extractJudgement, formatDetailedReport, formatReport, reportStatus, type CheckFact, type TaskFacts, type ToolCallFact } from './report';
import { endSession, newSession, readSessionFile, recordTurn, writeSessionFile, type SessionFile } from './session-file';
import { taskInstructions, taskPrompt } from './task-prompt';
import { snapshotWorkspace, workspaceChanges } from './workspace-facts';

/** The format's default task timeout: ten minutes, adjustable per mailbox and per command (`timeout`). */
export const DEFAULT_TASK_TIMEOUT_MS = 10 * 60 * 1000;
/** How often `pending/` is listed even without a change notice: file-system events are lost on network mounts and in containers, and the format's monitor polls. */
export const DEFAULT_POLL_MS = 1000;
/** A file is complete when its size and time have not changed for this long; a writer pausing longer than this between writes should write elsewhere and rename. */
export const DEFAULT_STABLE_MS = 500;
/** Tasks running at once per mailbox: each is an agent turn with its own model calls and commands, and the machine is shared. */
export const DEFAULT_MAX_CONCURRENT = 4;
/** Longest a report's quoted runtime log line may be. */
const MAX_LOG_LINE = 400;

/** What the processor needs from the agent engine (an adapter over the SessionDriver; tests may use the real one). */
export interface MailboxAgentPort {
  createSession(o: { workspace: string; projectId: string | null; title: string; engine: string | undefined }): string;
  /** `instructions`: the session's standing instructions from this turn on (its system prompt). */
  runTurn(sessionId: string, input: string, o: { signal: AbortSignal; instructions: string }): Promise<MailboxTurn>;
  /** Live events of every session; returns the unsubscribe. */
  subscribe(listener: (e: AgentEvent) => void): () => void;
}

/** The part of the SessionDriver's TurnReport the mailbox reads. */
export interface MailboxTurn {
  sessionId: string;
  outcome: string;
  text: string;
  finalText: string;
  toolCalls: { tool: string; input: unknown; output: string | null; isError: boolean }[];
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number;
  modelCalls: number;
  message: string | null;
}

/** A project's default container placement (the image may be left to the mailbox's setting). */
export type ProjectContainerDefault = Extract<RunPlacement, { kind: 'container' }>;

export interface PlacementContext {
  command: CommandFile;
  root: string;
  workspace: string;
  sessionId: string;
  /** The project's default container settings (its `.flightdeck/config.yml`), for a session not placed yet. */
  projectDefault?: ProjectContainerDefault | null;
}

/**
 * Prepares the place a task's turn runs in; `release` runs after the turn (stop a container…).
 * `notes` are said in the task's report (e.g. a continue that changed the session's container).
 * A throw fails the task with its message, before the agent's turn.
 */
export interface TaskPlacement {
  readonly name: Placement;
  /** Whether the session already works here (a `continue` that names no placement stays where its session is). */
  holds?(sessionId: string): boolean;
  prepare(ctx: PlacementContext): Promise<{ workspace: string; label: string; notes?: string[]; release(): Promise<void> }>;
}

/** The host placement: the agent works in the workspace directly. */
export const hostPlacement: TaskPlacement = {
  name: 'host',
  async prepare(ctx) {
    return { workspace: ctx.workspace, label: 'host', async release() {} };
  },
};

export interface MailboxProcessorOptions {
  root: string;
  /** Where `new` sessions work; default `<root>/workspace`. */
  workspace?: string;
  /**
   * Makes sure `workspace` exists before a task runs in it (a project mailbox's worktree, created
   * on first use); absent = the folder is simply created. A failure fails the task with its message.
   */
  ensureWorkspace?: () => Promise<void>;
  projectId?: string | null;
  agent: MailboxAgentPort;
  /** The global context layer's folder (`<data folder>/context/global`). */
  globalContextDir?: string | null;
  /** The template of an AGENT_MISSION.md created for a workspace that has none: English (default) or the format's Chinese one. */
  missionLanguage?: MissionLanguage;
  placements?: Partial<Record<Placement, TaskPlacement>>;
  defaultPlacement?: Placement;
  /**
   * The project's default placement (its `.flightdeck/config.yml` `agent.placement`), read at
   * each task: over the mailbox's own default, under what the command file says. A config that
   * does not load fails the task with its message (never a silent fall back to the host).
   */
  projectPlacement?: () => Promise<RunPlacement | null>;
  /**
   * Whether the workspace's own `.context/` and `.clauderc` may be read (workspace trust of the
   * project); absent: a mailbox of Flightdeck's own, whose workspace is not a repository's.
   */
  workspaceFilesTrusted?: (workspace: string) => Promise<boolean>;
  taskTimeoutMs?: number;
  pollMs?: number;
  stableMs?: number;
  maxConcurrent?: number;
  /** File-system notices on top of polling (default true). */
  watch?: boolean;
  logger?: Logger;
  /** Told whenever a task starts or finishes, or a file is rejected (the UI refreshes). */
  onChange?: (e: MailboxChange) => void;
}

export type MailboxChange =
  | { kind: 'started'; commandId: string; file: string; sessionId: string | null }
  | { kind: 'finished'; commandId: string; file: string; sessionId: string | null; status: string }
  | { kind: 'rejected'; file: string; reasons: string[] };

interface Observation {
  size: number;
  mtimeMs: number;
  since: number;
}

interface LiveTask {
  id: string;
  file: string;
  controller: AbortController;
  done: Promise<void>;
}

/** Editor temporaries and partial downloads, never taken as commands. */
export function isTemporaryName(name: string): boolean {
  return /^[.#~]/.test(name) || /(~|\.swp|\.swx|\.swo|\.tmp|\.temp|\.part|\.crdownload|\.kate-swp|\.bak)$/i.test(name) || /^\d+$/.test(name);
}

function iso(d = new Date()): string {
  return d.toISOString();
}

export class MailboxProcessor {
  readonly layout: MailboxLayout;
  readonly workspace: string;
  private readonly journal: Journal;
  private readonly token = `mbx-${randomBytes(6).toString('hex')}`;
  private readonly observations = new Map<string, Observation>();
  private readonly ignoredLogged = new Set<string>();
  private readonly live = new Map<string, LiveTask>();
  /** Commands of one session run one after another (a continue waits for the running turn). */
  private readonly sessionLock = new KeyedLock();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private scanning: Promise<void> | null = null;
  private rescan = false;
  private disposed = false;
  private readonly timeoutMs: number;
  private readonly stableMs: number;
  private readonly maxConcurrent: number;
  private readonly placements: Partial<Record<Placement, TaskPlacement>>;
  /** Files in pending/ that another live watcher has claimed. */
  private readonly elsewhere = new Set<string>();
  /** Tasks running per workspace, and whether each shared its workspace with another at some point (its file list is then narrowed). */
  private readonly inWorkspace = new Map<string, Set<{ overlapped: boolean }>>();
  /** The `ensureWorkspace` call in flight, shared by tasks starting meanwhile. */
  private ensuring: Promise<void> | null = null;

  constructor(private readonly o: MailboxProcessorOptions) {
    this.layout = ensureMailbox(o.root);
    this.workspace = o.workspace ?? this.layout.folders.workspace;
    // A worktree is made by git, not by mkdir (git refuses to add one over a folder that is not empty).
    if (!o.ensureWorkspace) mkdirSync(this.workspace, { recursive: true });
    this.journal = new Journal(o.root);
    this.timeoutMs = o.taskTimeoutMs ?? DEFAULT_TASK_TIMEOUT_MS;
    this.stableMs = o.stableMs ?? DEFAULT_STABLE_MS;
    this.maxConcurrent = o.maxConcurrent ?? DEFAULT_MAX_CONCURRENT;
    this.placements = { host: hostPlacement, ...o.placements };
    registerOwnerToken(this.token);
  }

  /** Starts watching: polls `pending/` and reacts to file-system notices. */
  start(): void {
    if (this.disposed || this.timer) return;
    this.monitor(`watching ${this.layout.folders.commandsPending} (workspace ${this.workspace})`);
    if (this.o.watch !== false) {
      this.watcher = chokidarWatch(this.layout.folders.commandsPending, { depth: 0, ignoreInitial: true, ignored: (p: string) => isTemporaryName(p.split(/[\\/]/).pop() ?? '') });
      const poke = () => void this.scan();
      this.watcher.on('add', poke).on('change', poke);
      this.watcher.on('error', (e) => this.monitor(`file watcher error (polling continues): ${(e as Error).message}`));
    }
    const tick = () => {
      if (this.disposed) return;
      void this.scan().finally(() => {
        if (!this.disposed) this.timer = setTimeout(tick, this.o.pollMs ?? DEFAULT_POLL_MS);
      });
    };
    this.timer = setTimeout(tick, 0);
  }

  /** Tasks running now. */
  running(): { id: string; file: string }[] {
    return [...this.live.values()].map((t) => ({ id: t.id, file: t.file }));
  }

  /**
   * Processes until `pending/` holds nothing this watcher can take and every started task has
   * finished (the CLI's `--once`).
   */
  async drain(signal?: AbortSignal): Promise<void> {
    for (;;) {
      if (signal?.aborted || this.disposed) return;
      await this.scan();
      const waiting = this.candidates().length;
      if (this.live.size === 0 && waiting === 0) return;
      if (this.live.size > 0) await Promise.race([...[...this.live.values()].map((t) => t.done), sleep(this.stableMs)]);
      else await sleep(Math.max(50, this.stableMs / 2));
    }
  }

  /** Names in `pending/` that may become tasks (not temporary, not running, not owned by a live watcher elsewhere). */
  private candidates(): string[] {
    let names: string[];
    try {
      names = readdirSync(this.layout.folders.commandsPending);
    } catch {
      // The folder was removed under us: nothing waits; the next scan recreates it.
      return [];
    }
    return names.filter((n) => !isTemporaryName(n) && n.toLowerCase().endsWith('.md') && ![...this.live.values()].some((t) => t.file === n) && !this.ownedElsewhere(n));
  }


  /** Runs the `ensureWorkspace` hook (one at a time: two tasks starting together create the worktree once); the failure's message, or null. */
  private async ensureWorkspace(): Promise<string | null> {
    if (!this.o.ensureWorkspace) return null;
    this.ensuring ??= this.o.ensureWorkspace().finally(() => {
      this.ensuring = null;
    });
    try {
      await this.ensuring;
      return null;
    } catch (e) {
      return `The mailbox's workspace ${this.workspace} could not be prepared: ${(e as Error).message}; the task did not run.`;
    }
  }

  private enterWorkspace(workspace: string): { overlapped: boolean; leave(): void } {
    const set = this.inWorkspace.get(workspace) ?? new Set();
    this.inWorkspace.set(workspace, set);
    const me = { overlapped: set.size > 0 };
    for (const other of set) other.overlapped = true;
    set.add(me);
    let left = false;
    return {
      get overlapped() {
        return me.overlapped;
      },
      leave: () => {
        if (left) return;
        left = true;
        set.delete(me);
        if (set.size === 0) this.inWorkspace.delete(workspace);
      },
    };
  }
  private ownedElsewhere(name: string): boolean {
    return this.elsewhere.has(name);
  }

  /** One look at `pending/` (concurrent calls share one pass; a call during a pass schedules another). */
  scan(): Promise<void> {
    if (this.scanning) {
      this.rescan = true;
      return this.scanning;
    }
    // A pass is synchronous; it runs in a microtask so callers during it share the same promise.
    const pass = Promise.resolve().then(() => {
      try {
        do {
          this.rescan = false;
          this.scanOnce();
        } while (this.rescan && !this.disposed);
      } catch (e) {
        this.monitor(`scan failed (retrying on the next poll): ${(e as Error).message}`);
      }
    });
    this.scanning = pass.finally(() => {
      this.scanning = null;
    });
    return this.scanning;
  }

  private scanOnce(): void {
    if (this.disposed) return;
    const dir = this.layout.folders.commandsPending;
    mkdirSync(dir, { recursive: true });
    const names = readdirSync(dir).sort();
    const present = new Set(names);
    for (const n of [...this.observations.keys()]) if (!present.has(n)) this.observations.delete(n);
    for (const n of [...this.elsewhere]) if (!present.has(n)) this.elsewhere.delete(n);
    const ready: { name: string; loaded: LoadedCommandFile; parsed: ParseResult | null }[] = [];
    for (const name of names) {
      if (this.disposed) return;
      if (isTemporaryName(name)) continue;
      if (!name.toLowerCase().endsWith('.md')) {
        if (!this.ignoredLogged.has(name)) {
          this.ignoredLogged.add(name);
          this.monitor(`ignored ${name}: command files end in .md`);
        }
        continue;
      }
      if ([...this.live.values()].some((t) => t.file === name)) continue;
      if (!this.isComplete(name)) {
        this.rescanSoon();
        continue;
      }
      try {
        const loaded = loadCommandFile(join(dir, name));
        ready.push({ name, loaded, parsed: loaded.ok ? parseCommandFile(loaded.bytes) : null });
      } catch (e) {
        this.monitor(`could not read ${name} (trying again on the next poll): ${(e as Error).message}`);
      }
    }
    // Commands run in the order they were created (a continue written after its end must not
    // overtake it); files that cannot run go first, they take no slot.
    const at = (r: (typeof ready)[number]) => (r.parsed?.ok ? r.parsed.command.createdAtMs : -Infinity);
    ready.sort((a, b) => at(a) - at(b) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const r of ready) {
      if (this.disposed) return;
      if (r.parsed?.ok && this.live.size >= this.maxConcurrent) return;
      try {
        this.take(r.name, r.loaded, r.parsed);
      } catch (e) {
        this.monitor(`could not take ${r.name} (trying again on the next poll): ${(e as Error).message}`);
      }
    }
  }

  private rescanTimer: NodeJS.Timeout | null = null;
  /** A file waiting to become stable is looked at again when it could be, not only at the next poll. */
  private rescanSoon(): void {
    if (this.rescanTimer || this.disposed || !this.timer) return;
    this.rescanTimer = setTimeout(() => {
      this.rescanTimer = null;
      void this.scan();
    }, this.stableMs + 10);
  }

  /** Whether a file has stopped changing (special files are "complete" at once: the loader refuses them). */
  private isComplete(name: string): boolean {
    let st;
    try {
      st = lstatSync(join(this.layout.folders.commandsPending, name));
    } catch {
      // Gone between the listing and now: nothing to take.
      return false;
    }
    if (!st.isFile()) return true;
    const now = Date.now();
    const seen = this.observations.get(name);
    if (!seen || seen.size !== st.size || seen.mtimeMs !== st.mtimeMs) {
      this.observations.set(name, { size: st.size, mtimeMs: st.mtimeMs, since: now });
      return this.stableMs === 0;
    }
    return now - seen.since >= this.stableMs;
  }

  private reject(name: string, problems: readonly CommandProblem[]): void {
    const r = rejectCommandFile(this.o.root, name, problems);
    this.observations.delete(name);
    const reasons = problems.map((p) => p.message);
    this.monitor(`rejected ${name} → ${r.file.slice(this.o.root.length + 1)}: ${reasons.join(' | ')}`);
    this.o.onChange?.({ kind: 'rejected', file: name, reasons });
  }

  /** Decides what to do with a complete file: reject, finish a half-done one, run it, or leave it to its owner. */
  private take(name: string, loaded: LoadedCommandFile, parsed: ParseResult | null): void {
    if (!loaded.ok) return this.reject(name, [loaded.problem]);
    if (!parsed) return;
    if (!parsed.ok) return this.reject(name, parsed.problems);
    const cmd = parsed.command;
    for (const w of parsed.warnings) this.monitor(`${name}: warning: ${w.message}`);

    let entry: JournalEntry | undefined;
    try {
      entry = this.journal.get(cmd.id);
    } catch {
      // Being written by another watcher this instant (or damaged): look again on the next poll.
      return;
    }
    if (entry && entry.file === name && entry.state !== 'done') {
      if (entry.state === 'running' && entryOwnerAlive(entry) && entry.ownerToken !== this.token) {
        this.elsewhere.add(name);
        return;
      }
      this.recover(this.journal.adopt(entry, this.token), cmd);
      return;
    }
    const problems = checkCommandAgainstState(cmd, {
      isKnownCommandId: (id) => entry !== undefined || this.journal.has(id),
      sessionStatus: (sid) => {
        try {
          return readSessionFile(this.o.root, sid)?.status;
        } catch {
          // A damaged session file cannot take a command; reported as an unknown session.
          return undefined;
        }
      },
    });
    if (problems.length > 0) return this.reject(name, problems);
    if (!this.journal.claim({ id: cmd.id, file: name, sessionId: cmd.sessionId, claimedAt: iso(), ownerToken: this.token })) {
      // Another watcher claimed it between our read and our claim.
      this.elsewhere.add(name);
      return;
    }
    const claimed = this.journal.get(cmd.id)!;
    this.launch(claimed, cmd, (signal, timedOut, sessionCreated) => this.execute(claimed, cmd, signal, timedOut, sessionCreated));
  }

  /** Sessions whose `new` task is still running: a continue or end for one waits for it. */
  private readonly sessionBusy = new Map<string, Promise<void>>();

  private launch(entry: JournalEntry, cmd: CommandFile, body: (signal: AbortSignal, timedOut: () => boolean, sessionCreated: (id: string) => void) => Promise<void>): void {
    const controller = new AbortController();
    let timedOut = false;
    let finished!: () => void;
    const whenFinished = new Promise<void>((r) => (finished = r));
    let createdSession: string | null = null;
    const task: LiveTask = { id: cmd.id, file: entry.file, controller, done: Promise.resolve() };
    this.live.set(cmd.id, task);
    const limit = cmd.timeoutMs ?? this.timeoutMs;
    const key = cmd.sessionId ?? `new:${cmd.id}`;
    task.done = this.sessionLock
      .run(key, async () => {
        const busy = cmd.sessionId ? this.sessionBusy.get(cmd.sessionId) : undefined;
        if (busy) await busy;
        if (this.disposed) return;
        // The time limit counts from the moment the task may run (after an earlier turn of its session).
        const timer = setTimeout(() => {
          timedOut = true;
          this.monitor(`${cmd.id}: timed out after ${Math.round(limit / 1000)} s; stopping the agent`);
          controller.abort(new Error('timeout'));
        }, limit);
        try {
          await body(
            controller.signal,
            () => timedOut,
            (id) => {
              createdSession = id;
              this.sessionBusy.set(id, whenFinished);
            },
          );
        } finally {
          clearTimeout(timer);
        }
      })
      .catch((e: unknown) => {
        this.monitor(`${cmd.id}: task failed outside the agent: ${(e as Error).message}`);
        this.o.logger?.error('mailbox task failed', { id: cmd.id, error: e });
      })
      .finally(() => {
        finished();
        if (createdSession && this.sessionBusy.get(createdSession) === whenFinished) this.sessionBusy.delete(createdSession);
        this.live.delete(cmd.id);
        if (!this.disposed) void this.scan();
      });
  }

  /** Finishes a task a stopped watcher left behind: reports it as interrupted (never runs it again), or completes its move. */
  private recover(entry: JournalEntry, cmd: CommandFile): void {
    const layout = this.layout;
    if (entry.state === 'reported' && existsSync(layout.report(cmd.id)) && existsSync(layout.detailedReport(cmd.id))) {
      this.finish(entry, cmd, 'SUCCESS', true);
      return;
    }
    this.monitor(`${cmd.id}: found interrupted (Flightdeck stopped while it ran); reporting it, not running it again`);
    const now = new Date();
    let session: SessionFile | undefined;
    try {
      session = entry.sessionId ? readSessionFile(this.o.root, entry.sessionId) : undefined;
    } catch {
      // A damaged session file: the report still names the session id from the journal.
      session = undefined;
    }
    const facts = this.emptyFacts(cmd, entry.file, entry.sessionId ?? '(none: the session had not started)', session, now, now);
    facts.outcome = 'interrupted';
    facts.message = 'Flightdeck stopped while this task was running. It was not run again, so none of its steps is repeated; send a continue command for the session to pick up where it stopped.';
    this.writeReports(entry, cmd, facts);
  }

  private emptyFacts(cmd: CommandFile, fileName: string, sessionId: string, session: SessionFile | undefined, startedAt: Date, finishedAt: Date): TaskFacts {
    return {
      command: cmd,
      fileName,
      sessionId,
      turnCount: session?.turn_count ?? 0,
      sessionStatus: session?.status ?? 'active',
      workspace: session?.workspace ?? this.workspace,
      startedAt,
      finishedAt,
      outcome: 'failed',
      message: null,
      timedOut: false,
      timeoutMs: cmd.timeoutMs ?? this.timeoutMs,
      answer: '',
      judgement: null,
      judgementProblem: null,
      thinking: '',
      toolCalls: [],
      checks: [],
      usage: { inputTokens: 0, outputTokens: 0 },
      costUsd: 0,
      modelCalls: 0,
      files: [],
      adrs: [],
      commits: [],
      head: null,
      gitStatus: null,
      mission: { exists: false, progressUpdated: false, nextStepsUpdated: false, stage: null, created: false },
      logs: { runtime: this.layout.runtimeLog, debug: this.layout.debugLog(cmd.id), monitor: this.layout.monitorLog },
      logSummary: this.logSummary(cmd.id),
      placement: cmd.placement ?? this.o.defaultPlacement ?? 'host',
      warnings: [],
    };
  }

  /**
   * Where a task runs: what its command file says; else, for a `continue`, where its session
   * already is; else the project's default (with its container settings); else the mailbox's.
   */
  private async choosePlacement(cmd: CommandFile): Promise<{ name: Placement; projectDefault: ProjectContainerDefault | null } | { problem: string }> {
    // The project's config is read only where it can matter: a task that names the host needs
    // none of it (a broken config.yml must not fail it), nor does a continue of a placed session.
    if (cmd.placement && cmd.placement !== 'container') return { name: cmd.placement, projectDefault: null };
    if (!cmd.placement && cmd.commandType === 'continue' && cmd.sessionId) {
      for (const p of Object.values(this.placements)) if (p?.holds?.(cmd.sessionId)) return { name: p.name, projectDefault: null };
    }
    let project: RunPlacement | null = null;
    try {
      project = (await this.o.projectPlacement?.()) ?? null;
    } catch (e) {
      return { problem: `The project's default placement could not be read: ${(e as Error).message} The task did not run.` };
    }
    const projectDefault = project?.kind === 'container' ? project : null;
    if (cmd.placement) return { name: cmd.placement, projectDefault };
    return { name: project?.kind ?? this.o.defaultPlacement ?? 'host', projectDefault };
  }

  /** The body of a task; `launch` wraps it with the session lock and the time limit. */
  private async execute(entry: JournalEntry, cmd: CommandFile, signal: AbortSignal, timedOut: () => boolean, sessionCreated: (id: string) => void): Promise<void> {
    const startedAt = new Date();
    const debug = (line: string) => this.appendLog(this.layout.debugLog(cmd.id), `[${iso()}] ${line}\n`);
    debug(`command ${cmd.id} (${cmd.commandType}) from ${entry.file}`);
    this.o.onChange?.({ kind: 'started', commandId: cmd.id, file: entry.file, sessionId: cmd.sessionId });

    if (cmd.commandType === 'end') {
      const s = readSessionFile(this.o.root, cmd.sessionId!);
      if (!s || s.status === 'ended') {
        const facts = this.emptyFacts(cmd, entry.file, cmd.sessionId!, s, startedAt, new Date());
        facts.message = !s ? 'The session file disappeared before the end command ran.' : 'The session had already ended when this command ran.';
        debug(facts.message);
        return this.writeReports(entry, cmd, facts);
      }
      const ended = endSession(s, new Date());
      writeSessionFile(this.o.root, ended);
      debug(`session ${s.session_id} ended after ${s.turn_count} turns`);
      this.monitor(`${cmd.id}: ended session ${s.session_id}`);
      const facts = this.emptyFacts(cmd, entry.file, s.session_id, ended, startedAt, new Date());
      facts.outcome = 'ended';
      facts.answer = `Session ${s.session_id} ended after ${s.turn_count} turns.`;
      return this.writeReports(entry, cmd, facts);
    }

    // new / continue: find or create the session.
    let session: SessionFile;
    let failure: string | null = null;
    const chosen = await this.choosePlacement(cmd);
    if ('problem' in chosen) {
      const facts = this.emptyFacts(cmd, entry.file, cmd.sessionId ?? '(none)', cmd.sessionId ? readSessionFile(this.o.root, cmd.sessionId) : undefined, startedAt, new Date());
      facts.message = chosen.problem;
      debug(chosen.problem);
      return this.writeReports(entry, cmd, facts);
    }
    const placementName = chosen.name;
    const placement = this.placements[placementName];
    const workspaceProblem = await this.ensureWorkspace();
    if (cmd.commandType === 'new') {
      if (!placement) failure = `The ${placementName} placement is not available in this Flightdeck (${placementName === 'container' ? 'no container engine is set up' : 'unknown placement'}); the task did not run.`;
      failure ??= workspaceProblem;
      let sessionId: string | null = null;
      if (!failure) {
        try {
          sessionId = this.o.agent.createSession({ workspace: this.workspace, projectId: this.o.projectId ?? null, title: `Mailbox ${cmd.id}: ${cmd.task.split('\n')[0]!.slice(0, 60)}`, engine: cmd.engine });
        } catch (e) {
          failure = `The agent session could not be created: ${(e as Error).message}`;
        }
      }
      if (!sessionId) {
        const facts = this.emptyFacts(cmd, entry.file, '(none)', undefined, startedAt, new Date());
        facts.message = failure;
        debug(failure ?? 'no session');
        return this.writeReports(entry, cmd, facts);
      }
      sessionCreated(sessionId);
      session = newSession(sessionId, this.workspace, startedAt);
      writeSessionFile(this.o.root, session);
      entry.sessionId = sessionId;
      this.journal.update(entry);
      debug(`session ${sessionId} created in ${this.workspace}`);
    } else {
      const s = readSessionFile(this.o.root, cmd.sessionId!);
      if (!s || s.status === 'ended') {
        const facts = this.emptyFacts(cmd, entry.file, cmd.sessionId!, s, startedAt, new Date());
        facts.message = !s ? 'The session file disappeared before the continue command ran.' : 'The session ended before this continue command ran.';
        return this.writeReports(entry, cmd, facts);
      }
      session = s;
      if (!placement) failure = `The ${placementName} placement is not available in this Flightdeck; the task did not run.`;
      failure ??= workspaceProblem;
    }
    if (failure) {
      const facts = this.emptyFacts(cmd, entry.file, session.session_id, session, startedAt, new Date());
      facts.message = failure;
      return this.writeReports(entry, cmd, facts);
    }

    let placed: Awaited<ReturnType<TaskPlacement['prepare']>>;
    try {
      placed = await placement!.prepare({ command: cmd, root: this.o.root, workspace: session.workspace, sessionId: session.session_id, projectDefault: chosen.projectDefault });
    } catch (e) {
      const facts = this.emptyFacts(cmd, entry.file, session.session_id, session, startedAt, new Date());
      facts.message = `The ${placementName} placement could not be set up: ${(e as Error).message} The task did not run.`;
      debug(facts.message);
      return this.writeReports(entry, cmd, facts);
    }
    try {
      const workspace = placed.workspace;
      const missionCreated = ensureMission(workspace, startedAt, this.o.missionLanguage ?? 'en');
      const missionBefore = readMission(workspace);
      // A project's `.context/` and `.clauderc` are the repository's instructions to the model: read only while it is trusted.
      const trusted = this.o.workspaceFilesTrusted ? await this.o.workspaceFilesTrusted(workspace) : true;
      const context = loadContext(contextFolders({ globalDir: this.o.globalContextDir ?? null, root: this.o.root, workspace: trusted ? workspace : null, taskId: cmd.id }));
      const clauderc = trusted ? readClaudercPrompt(workspace) : { prompt: null, warning: null };
      const untrustedNote = trusted ? [] : ['The repository is untrusted: its .context/ and .clauderc were not read (review and trust it to use them).'];
      const warnings = [...(placed.notes ?? []), ...untrustedNote, ...context.warnings, ...(clauderc.warning ? [clauderc.warning] : [])];
      for (const w of warnings) debug(`warning: ${w}`);
      debug(`context: ${context.files.filter((f) => f.enabled).length} files, ${context.bytes} bytes${clauderc.prompt ? '; .clauderc systemPrompt used' : ''}`);
      // The rules, the project's systemPrompt and the layered context are standing instructions
      // (the system prompt of the turn); the task's own text is the chat message.
      const instructions = taskInstructions({ context: context.text, clauderc: clauderc.prompt, missionCreated });
      const input = taskPrompt(cmd);
      const shared = this.enterWorkspace(workspace);
      try {
        const before = await snapshotWorkspace(workspace);

        // The turn counts from its start, so a crash mid-turn leaves the session file saying it happened.
        session = recordTurn(session, new Date());
        writeSessionFile(this.o.root, session);
        debug(`turn ${session.turn_count} started (${placed.label}); time limit ${Math.round((cmd.timeoutMs ?? this.timeoutMs) / 1000)} s`);

        const live = this.follow(cmd.id, session.session_id);
        let turn: MailboxTurn;
        try {
          turn = await this.o.agent.runTurn(session.session_id, input, { signal, instructions });
        } catch (e) {
          turn = { sessionId: session.session_id, outcome: 'failed', text: '', finalText: '', toolCalls: [], usage: { inputTokens: 0, outputTokens: 0 }, costUsd: 0, modelCalls: 0, message: (e as Error).message };
        } finally {
          live.stop();
        }
        // Stopped with Flightdeck: leave the journal "running" so the next start reports it as interrupted.
        if (this.disposed) return;
        const finishedAt = new Date();
        session = { ...session, last_activity: finishedAt.toISOString() };
        writeSessionFile(this.o.root, session);
        debug(`turn ended: ${turn.outcome}${turn.message ? ` (${turn.message})` : ''}; ${turn.toolCalls.length} tool calls, ${turn.modelCalls} model calls`);

        const changes = await workspaceChanges(workspace, before).catch((e: unknown) => {
          warnings.push(`File changes could not be read: ${(e as Error).message}`);
          return { files: [], commits: [], head: null, gitStatus: null, truncated: false };
        });
        shared.leave();
        if (changes.truncated) warnings.push('The workspace has too many files to compare completely; the file list may be incomplete.');
        if (shared.overlapped) {
          // Another task changed the same folder meanwhile: only the files this agent's own tools named are surely its work.
          const named = new Set(turn.toolCalls.flatMap((c) => toolPath(c.input, workspace)));
          changes.files = changes.files.filter((f) => named.has(f.path));
          warnings.push('Another task ran in the same workspace at the same time: the file list holds only the files this agent\'s file tools named; changes made by its shell commands may be missing.');
        }
        const mission = checkMissionUpdate(missionCreated ? null : missionBefore, readMission(workspace));
        const j = extractJudgement(turn.finalText || turn.text);
        const facts = this.emptyFacts(cmd, entry.file, session.session_id, session, startedAt, finishedAt);
        Object.assign(facts, {
          workspace,
          outcome: timedOut() ? 'timeout' : turn.outcome,
          message: timedOut() ? `The task exceeded its time limit of ${Math.round((cmd.timeoutMs ?? this.timeoutMs) / 1000)} s and was stopped.` : turn.message,
          timedOut: timedOut(),
          answer: j.answer,
          judgement: j.judgement,
          judgementProblem: turn.outcome === 'completed' ? j.problem : null,
          thinking: live.thinking(),
          toolCalls: turn.toolCalls.map((c): ToolCallFact => ({ tool: c.tool, input: c.input, output: c.output ?? '(no result: the turn stopped first)', isError: c.isError })),
          checks: live.checks(),
          usage: turn.usage,
          costUsd: turn.costUsd,
          modelCalls: turn.modelCalls,
          files: changes.files,
          adrs: adrsWritten(workspace, changes.files),
          commits: changes.commits,
          head: changes.head,
          gitStatus: changes.gitStatus,
          mission: { ...mission, created: missionCreated },
          logSummary: this.logSummary(cmd.id),
          placement: placed.label,
          warnings,
        } satisfies Partial<TaskFacts>);
        if (!mission.progressUpdated || !mission.nextStepsUpdated) debug('AGENT_MISSION.md progress or next steps were not updated by the agent');
        this.writeReports(entry, cmd, facts);
      } finally {
        shared.leave();
      }
    } finally {
      await placed.release().catch((e: unknown) => this.monitor(`${cmd.id}: releasing the ${placementName} placement failed: ${(e as Error).message}`));
    }
  }

  /** Follows a session's live events into the runtime and debug logs, and gathers thinking and checks. */
  private follow(taskId: string, sessionId: string): { stop(): void; thinking(): string; checks(): CheckFact[] } {
    const thinking: string[] = [];
    const checks: CheckFact[] = [];
    let line = '';
    const runtime = (text: string) => {
      line += text;
      const parts = line.split('\n');
      line = parts.pop()!;
      if (parts.length > 0) this.appendLog(this.layout.runtimeLog, parts.map((p) => `[${iso()}] [${taskId}] ${p}\n`).join(''));
    };
    const flushLine = () => {
      if (line !== '') runtime('\n');
    };
    const debug = (s: string) => this.appendLog(this.layout.debugLog(taskId), `[${iso()}] ${s}\n`);
    const off = this.o.agent.subscribe((e) => {
      if (e.sessionId !== sessionId) return;
      const d = e.data;
      switch (d.type) {
        case 'text.delta':
          runtime(d.text);
          break;
        case 'thinking.delta':
          thinking.push(d.text);
          break;
        case 'tool.started':
          flushLine();
          runtime(`→ ${d.tool}\n`);
          debug(`tool ${d.tool} started (${d.toolUseId})`);
          break;
        case 'tool.output':
          runtime(d.chunk);
          break;
        case 'tool.result':
          flushLine();
          runtime(`← ${d.tool} ${d.isError ? 'failed' : 'ok'}${d.exitCode !== null ? ` (exit ${d.exitCode})` : ''}\n`);
          debug(`tool ${d.tool} ${d.isError ? 'failed' : 'ok'} in ${d.durationMs} ms: ${d.content.slice(0, MAX_LOG_LINE).replace(/\n/g, ' ')}`);
          break;
        case 'verify.result':
          checks.push({ command: d.command, passed: d.passed, exitCode: d.exitCode });
          debug(`check \`${d.command}\` ${d.passed ? 'passed' : 'failed'} (attempt ${d.attempt})`);
          break;
        case 'step.started':
          debug(`model call ${d.step} (${d.model})`);
          break;
        case 'error':
          flushLine();
          runtime(`[error] ${d.message}\n`);
          debug(`error ${d.code}: ${d.message}`);
          break;
        case 'turn.ended':
          flushLine();
          debug(`turn ended ${d.outcome} after ${d.steps} steps`);
          break;
        default:
          break;
      }
    });
    return {
      stop: () => {
        off();
        flushLine();
      },
      thinking: () => thinking.join(''),
      checks: () => checks,
    };
  }

  private writeReports(entry: JournalEntry, cmd: CommandFile, facts: TaskFacts): void {
    writeFileAtomic(this.layout.report(cmd.id), formatReport(facts), { mode: 0o644 });
    writeFileAtomic(this.layout.detailedReport(cmd.id), formatDetailedReport(facts), { mode: 0o644 });
    entry.state = 'reported';
    this.journal.update(entry);
    this.finish(entry, cmd, reportStatus(facts), false);
  }

  private finish(entry: JournalEntry, cmd: CommandFile, status: string, recovered: boolean): void {
    const dest = markProcessed(this.o.root, entry.file);
    entry.state = 'done';
    this.journal.update(entry);
    this.observations.delete(entry.file);
    this.appendLog(this.layout.debugLog(cmd.id), `[${iso()}] reports written (${status}); command moved to ${dest}\n`);
    this.monitor(`${cmd.id}: ${recovered ? 'finished its move' : 'done'} (${status}) → commands/processed/${dest.split(/[\\/]/).pop()}`);
    this.o.onChange?.({ kind: 'finished', commandId: cmd.id, file: entry.file, sessionId: entry.sessionId, status });
  }

  /** The task's runtime-log lines (last ones), for the report. */
  private logSummary(taskId: string): string {
    try {
      const file = this.layout.runtimeLog;
      if (!existsSync(file)) return '';
      // The shared runtime log can be long; only its tail is read.
      const size = statSync(file).size;
      const text = readTail(file, Math.min(size, 512 * 1024));
      const mine = text.split('\n').filter((l) => l.includes(`] [${taskId}] `));
      return mine
        .slice(-LOG_SUMMARY_LINES)
        .map((l) => (l.length > MAX_LOG_LINE ? `${l.slice(0, MAX_LOG_LINE)}…` : l))
        .join('\n');
    } catch {
      // The summary is a convenience; the full log stays on disk.
      return '';
    }
  }

  private appendLog(file: string, text: string): void {
    try {
      appendFileSync(file, text, { mode: 0o644 });
    } catch (e) {
      this.o.logger?.warn('mailbox log not written', { file, error: e });
    }
  }

  monitor(message: string): void {
    this.appendLog(this.layout.monitorLog, `[${iso()}] ${message}\n`);
    this.o.logger?.info(message);
  }

  /** Stops watching. Running turns are left to end with the agent service; their journal entries stay "running" and are reported as interrupted by the next start. */
  async dispose(): Promise<void> {
    if (this.disposed) return;
    this.disposed = true;
    releaseOwnerToken(this.token);
    if (this.timer) clearTimeout(this.timer);
    if (this.rescanTimer) clearTimeout(this.rescanTimer);
    this.timer = null;
    for (const t of this.live.values()) t.controller.abort(new Error('shutdown'));
    const w = this.watcher;
    this.watcher = null;
    this.monitor('stopped');
    await w?.close();
  }
}

/** The workspace-relative path a file tool call names (write, patch, read…), if any. */
function toolPath(input: unknown, workspace: string): string[] {
  if (!input || typeof input !== 'object') return [];
  const p = (input as Record<string, unknown>).path ?? (input as Record<string, unknown>).file_path;
  if (typeof p !== 'string') return [];
  // Claude Code names files by absolute path; the built-in tools relative to the workspace.
  if (isAbsolute(p)) return p.startsWith(`${workspace}${sep}`) ? [relative(workspace, p).split(sep).join('/')] : [];
  return [p.replace(/^\.\//, '')];
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function readTail(file: string, bytes: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const start = Math.max(0, size - bytes);
    const buf = Buffer.alloc(size - start);
    readSync(fd, buf, 0, buf.length, start);
    return buf.toString('utf8');
  } finally {
    closeSync(fd);
  }
}

