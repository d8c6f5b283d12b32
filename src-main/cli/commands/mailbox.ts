/**
 * The mailbox from the terminal: `mailbox run` (the watcher, or `--once`), `mailbox watch`
 * (status, or `--tail` to follow the logs), `task new|continue|end` (write command files like
 * the format's quick-task script), `reports list` and `adr list`.
 *
 * Every command takes `--project ID` (the project's mailbox) or `--root DIR` (a `volumes/`-style
 * folder used as it is). With `--root`, only `mailbox run` opens the app's data folder (it needs
 * the agent engine); the others work on the folder alone.
 */
import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { AppError } from '../../../src-preload/contract';
import type { AppServices } from '../../app/services';
import type { CommandType, HeadingLanguage, Placement } from '../../mailbox/command-file';
import { parseContainerKeys, parseTimeout } from '../../mailbox/command-file';
import { parseGpus } from '../../containers/core/container-spec';
import { ensureMailbox, mailboxLayout } from '../../mailbox/layout';
import { listAdrsIn, listReportsIn, writeTaskFile, type MailboxService, type TaskContainerInput, type MailboxTarget, type ResolvedMailbox } from '../../mailbox/mailbox-service';
import type { MailboxChange } from '../../mailbox/processor';
import type { MissionLanguage } from '../../mailbox/mission';
import { listSessionFiles } from '../../mailbox/session-file';
import { UsageError, type CliCommand, type CliContext } from '../command';

/** How often `mailbox watch --tail` looks for new log lines: a person reading, not a machine. */
const TAIL_POLL_MS = 500;
/** Bytes of each log shown when `--tail` starts (like tail's last lines). */
const TAIL_START_BYTES = 4096;

const TARGET_FLAGS = { project: true, root: true } as const;

function target(ctx: CliContext): MailboxTarget {
  const project = typeof ctx.flags.project === 'string' ? ctx.flags.project : undefined;
  const root = typeof ctx.flags.root === 'string' ? ctx.flags.root : undefined;
  if (project && root) throw new UsageError('give either --project ID or --root DIR, not both');
  if (!project && !root) throw new UsageError('give --project ID or --root DIR');
  return project ? { projectId: project } : { root: root! };
}

function service(app: AppServices): MailboxService {
  return app.mailbox;
}

/** Resolves the mailbox; a `--root` needs no app. */
async function resolveTarget(ctx: CliContext): Promise<ResolvedMailbox> {
  const t = target(ctx);
  if ('root' in t) {
    if (!existsSync(t.root)) throw new AppError('path_not_found', `${t.root} does not exist.`);
    const root = ensureMailbox(t.root).root;
    return { root, workspace: mailboxLayout(root).folders.workspace, projectId: null, projectName: null };
  }
  return service(await ctx.openApp()).resolve(t);
}

export const mailboxCommand: CliCommand = {
  name: 'mailbox',
  summary: 'Run the agent mailbox: take command files from commands/pending, run them, write reports.',
  usage: 'mailbox run (--project ID | --root DIR) [--once] [--timeout 10m] [--mission-template en|zh] [--json]  |  mailbox watch (--project ID | --root DIR) [--tail]',
  flags: { ...TARGET_FLAGS, once: false, tail: false, timeout: true, 'mission-template': true },
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    switch (sub) {
      case 'run':
        return runMailbox(ctx);
      case 'watch':
        return ctx.flags.tail === true ? tailLogs(ctx) : status(ctx);
      case undefined:
        throw new UsageError('mailbox needs a subcommand: run or watch');
      default:
        throw new UsageError(`unknown mailbox subcommand "${sub}"`);
    }
  },
};

