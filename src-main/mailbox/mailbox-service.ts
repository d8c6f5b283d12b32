/**
 * The mailbox capability for the app and the CLI: where each project's mailbox lives, building
 * its watcher (processor) with the agent engine, writing command files for new tasks, and
 * listing reports and ADRs across mailboxes.
 *
 * A project's mailbox is `<data folder>/mailboxes/<project id>` unless configured elsewhere; its
 * agent works in one long-lived worktree of the project (`.trees/mailbox`, branch
 * `<prefix>/mailbox`), created on first use and reused by every task, never in the user's
 * checkout. A mailbox-layout `volumes/` folder (`--root DIR`) is used as it is, with the agent
 * working in `DIR/workspace`.
 */
import { setupProblem } from '../worktrees/setup-service';
import type { RunPlacement } from '../../src-preload/contract/feature-runs';
import { existsSync, readdirSync, realpathSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { basename, dirname, join, resolve } from 'node:path';
import { AppError } from '../../src-preload/contract/errors';
import type { ContainerGpuRequest, ContainerLimits } from '../../src-preload/contract/containers';
import { git } from '../git/git';
import { FileTooLargeError, isInside, readFileInside, UnsafePathError, writeFileInside } from '../platform/contained-path';
import { contextFolders, loadContext, MAX_CONTEXT_FILE_BYTES, type ContextFile, type ContextFolders, type ContextLayer } from './context';
import { ensureMission, readMission, type MissionLanguage } from './mission';
import { containerTaskPlacement, type SessionPlacer } from './container-placement';
import { projectDefaultPlacement } from '../features/placement';
import { defaultConfig } from '../features/config';
import type { TrustService } from '../trust/trust-service';
import { AGENT_IMAGE } from '../containers/images';
import { listSessionFiles } from './session-file';
import { parse as parseYaml } from 'yaml';
import type { EventHub } from '../bridge/event-hub';
import type { SessionDriver } from '../agents/session-driver';
import type { Logger } from '../platform/logger';
import { readFilePartNoWait } from '../platform/read-no-wait';
import type { ProjectService } from '../projects/project-service';
import type { SettingsService } from '../settings/settings-service';
import { TREES_DIR, type WorktreeManager } from '../worktrees/worktree-manager';
import { listAdrs, parseAdr, type Adr } from './adr';
import { driverAgentPort } from './agent-port';
import { formatCommandFile, type CommandFileInput, type CommandType, type HeadingLanguage, type Network, type Placement } from './command-file';
import { Journal } from './journal';
import { ensureMailbox, mailboxLayout } from './layout';
import { DEFAULT_TASK_TIMEOUT_MS, MailboxProcessor, type MailboxChange, type MailboxProcessorOptions, type TaskPlacement } from './processor';
import { REPORT_STATUSES, type ReportStatus } from './report';

export const MAILBOXES_FOLDER = 'mailboxes';
export const GLOBAL_CONTEXT_FOLDER = 'context/global';
/**
 * The name of a project mailbox's worktree (`.trees/mailbox`, branch `<prefix>/mailbox`): one for
 * all its tasks, so AGENT_MISSION.md and docs/decisions accumulate in one place.
 */
export const MAILBOX_WORKTREE = 'mailbox';
const SETTINGS_KEY = 'mailbox.settings';

export interface MailboxSettings {
  /** Mailbox root per project id, when not the default. */
  roots: Record<string, string>;
  taskTimeoutMs: number;
  defaultPlacement: Placement;
  /** Projects whose mailbox the app watches; long-lived hosts resume them at start. */
  watched: string[];
  /** The image of the container placement when a session has none yet. */
  containerImage: string;
}

const DEFAULT_SETTINGS: MailboxSettings = { roots: {}, taskTimeoutMs: DEFAULT_TASK_TIMEOUT_MS, defaultPlacement: 'host', watched: [], containerImage: AGENT_IMAGE };

export type MailboxTarget = { projectId: string } | { root: string };

export interface ResolvedMailbox {
  root: string;
  workspace: string;
  projectId: string | null;
  projectName: string | null;
}

export interface NewTaskInput {
  commandType: CommandType;
  task: string;
  sessionId?: string;
  constraints?: string;
  expectedOutput?: string;
  /** The section headings' language (the format's default, Chinese, when not given). */
  headings?: HeadingLanguage;
  placement?: Placement;
  timeoutMs?: number;
  engine?: string;
  /** With `placement: container`: the container's Docker engine, image, GPUs, limits and network (written as the command file's keys). */
  container?: TaskContainerInput;
}

/** A task's container settings as the app and the CLI give them; every field optional (the session's or the mailbox's default applies). */
export interface TaskContainerInput {
  engine?: string;
  image?: string;
  gpus?: ContainerGpuRequest;
  limits?: Partial<ContainerLimits>;
  network?: Network;
}

/** The command-file fields of a task's container settings (`gpus: none` is written as `gpus: 0`). */
export function containerCommandFields(c: TaskContainerInput): Pick<CommandFileInput, 'containerEngine' | 'image' | 'gpus' | 'memoryBytes' | 'cpus' | 'pids' | 'network'> {
  const g = c.gpus;
  return {
    ...(c.engine ? { containerEngine: c.engine } : {}),
    ...(c.image ? { image: c.image } : {}),
    ...(g ? { gpus: g.kind === 'none' ? { kind: 'count' as const, count: 0 } : g.kind === 'all' ? { kind: 'all' as const } : g.kind === 'count' ? { kind: 'count' as const, count: g.count } : { kind: 'ids' as const, ids: g.ids } } : {}),
    ...(c.limits?.memoryBytes != null ? { memoryBytes: c.limits.memoryBytes } : {}),
    ...(c.limits?.cpus != null ? { cpus: c.limits.cpus } : {}),
    ...(c.limits?.pids != null ? { pids: c.limits.pids } : {}),
    ...(c.network ? { network: c.network } : {}),
  };
}

export interface ReportSummary {
  commandId: string;
  sessionId: string;
  status: ReportStatus;
  tags: string[];
  reportDate: string;
  /** The task's first line, from the report. */
  title: string;
  root: string;
  projectId: string | null;
  projectName: string | null;
  report: string;
  detailedReport: string | null;
  /** The command file in processed/, when it is there. */
  commandFile: string | null;
  commit: string | null;
}

export interface AdrSummary {
  number: number;
  title: string;
  file: string;
  workspace: string;
  projectId: string | null;
  projectName: string | null;
  modifiedAt: number;
}

/** Longest text the browser is sent for one file (a report, a log): the rest stays on disk. */
const MAX_SHOWN_BYTES = 2 * 1024 * 1024;

/**
 * A report's head: its front matter, title and commit are at the top. Anything can sit in a
 * reports folder (an agent's container may write there): a huge file is not read whole to list it.
 */
const MAX_REPORT_HEAD_BYTES = 64 * 1024;
/** Largest ADR parsed for the list: a decision record is a page; the workspace is the agent's to fill. */
const MAX_LISTED_ADR_BYTES = 256 * 1024;

function readText(file: string): string {
  // Only the tail is read from disk when the file is larger than what is shown.
  const part = readFilePartNoWait(file, MAX_SHOWN_BYTES, 'end');
  return part.truncated ? `${part.bytes.toString('utf8')}\n…(only the last ${MAX_SHOWN_BYTES} bytes are shown)` : part.bytes.toString('utf8');
}

export interface ReportFilter {
  projectId?: string;
  status?: ReportStatus;
  tag?: string;
  from?: string;
  to?: string;
  query?: string;
}

export interface MailboxStatusView {
  projectId: string;
  root: string;
  workspace: string;
  watching: boolean;
  pending: number;
  running: { id: string; file: string }[];
  sessions: { sessionId: string; status: 'active' | 'ended'; turnCount: number; lastActivity: string }[];
}

export interface ReportDetailView {
  summary: ReportSummary;
  report: string;
  detailedReport: string | null;
  commandFile: string | null;
  debugLog: string | null;
  sessionKnown: boolean;
  commitText: string | null;
}

export interface MailboxServiceOptions {
  dataDir: string;
  settings: SettingsService;
  projects: ProjectService;
  driver: SessionDriver;
  hub: EventHub;
  logger: Logger;
  /** Whether an agent session exists in this Flightdeck (a report's transcript link). */
  sessionExists?: (sessionId: string) => boolean;
  /** The containers service: when given, tasks can run with `placement: container`. */
  containers?: SessionPlacer;
  /** The app's worktree manager: a project mailbox's worktree is made through it (its setup, its lock). */
  worktrees: Pick<WorktreeManager, 'create' | 'setupDone'>;
  /** Workspace trust: a project's placement, `.context/` and `.clauderc` are used only while it is trusted; absent: never. */
  trust?: Pick<TrustService, 'mailboxFilesTrusted' | 'apply' | 'recordUserWrite'>;
}

export class MailboxService {
  /** Placements besides the host (the container placement registers itself here). */
  readonly placements: Partial<Record<Placement, TaskPlacement>> = {};
  private readonly watchers = new Map<string, MailboxProcessor>();
  private readonly changeListeners = new Set<(m: ResolvedMailbox, e: MailboxChange) => void>();

  constructor(private readonly o: MailboxServiceOptions) {
    if (o.containers) this.placements.container = containerTaskPlacement(o.containers, () => this.settings().containerImage);
  }

  /**
   * Watches again the mailboxes that were watched when the app last ran (long-lived hosts only:
   * a CLI command must not start watchers behind its own back). A task a stopped app left
   * running is then reported as interrupted.
   */
  resumeWatchers(): void {
    const known = new Set(this.o.projects.list().map((p) => p.id));
    for (const id of this.settings().watched) {
      if (!known.has(id)) continue;
      try {
        this.watch({ projectId: id });
      } catch (e) {
        this.o.logger.warn('could not resume a mailbox watcher', { projectId: id, error: e });
      }
    }
  }

  start(): void {}

  async dispose(): Promise<void> {
    const all = [...this.watchers.values()];
    this.watchers.clear();
    await Promise.all(all.map((w) => w.dispose()));
  }

  settings(): MailboxSettings {
    return { ...DEFAULT_SETTINGS, ...(this.o.settings.getInternal<Partial<MailboxSettings>>(SETTINGS_KEY) ?? {}) };
  }

  updateSettings(patch: Partial<MailboxSettings>): MailboxSettings {
    const next = { ...this.settings(), ...patch };
    this.o.settings.setInternal(SETTINGS_KEY, next);
    return next;
  }

  get globalContextDir(): string {
    return join(this.o.dataDir, GLOBAL_CONTEXT_FOLDER);
  }

  resolve(target: MailboxTarget): ResolvedMailbox {
    if ('root' in target) {
      const root = resolve(target.root);
      return { root, workspace: mailboxLayout(root).folders.workspace, projectId: null, projectName: null };
    }
    const p = this.o.projects.get(target.projectId);
    const root = this.settings().roots[p.id] ?? join(this.o.dataDir, MAILBOXES_FOLDER, p.id);
    return { root, workspace: join(p.path, TREES_DIR, MAILBOX_WORKTREE), projectId: p.id, projectName: p.name };
  }

  /**
   * Creates a project mailbox's worktree unless it is there (a worktree has a `.git` file). The
   * `.trees/` ignore entry goes to `.git/info/exclude`, so the user's checkout is not changed.
   */
  private async ensureWorktree(projectPath: string, workspace: string): Promise<void> {
    if (!existsSync(join(workspace, '.git'))) {
      const { entry } = await this.o.worktrees.create(projectPath, MAILBOX_WORKTREE, { ignoreIn: 'exclude' });
      // The project folder is inside the repository rather than its top: the worktree went to the top's .trees/.
      if (!existsSync(workspace) || realpathSync(workspace) !== entry.path) {
        throw new AppError('conflict', `The mailbox worktree was created at ${entry.path}, not at ${workspace}: add the repository's top folder as the project.`);
      }
    }
    // A task's agent needs what the worktree's setup installs: it waits for the setup to end.
    const problem = setupProblem(await this.o.worktrees.setupDone(workspace));
    if (problem) throw new AppError('conflict', `${problem}; run it again from the project's worktrees (${MAILBOX_WORKTREE}).`);
  }

  /** Every mailbox Flightdeck knows: each project's (existing ones only). */
  known(): ResolvedMailbox[] {
    return this.o.projects
      .list()
      .map((p) => this.resolve({ projectId: p.id }))
      .filter((m) => existsSync(m.root));
  }

  onChange(listener: (m: ResolvedMailbox, e: MailboxChange) => void): () => void {
    this.changeListeners.add(listener);
    return () => this.changeListeners.delete(listener);
  }

  /** The project's `agent.placement`, only while the repository is trusted (else none: the mailbox's own default). */
  private async projectPlacement(projectPath: string): Promise<RunPlacement | null> {
    const placement = await projectDefaultPlacement(projectPath);
    if (!placement) return null;
    if (!this.o.trust) return null;
    const t = await this.o.trust.apply(projectPath, { ...defaultConfig(), agent: { ...defaultConfig().agent, placement } });
    return t.config.agent.placement ?? null;
  }

  /** A processor for a mailbox (the caller starts or drains it, and disposes it). */
  processor(target: MailboxTarget, over: Partial<MailboxProcessorOptions> = {}): MailboxProcessor {
    const m = this.resolve(target);
    const s = this.settings();
    const projectPath = m.projectId ? this.o.projects.get(m.projectId).path : null;
    return new MailboxProcessor({
      root: m.root,
      workspace: m.workspace,
      ...(projectPath ? { ensureWorkspace: () => this.ensureWorktree(projectPath, m.workspace) } : {}),
      projectId: m.projectId,
      agent: driverAgentPort({ driver: this.o.driver, hub: this.o.hub }),
      globalContextDir: this.globalContextDir,
      placements: this.placements,
      defaultPlacement: s.defaultPlacement,
      ...(projectPath ? { projectPlacement: () => this.projectPlacement(projectPath) } : {}),
      ...(projectPath ? { workspaceFilesTrusted: (workspace: string) => this.o.trust?.mailboxFilesTrusted(projectPath, workspace) ?? Promise.resolve(false) } : {}),
      taskTimeoutMs: s.taskTimeoutMs,
      logger: this.o.logger.child('mailbox'),
      onChange: (e) => {
        for (const l of this.changeListeners) l(m, e);
      },
      ...over,
    });
  }

  /** Starts the long-lived watcher of a mailbox (once); the app keeps it until disposed. */
  watch(target: MailboxTarget): MailboxProcessor {
    const m = this.resolve(target);
    let w = this.watchers.get(m.root);
    if (!w) {
      w = this.processor(target);
      this.watchers.set(m.root, w);
      w.start();
    }
    if (m.projectId && !this.settings().watched.includes(m.projectId)) this.updateSettings({ watched: [...this.settings().watched, m.projectId] });
    return w;
  }

  isWatching(target: MailboxTarget): boolean {
    return this.watchers.has(this.resolve(target).root);
  }

  async unwatch(target: MailboxTarget): Promise<void> {
    const root = this.resolve(target).root;
    const w = this.watchers.get(root);
    this.watchers.delete(root);
    if ('projectId' in target) this.updateSettings({ watched: this.settings().watched.filter((id) => id !== target.projectId) });
    await w?.dispose();
  }

  status(projectId: string): MailboxStatusView {
    const m = this.resolve({ projectId });
    const layout = mailboxLayout(m.root);
    const pending = existsSync(layout.folders.commandsPending) ? readdirSync(layout.folders.commandsPending).filter((n) => n.endsWith('.md') && !n.startsWith('.')).length : 0;
    const w = this.watchers.get(m.root);
    return {
      projectId,
      root: m.root,
      workspace: m.workspace,
      watching: w !== undefined,
      pending,
      running: w?.running() ?? [],
      sessions: listSessionFiles(m.root).sessions.map((x) => ({ sessionId: x.session_id, status: x.status, turnCount: x.turn_count, lastActivity: x.last_activity })),
    };
  }

  /** Reports filtered the way the browser asks: project, status, tag, date range, words in the full text. */
  searchReports(f: ReportFilter): { reports: ReportSummary[]; tags: string[] } {
    const all = this.listReports(f.projectId ? [{ projectId: f.projectId }] : undefined);
    const tags = [...new Set(all.flatMap((r) => r.tags))].sort();
    const words = (f.query ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    const reports = all.filter((r) => {
      if (f.status && r.status !== f.status) return false;
      if (f.tag && !r.tags.includes(f.tag)) return false;
      const day = r.reportDate.slice(0, 10);
      if (f.from && day < f.from.slice(0, 10)) return false;
      if (f.to && day > f.to.slice(0, 10)) return false;
      if (words.length > 0) {
        const text = [readText(r.report), r.detailedReport ? readText(r.detailedReport) : ''].join('\n').toLowerCase();
        if (!words.every((w) => text.includes(w))) return false;
      }
      return true;
    });
    return { reports, tags };
  }

  async report(projectId: string, commandId: string): Promise<ReportDetailView> {
    const m = this.resolve({ projectId });
    const summary = listReportsIn(m).find((r) => r.commandId === commandId);
    if (!summary) throw new AppError('not_found', `There is no report for command ${commandId} in this project's mailbox.`);
    const debugFile = mailboxLayout(m.root).debugLog(commandId);
    let commitText: string | null = null;
    if (summary.commit) {
      try {
        commitText = await git(['show', '--stat', '--format=commit %H%nAuthor: %an <%ae>%nDate:   %aI%n%n    %s%n', summary.commit, '--'], { cwd: m.workspace, maxOutputBytes: MAX_SHOWN_BYTES });
      } catch {
        // The commit is not in this workspace (another clone, or gone after a rebase): the hash alone is shown.
        commitText = null;
      }
    }
    return {
      summary,
      report: readText(summary.report),
      detailedReport: summary.detailedReport ? readText(summary.detailedReport) : null,
      commandFile: summary.commandFile ? readText(summary.commandFile) : null,
      debugLog: existsSync(debugFile) ? readText(debugFile) : null,
      sessionKnown: this.o.sessionExists?.(summary.sessionId) ?? false,
      commitText,
    };
  }

  adrText(projectId: string, n: number): string {
    const m = this.resolve({ projectId });
    const a = listAdrs(m.workspace).find((x) => x.number === n);
    if (!a) throw new AppError('not_found', `The project has no ADR-${String(n).padStart(4, '0')}.`);
    try {
      // A regular file inside the workspace only: an ADR the agent made a link would show any file of the user's.
      return readFileInside(m.workspace, a.file, { maxBytes: MAX_SHOWN_BYTES, what: 'decision record' }).toString('utf8');
    } catch (e) {
      if (e instanceof UnsafePathError || e instanceof FileTooLargeError) throw new AppError('invalid_input', `ADR-${String(n).padStart(4, '0')} is not shown: ${e.message}.`);
      throw e;
    }
  }

  mission(projectId: string): string | null {
    return readMission(this.resolve({ projectId }).workspace);
  }

  /**
   * Creates the project's AGENT_MISSION.md from the chosen template (English, or the format's
   * Chinese one) before any task has; the mailbox worktree is created first when needed. An
   * existing mission is left as it is. Returns the mission's text.
   */
  async createMission(projectId: string, language: MissionLanguage): Promise<string | null> {
    const m = this.resolve({ projectId });
    await this.ensureWorktree(this.o.projects.get(projectId).path, m.workspace);
    ensureMission(m.workspace, new Date(), language);
    return readMission(m.workspace);
  }

  contextFolders(projectId: string, taskId: string | null): ContextFolders & { global: string; project: string } {
    const m = this.resolve({ projectId });
    const f = contextFolders({ globalDir: this.globalContextDir, root: m.root, workspace: m.workspace, taskId });
    return { ...f, global: this.globalContextDir, project: f.project! };
  }

  context(projectId: string, taskId: string | null): { files: (ContextFile & { text: string })[]; composed: string; bytes: number; folders: ContextFolders & { global: string; project: string } } {
    const folders = this.contextFolders(projectId, taskId);
    const c = loadContext(folders);
    // Read again for the editor the same way: a file swapped for a link since is not followed.
    return { files: c.files.map((f) => ({ ...f, text: readFileInside(dirname(f.path), f.path, { maxBytes: MAX_CONTEXT_FILE_BYTES }).toString('utf8') })), composed: c.text, bytes: c.bytes, folders };
  }

  saveContext(projectId: string, layer: ContextLayer, taskId: string | null, name: string, text: string): void {
    if (name !== basename(name) || !name.toLowerCase().endsWith('.md') || name.startsWith('.')) throw new AppError('invalid_input', `${JSON.stringify(name)} is not a context file name (a name ending in .md).`);
    if (Buffer.byteLength(text) > MAX_CONTEXT_FILE_BYTES) throw new AppError('invalid_input', `A context file may be at most ${MAX_CONTEXT_FILE_BYTES} bytes.`);
    const folders = this.contextFolders(projectId, taskId);
    const dir = folders[layer];
    if (!dir) throw new AppError('invalid_input', 'The task layer needs a task id.');
    // Written as a regular file inside its folder, with no symlink anywhere below the workspace
    // (or the mailbox, or the global folder): a `.context` link would write wherever it points.
    const m = this.resolve({ projectId });
    const anchor = m.workspace && isInside(m.workspace, dir) ? m.workspace : isInside(m.root, dir) ? m.root : dir;
    try {
      writeFileInside(anchor, join(dir, name), text);
    } catch (e) {
      if ((e as { code?: string }).code === 'EUNSAFEPATH') throw new AppError('invalid_input', `The context file was not saved: ${(e as Error).message}.`);
      throw e;
    }
    // The workspace's .context/ is one of the repository's trusted parts: the user's own edit here
    // keeps the trust they gave (an agent's edit of the same file still asks again).
    if (m.projectId && m.workspace && isInside(m.workspace, dir)) this.o.trust?.recordUserWrite(this.o.projects.get(m.projectId).path, m.workspace, join(dir, name));
  }

  /**
   * Writes a command file into `commands/pending/` the way the format's quick-task script does:
   * finished beside it under a dot name (which watchers ignore), then renamed into place.
   */
  writeTask(target: MailboxTarget, input: NewTaskInput, now = new Date()): { id: string; file: string; root: string } {
    return writeTaskFile(this.resolve(target), input, now);
  }

  /** Reports of the given mailboxes (default: every known one), newest first. */
  listReports(targets?: MailboxTarget[]): ReportSummary[] {
    const boxes = targets ? targets.map((t) => this.resolve(t)) : this.known();
    return boxes.flatMap((m) => listReportsIn(m)).sort((a, b) => (a.reportDate < b.reportDate ? 1 : a.reportDate > b.reportDate ? -1 : 0));
  }

  /** ADRs of the mailboxes' workspaces, oldest first per workspace. */
  listAdrs(targets?: MailboxTarget[]): AdrSummary[] {
    const boxes = targets ? targets.map((t) => this.resolve(t)) : this.known();
    const seen = new Set<string>();
    const out: AdrSummary[] = [];
    for (const m of boxes) {
      if (seen.has(m.workspace)) continue;
      seen.add(m.workspace);
      out.push(...listAdrsIn(m));
    }
    return out;
  }
}

/**
 * Writes a command file into `commands/pending/` the way the format's quick-task script does:
 * finished beside it under a dot name (which watchers ignore), then renamed into place.
 */
export function writeTaskFile(m: ResolvedMailbox, input: NewTaskInput, now = new Date()): { id: string; file: string; root: string } {
  const layout = ensureMailbox(m.root);
  const id = `task-${randomUUID()}`;
  const text = formatCommandFile({
    id,
    createdAt: now.toISOString(),
    commandType: input.commandType,
    sessionId: input.commandType === 'new' ? null : (input.sessionId ?? null),
    task: input.task,
    ...(input.constraints ? { constraints: input.constraints } : {}),
    ...(input.expectedOutput ? { expectedOutput: input.expectedOutput } : {}),
    ...(input.headings ? { headings: input.headings } : {}),
    ...(input.placement ? { placement: input.placement } : {}),
    ...(input.timeoutMs ? { timeoutMs: input.timeoutMs } : {}),
    ...(input.engine ? { engine: input.engine } : {}),
    ...(input.container ? containerCommandFields(input.container) : {}),
    ...(m.projectId ? { project: m.projectId } : {}),
  });
  const file = join(layout.folders.commandsPending, `${id}.md`);
  const tmp = join(layout.folders.commandsPending, `.${id}.md.tmp`);
  writeFileSync(tmp, text, { mode: 0o644, flag: 'wx' });
  renameSync(tmp, file);
  return { id, file, root: m.root };
}

/** The reports in one mailbox's `reports/pending/` (unreadable ones are skipped). */
export function listReportsIn(m: ResolvedMailbox): ReportSummary[] {
  const layout = mailboxLayout(m.root);
  let names: string[];
  try {
    names = readdirSync(layout.folders.reportsPending);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const journal = new Journal(m.root);
  const out: ReportSummary[] = [];
  for (const n of names) {
    const match = /^report-(.+)\.md$/.exec(n);
    if (!match) continue;
    const id = match[1]!;
    const file = join(layout.folders.reportsPending, n);
    const parsed = readReportHead(file);
    if (!parsed) continue;
    const detailed = join(layout.folders.reportsPending, `detailed-report-${id}.md`);
    let commandFile: string | null = null;
    try {
      const entry = journal.get(id);
      const c = entry ? join(layout.folders.commandsProcessed, entry.file) : null;
      commandFile = c && existsSync(c) ? c : null;
    } catch {
      // A damaged journal entry only costs the link to the command file.
      commandFile = null;
    }
    out.push({ ...parsed, commandId: id, root: m.root, projectId: m.projectId, projectName: m.projectName, report: file, detailedReport: existsSync(detailed) ? detailed : null, commandFile });
  }
  return out;
}

/** A report's front matter, title and commit. Null when it is not a report Flightdeck can read. */
export function readReportHead(file: string): Pick<ReportSummary, 'sessionId' | 'status' | 'tags' | 'reportDate' | 'title' | 'commit'> | null {
  let text: string;
  try {
    text = readFilePartNoWait(file, MAX_REPORT_HEAD_BYTES, 'start').bytes.toString('utf8');
  } catch {
    // Removed meanwhile or a special file: not a report.
    return null;
  }
  const m = /^---\r?\n([\s\S]*?)\r?\n---/.exec(text);
  if (!m) return null;
  let fm: Record<string, unknown>;
  try {
    fm = parseYaml(m[1]!, { maxAliasCount: 10 }) as Record<string, unknown>;
  } catch {
    // Not YAML: a hand-made file in the reports folder.
    return null;
  }
  if (!fm || typeof fm !== 'object') return null;
  const status = String(fm.status ?? '');
  if (!(REPORT_STATUSES as readonly string[]).includes(status)) return null;
  const title = /^- \*\*原始指令\*\*: (.*)$/m.exec(text)?.[1] ?? '';
  const commit = /^- \*\*Git Commit\*\*: ([0-9a-f]{7,40})\b/m.exec(text)?.[1] ?? null;
  return {
    sessionId: String(fm.session_id ?? ''),
    status: status as ReportStatus,
    tags: Array.isArray(fm.tags) ? fm.tags.map(String) : [],
    reportDate: String(fm.report_date ?? ''),
    title,
    commit,
  };
}

export function listAdrsIn(m: ResolvedMailbox): AdrSummary[] {
  if (!existsSync(m.workspace)) return [];
  return listAdrs(m.workspace).map((a) => {
    let adr: Adr | null = null;
    try {
      // A regular file inside the workspace, of a record's size: the agent writes this folder.
      adr = parseAdr(readFileInside(m.workspace, a.file, { maxBytes: MAX_LISTED_ADR_BYTES }).toString('utf8'));
    } catch {
      // A hand-written ADR that does not parse (or a link, or a giant) is still listed, by its file name.
      adr = null;
    }
    return { number: a.number, title: adr?.title ?? a.slug, file: a.file, workspace: m.workspace, projectId: m.projectId, projectName: m.projectName, modifiedAt: statSync(a.file).mtimeMs };
  });
}