async function runMailbox(ctx: CliContext): Promise<number> {
  const t = target(ctx);
  if ('root' in t && !existsSync(t.root)) throw new AppError('path_not_found', `${t.root} does not exist.`);
  let timeoutMs: number | undefined;
  if (typeof ctx.flags.timeout === 'string') {
    const v = parseTimeout(/^\d+(\.\d+)?$/.test(ctx.flags.timeout) ? Number(ctx.flags.timeout) : ctx.flags.timeout);
    if (typeof v === 'string') throw new UsageError(`--timeout ${ctx.flags.timeout}: ${v}`);
    timeoutMs = v;
  }
  // A workspace without AGENT_MISSION.md gets the English template, or the format's Chinese one.
  const missionFlag = ctx.flags['mission-template'] ?? 'en';
  if (missionFlag !== 'en' && missionFlag !== 'zh') throw new UsageError(`--mission-template must be en or zh, not ${String(missionFlag)}`);
  const missionLanguage: MissionLanguage = missionFlag;
  const app = await ctx.openApp();
  const changes: MailboxChange[] = [];
  const p = service(app).processor(t, {
    ...(timeoutMs ? { taskTimeoutMs: timeoutMs } : {}),
    missionLanguage,
    onChange: (e) => {
      changes.push(e);
      if (ctx.json && ctx.flags.once !== true) ctx.out(JSON.stringify(e));
      else if (!ctx.json) ctx.err(describe(e));
    },
  });
  try {
    if (ctx.flags.once === true) {
      await p.drain(ctx.signal);
      if (ctx.json) ctx.out(JSON.stringify({ root: p.layout.root, finished: changes.filter((c) => c.kind === 'finished'), rejected: changes.filter((c) => c.kind === 'rejected') }));
      else ctx.out(`${changes.filter((c) => c.kind === 'finished').length} processed, ${changes.filter((c) => c.kind === 'rejected').length} rejected (${p.layout.root})`);
      return changes.some((c) => c.kind === 'rejected' || (c.kind === 'finished' && c.status === 'FAILED')) ? 1 : 0;
    }
    ctx.err(`watching ${p.layout.folders.commandsPending} (Ctrl-C to stop)`);
    p.start();
    await new Promise<void>((resolveStop) => {
      const stop = () => {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
        resolveStop();
      };
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      if (ctx.signal.aborted) stop();
      else ctx.signal.addEventListener('abort', stop, { once: true });
    });
    return 0;
  } finally {
    await p.dispose();
  }
}

function describe(e: MailboxChange): string {
  switch (e.kind) {
    case 'started':
      return `started ${e.commandId} (${e.file})`;
    case 'finished':
      return `finished ${e.commandId}: ${e.status}${e.sessionId ? ` (session ${e.sessionId})` : ''}`;
    case 'rejected':
      return `rejected ${e.file}: ${e.reasons.join(' | ')}`;
  }
}

async function status(ctx: CliContext): Promise<number> {
  const m = await resolveTarget(ctx);
  const layout = mailboxLayout(m.root);
  const count = (dir: string) => (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.md') && !n.startsWith('.') && !n.endsWith('.error.md')).length : 0);
  const sessions = listSessionFiles(m.root).sessions;
  const s = {
    root: m.root,
    pending: count(layout.folders.commandsPending),
    processed: count(layout.folders.commandsProcessed),
    rejected: count(layout.folders.commandsRejected),
    reports: listReportsIn(m).length,
    activeSessions: sessions.filter((x) => x.status === 'active').map((x) => x.session_id),
  };
  if (ctx.json) ctx.out(JSON.stringify(s));
  else {
    ctx.out(`mailbox ${s.root}`);
    ctx.out(`  pending ${s.pending}, processed ${s.processed}, rejected ${s.rejected}, reports ${s.reports}`);
    ctx.out(`  active sessions: ${s.activeSessions.length > 0 ? s.activeSessions.join(', ') : 'none'}`);
  }
  return 0;
}

/** Follows monitor.log and claude_runtime.log like `watch.sh --tail`, until interrupted. */
async function tailLogs(ctx: CliContext): Promise<number> {
  const m = await resolveTarget(ctx);
  const layout = mailboxLayout(m.root);
  const files = [layout.monitorLog, layout.runtimeLog];
  const offsets = new Map<string, number>();
  for (const f of files) {
    const size = existsSync(f) ? statSync(f).size : 0;
    offsets.set(f, Math.max(0, size - TAIL_START_BYTES));
  }
  const pump = () => {
    for (const f of files) {
      if (!existsSync(f)) continue;
      const size = statSync(f).size;
      let from = offsets.get(f) ?? 0;
      if (size < from) from = 0; // truncated (log cleanup): start again
      if (size === from) continue;
      const fd = openSync(f, 'r');
      try {
        const buf = Buffer.alloc(size - from);
        readSync(fd, buf, 0, buf.length, from);
        const text = buf.toString('utf8');
        const cut = text.lastIndexOf('\n');
        if (cut < 0) continue;
        for (const line of text.slice(0, cut).split('\n')) ctx.out(line);
        offsets.set(f, from + Buffer.byteLength(text.slice(0, cut + 1)));
      } finally {
        closeSync(fd);
      }
    }
  };
  pump();
  await new Promise<void>((resolveStop) => {
    const timer = setInterval(pump, TAIL_POLL_MS);
    const stop = () => {
      clearInterval(timer);
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolveStop();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (ctx.signal.aborted) stop();
    else ctx.signal.addEventListener('abort', stop, { once: true });
  });
  return 0;
}

const CONTAINER_FLAGS = { 'container-engine': true, image: true, gpus: true, memory: true, cpus: true, pids: true, network: true } as const;

/** The container flags of `task`, checked by the command file's own rules; they go with --placement container. */
function containerFlags(ctx: CliContext, placement: unknown): TaskContainerInput | undefined {
  const given = Object.keys(CONTAINER_FLAGS).filter((f) => ctx.flags[f] !== undefined);
  if (given.length === 0) return undefined;
  if (placement !== 'container') throw new UsageError(`--${given[0]} goes with --placement container`);
  const text = (f: string) => (typeof ctx.flags[f] === 'string' ? ctx.flags[f] : undefined);
  const r = parseContainerKeys({ container_engine: text('container-engine'), image: text('image'), memory: text('memory'), cpus: text('cpus'), pids: text('pids'), network: text('network') });
  if (!r.ok) throw new UsageError(r.problems.join(' '));
  const { containerEngine, image, memoryBytes, cpus, pids, network } = r.fields;
  const gpus = text('gpus');
  return {
    ...(containerEngine !== undefined ? { engine: containerEngine } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(gpus !== undefined ? { gpus: parseGpus(gpus) } : {}),
    ...(memoryBytes !== undefined || cpus !== undefined || pids !== undefined ? { limits: { ...(memoryBytes !== undefined ? { memoryBytes } : {}), ...(cpus !== undefined ? { cpus } : {}), ...(pids !== undefined ? { pids } : {}) } } : {}),
    ...(network !== undefined ? { network } : {}),
  };
}

export const taskCommand: CliCommand = {
  name: 'task',
  summary: 'Write a command file into a mailbox: a new task, a continuation of a session, or its end.',
  usage:
    'task new "TEXT" (--project ID | --root DIR) [--placement host|container [--container-engine NAME] [--image REF] [--gpus none|all|N|IDS] [--memory 8g] [--cpus N] [--pids N] [--network bridge|host|none]] [--timeout 10m] [--constraints TEXT] [--expected TEXT] [--headings en|zh]  |  task continue SESSION_ID "TEXT" …  |  task end SESSION_ID …',
  // --engine is the agent engine (the command file's `engine`); the Docker engine is --container-engine.
  flags: { ...TARGET_FLAGS, placement: true, timeout: true, constraints: true, expected: true, engine: true, headings: true, ...CONTAINER_FLAGS },
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    // The file's section headings: English (## Task) by default, or the format's own Chinese
    // template (## 任务描述) with --headings zh; the reader takes both. The text is written as given.
    const headingsFlag = ctx.flags.headings ?? 'en';
    if (headingsFlag !== 'en' && headingsFlag !== 'zh') throw new UsageError(`--headings must be en or zh, not ${String(headingsFlag)}`);
    const headings: HeadingLanguage = headingsFlag;
    let commandType: CommandType;
    let sessionId: string | undefined;
    let text: string | undefined;
    if (sub === 'new') {
      commandType = 'new';
      [text] = rest;
      if (!text) throw new UsageError('task new needs the task text');
      if (rest.length > 1) throw new UsageError(`unexpected argument: ${rest[1]}`);
    } else if (sub === 'continue') {
      commandType = 'continue';
      [sessionId, text] = rest;
      if (!sessionId || !text) throw new UsageError('task continue needs SESSION_ID and the task text');
      if (rest.length > 2) throw new UsageError(`unexpected argument: ${rest[2]}`);
    } else if (sub === 'end') {
      commandType = 'end';
      [sessionId, text] = rest;
      if (!sessionId) throw new UsageError('task end needs SESSION_ID');
      if (rest.length > 2) throw new UsageError(`unexpected argument: ${rest[2]}`);
      text ??= headings === 'zh' ? `结束会话 ${sessionId}` : `End the session ${sessionId}.`;
    } else if (sub === undefined) throw new UsageError('task needs a subcommand: new, continue or end');
    else throw new UsageError(`unknown task subcommand "${sub}"`);

    const placement = ctx.flags.placement;
    if (placement !== undefined && placement !== 'host' && placement !== 'container') throw new UsageError(`--placement must be host or container, not ${String(placement)}`);
    let timeoutMs: number | undefined;
    if (typeof ctx.flags.timeout === 'string') {
      const v = parseTimeout(/^\d+(\.\d+)?$/.test(ctx.flags.timeout) ? Number(ctx.flags.timeout) : ctx.flags.timeout);
      if (typeof v === 'string') throw new UsageError(`--timeout ${ctx.flags.timeout}: ${v}`);
      timeoutMs = v;
    }
    const container = containerFlags(ctx, placement);
    const t = target(ctx);
    // A --root mailbox is written without the app: the same file a script would drop.
    const svc = 'root' in t ? null : service(await ctx.openApp());
    if ('root' in t && !existsSync(t.root)) throw new AppError('path_not_found', `${t.root} does not exist.`);
    const input = {
      commandType,
      task: text,
      headings,
      ...(sessionId ? { sessionId } : {}),
      ...(typeof ctx.flags.constraints === 'string' ? { constraints: ctx.flags.constraints } : {}),
      ...(typeof ctx.flags.expected === 'string' ? { expectedOutput: ctx.flags.expected } : {}),
      ...(placement ? { placement: placement as Placement } : {}),
      ...(timeoutMs ? { timeoutMs } : {}),
      ...(typeof ctx.flags.engine === 'string' ? { engine: ctx.flags.engine } : {}),
      ...(container ? { container } : {}),
    };
    const r = svc ? svc.writeTask(t, input) : writeTaskFile(await resolveTarget(ctx), input);
    if (ctx.json) ctx.out(JSON.stringify(r));
    else {
      ctx.out(r.id);
      ctx.err(`wrote ${r.file}; the report will be ${mailboxLayout(r.root).report(r.id)}`);
    }
    return 0;
  },
};

/**
 * `<name> list [--project ID | --root DIR]`: the items of one mailbox (a project's or a folder
 * used as it is), or of every project mailbox when neither is given.
 */
async function listOf<T>(ctx: CliContext, name: string, inTarget: (t: Awaited<ReturnType<typeof resolveTarget>>) => T[], all: (m: ReturnType<typeof service>) => T[]): Promise<T[]> {
  const [sub, ...rest] = ctx.args;
  if (sub !== 'list') throw new UsageError(sub === undefined ? `${name} needs a subcommand: list` : `unknown ${name} subcommand "${sub}"`);
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const targeted = ctx.flags.project !== undefined || ctx.flags.root !== undefined;
  return targeted ? inTarget(await resolveTarget(ctx)) : all(service(await ctx.openApp()));
}

export const reportsCommand: CliCommand = {
  name: 'reports',
  summary: 'List the task reports of a mailbox (or of every project mailbox).',
  usage: 'reports list [--project ID | --root DIR] [--json]',
  flags: { ...TARGET_FLAGS },
  async run(ctx) {
    const list = await listOf(ctx, 'reports', listReportsIn, (m) => m.listReports());
    list.sort((a, b) => (a.reportDate < b.reportDate ? 1 : a.reportDate > b.reportDate ? -1 : 0));
    if (ctx.json) ctx.out(JSON.stringify(list));
    else if (list.length === 0) ctx.out('no reports');
    else for (const r of list) ctx.out(`${r.reportDate}  ${r.status.padEnd(15)}  ${r.commandId}  ${r.sessionId}  ${r.title}`);
    return 0;
  },
};

export const adrCommand: CliCommand = {
  name: 'adr',
  summary: 'List the architecture decision records of a mailbox workspace (or of every project).',
  usage: 'adr list [--project ID | --root DIR] [--json]',
  flags: { ...TARGET_FLAGS },
  async run(ctx) {
    const list = await listOf(ctx, 'adr', listAdrsIn, (m) => m.listAdrs());
    if (ctx.json) ctx.out(JSON.stringify(list));
    else if (list.length === 0) ctx.out('no ADRs');
    else for (const a of list) ctx.out(`ADR-${String(a.number).padStart(4, '0')}  ${a.title}  ${a.file}`);
    return 0;
  },
};
