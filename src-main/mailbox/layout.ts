/**
 * A mailbox's folders on disk (see docs/mailbox.md), reading a command file within the size
 * limit, and moving a file that cannot run to `commands/rejected/` beside an explanation.
 *
 * The layout is the same whether the mailbox lives in Flightdeck's data folder or is a
 * `volumes/` folder another tool already uses, so scripts written for either work with both.
 */
import { closeSync, constants, fstatSync, linkSync, mkdirSync, openSync, readSync, renameSync, existsSync, unlinkSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { basename, extname, join } from 'node:path';
import { AppError } from '../../src-preload/contract/errors';
import { syncFolder, writeNewFile } from '../platform/atomic-file';
import { MAX_COMMAND_FILE_BYTES, SAFE_ID, checkCommandAgainstState, parseCommandFile, tooLargeProblem, type CommandFile, type CommandProblem, type MailboxState } from './command-file';

/** Folders of a mailbox, relative to its root. */
export const MAILBOX_FOLDERS = {
  commandsPending: 'commands/pending',
  commandsProcessed: 'commands/processed',
  commandsRejected: 'commands/rejected',
  reportsPending: 'reports/pending',
  sessions: 'sessions',
  logs: 'logs',
  workspace: 'workspace',
  contextProject: 'context/project',
  contextTask: 'context/task',
} as const;
export type MailboxFolder = keyof typeof MAILBOX_FOLDERS;

/** Log files of a mailbox, in `logs/`. */
export const RUNTIME_LOG = 'claude_runtime.log';
export const MONITOR_LOG = 'monitor.log';

/**
 * How many alternative names `rejectCommandFile` tries when `commands/rejected/` already holds
 * a file of the same name (the same file rejected again after an edit). Thousands of rejections
 * of one name mean something is looping; failing loudly is then better than another copy.
 */
const MAX_NAME_ATTEMPTS = 10_000;

export interface MailboxLayout {
  root: string;
  folders: Record<MailboxFolder, string>;
  sessionFile(sessionId: string): string;
  report(commandId: string): string;
  detailedReport(commandId: string): string;
  debugLog(taskId: string): string;
  runtimeLog: string;
  monitorLog: string;
  taskContext(taskId: string): string;
}

function safeId(kind: string, id: string): string {
  if (!SAFE_ID.test(id)) throw new AppError('invalid_input', `${kind} ${JSON.stringify(id)} cannot name a file: letters, digits, ".", "_" and "-" only, starting with a letter or digit.`);
  return id;
}

/** The paths of a mailbox rooted at `root` (nothing is touched on disk). */
export function mailboxLayout(root: string): MailboxLayout {
  const folders = Object.fromEntries(Object.entries(MAILBOX_FOLDERS).map(([k, rel]) => [k, join(root, rel)])) as Record<MailboxFolder, string>;
  return {
    root,
    folders,
    sessionFile: (id) => join(folders.sessions, `${safeId('A session id', id)}.json`),
    report: (id) => join(folders.reportsPending, `report-${safeId('A command id', id)}.md`),
    detailedReport: (id) => join(folders.reportsPending, `detailed-report-${safeId('A command id', id)}.md`),
    debugLog: (id) => join(folders.logs, `debug-${safeId('A task id', id)}.log`),
    runtimeLog: join(folders.logs, RUNTIME_LOG),
    monitorLog: join(folders.logs, MONITOR_LOG),
    taskContext: (id) => join(folders.contextTask, safeId('A task id', id)),
  };
}

/** Creates every folder of the mailbox that is missing. */
export function ensureMailbox(root: string): MailboxLayout {
  const layout = mailboxLayout(root);
  for (const dir of Object.values(layout.folders)) mkdirSync(dir, { recursive: true });
  return layout;
}

export type LoadedCommandFile = { ok: true; bytes: Buffer } | { ok: false; problem: CommandProblem };

/**
 * Reads a command file, refusing anything but a regular file, and one larger than the limit without reading it (the size is
 * taken from the open descriptor, so a file that grows meanwhile is still read only up to the
 * limit plus one byte, and then refused).
 */
export function loadCommandFile(file: string): LoadedCommandFile {
  const notAFile = (what: string): LoadedCommandFile => ({ ok: false, problem: { code: 'not_a_file', message: `${basename(file)} is ${what}, not a command file; put the Markdown file itself into ${MAILBOX_FOLDERS.commandsPending}/.` } });
  let fd: number;
  try {
    // O_NOFOLLOW: a link in pending/ could point anywhere (a device, a secret); it is refused, not read.
    fd = openSync(file, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ELOOP') return notAFile('a symbolic link');
    throw e;
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) return notAFile('a folder');
    // O_NONBLOCK above: opening a FIFO dropped into pending/ must not wait for a writer.
    if (!stat.isFile()) return notAFile('a special file (a pipe, socket or device)');
    const size = stat.size;
    const tooLarge = (n: number): LoadedCommandFile => ({ ok: false, problem: tooLargeProblem(n) });
    if (size > MAX_COMMAND_FILE_BYTES) return tooLarge(size);
    const buf = Buffer.alloc(MAX_COMMAND_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
      if (n > MAX_COMMAND_FILE_BYTES) return tooLarge(n);
    }
    return { ok: true, bytes: buf.subarray(0, n) };
  } finally {
    closeSync(fd);
  }
}

/** The text of `<name>.error.md`: every problem, then how to fix and resubmit. */
export function formatRejection(name: string, problems: readonly CommandProblem[], rejectedAt: Date): string {
  const lines = [`# Rejected command: ${name}`, '', `Flightdeck did not run this command file (rejected ${rejectedAt.toISOString()}) because:`, ''];
  problems.forEach((p, i) => {
    // Messages usually name their line, field and value already; add only what they leave out.
    const where = [
      p.line !== undefined && !p.message.includes(`line ${p.line}`) ? `line ${p.line}` : undefined,
      p.field !== undefined && !p.message.includes(p.field) ? `field \`${p.field}\`` : undefined,
      p.value !== undefined && !p.message.includes(p.value) ? `value ${p.value}` : undefined,
    ]
      .filter(Boolean)
      .join(', ');
    lines.push(`${i + 1}. ${where ? `(${where}) ` : ''}${p.message.replace(/\r?\n/g, ' ')}`);
  });
  lines.push('', `Fix the file and move it back to \`${MAILBOX_FOLDERS.commandsPending}/\` to run it.`, '');
  return lines.join('\n');
}

/** `name`, then `stem-2.ext`, `stem-3.ext`, … */
function candidateName(name: string, attempt: number): string {
  if (attempt === 1) return name;
  const ext = extname(name);
  const stem = ext && ext !== name ? name.slice(0, -ext.length) : name;
  return `${stem}-${attempt}${ext}`;
}

/** Errors of a file system that has no hard links (or refuses them here). */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'EXDEV', 'EMLINK']);

/** Places `src` at `dest` unless `dest` exists. False when it exists. */
function moveNoReplace(src: string, dest: string): boolean {
  try {
    // A hard link fails if the name is taken, where rename would silently replace it; the file
    // exists under both names for a moment, so a crash leaves a copy, never a loss.
    linkSync(src, dest);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code ?? '')) throw e;
    // A file system without hard links (some network and FUSE mounts): check then rename, which
    // only one mailbox watcher does at a time, so the gap between the two cannot be raced.
    if (existsSync(dest)) return false;
    renameSync(src, dest);
    return true;
  }
  unlinkSync(src);
  return true;
}

/** Puts the finished explanation at `dest` unless the name is taken. False when it is. */
function placeErrorFile(tmp: string, dest: string, text: string): boolean {
  try {
    linkSync(tmp, dest);
    return true;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    if (!NO_HARD_LINKS.has(code ?? '')) throw e;
  }
  // Without hard links: an exclusive create still never replaces a file; a reader may see it
  // while it is being written, which for a few hundred bytes is a short moment.
  try {
    writeNewFile(dest, text, 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
  return true;
}

export interface Rejection {
  /** Where the command file now is. */
  file: string;
  /** Its explanation, `<file>.error.md`. */
  errorFile: string;
}

/**
 * Moves `commands/pending/<name>` to `commands/rejected/` and writes `<name>.error.md` beside it
 * listing every problem. An existing file of that name is never replaced: the pair gets the
 * next free name (`<stem>-2<ext>`). The explanation is written first and appears complete (it
 * is linked into place from a finished temporary file), then the command moves; a crash
 * between the two leaves the command in `pending/`, to be rejected again.
 */
export function rejectCommandFile(root: string, name: string, problems: readonly CommandProblem[], now: Date = new Date()): Rejection {
  if (name !== basename(name) || name === '.' || name === '..' || name === '') throw new AppError('invalid_input', `${JSON.stringify(name)} is not a file name in ${MAILBOX_FOLDERS.commandsPending}/.`);
  const layout = mailboxLayout(root);
  const src = join(layout.folders.commandsPending, name);
  if (!existsSync(src)) throw new AppError('not_found', `${MAILBOX_FOLDERS.commandsPending}/${name} does not exist.`);
  const rejectedDir = layout.folders.commandsRejected;
  mkdirSync(rejectedDir, { recursive: true });

  const text = formatRejection(name, problems, now);
  const tmp = join(rejectedDir, `.${name}.${process.pid}.${randomBytes(4).toString('hex')}.error.tmp`);
  writeNewFile(tmp, text, 0o644);
  try {
    for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
      const target = candidateName(name, attempt);
      const file = join(rejectedDir, target);
      const errorFile = `${file}.error.md`;
      if (existsSync(file)) continue;
      if (!placeErrorFile(tmp, errorFile, text)) continue;
      let moved = false;
      try {
        moved = moveNoReplace(src, file);
      } finally {
        if (!moved) unlinkSync(errorFile);
      }
      if (!moved) continue;
      syncFolder(rejectedDir);
      syncFolder(layout.folders.commandsPending);
      return { file, errorFile };
    }
    throw new AppError('conflict', `${MAX_NAME_ATTEMPTS} rejected files named like ${JSON.stringify(name)} already exist in ${MAILBOX_FOLDERS.commandsRejected}/; clear them out.`);
  } finally {
    try {
      unlinkSync(tmp);
    } catch {
      // Already gone: only a finished explanation was ever linked from it.
    }
  }
}

/**
 * Moves `commands/pending/<name>` to `commands/processed/` — the signal that a command's report
 * is written — under the first free name (`<stem>-2<ext>`, …), never replacing a file there.
 */
export function markProcessed(root: string, name: string): string {
  if (name !== basename(name) || name === '.' || name === '..' || name === '') throw new AppError('invalid_input', `${JSON.stringify(name)} is not a file name in ${MAILBOX_FOLDERS.commandsPending}/.`);
  const layout = mailboxLayout(root);
  const src = join(layout.folders.commandsPending, name);
  mkdirSync(layout.folders.commandsProcessed, { recursive: true });
  for (let attempt = 1; attempt <= MAX_NAME_ATTEMPTS; attempt++) {
    const dest = join(layout.folders.commandsProcessed, candidateName(name, attempt));
    if (moveNoReplace(src, dest)) {
      syncFolder(layout.folders.commandsProcessed);
      syncFolder(layout.folders.commandsPending);
      return dest;
    }
  }
  throw new AppError('conflict', `${MAX_NAME_ATTEMPTS} processed files named like ${JSON.stringify(name)} already exist in ${MAILBOX_FOLDERS.commandsProcessed}/; clear them out.`);
}

export type Admission = { ok: true; command: CommandFile; warnings: CommandProblem[] } | { ok: false; problems: CommandProblem[]; rejection: Rejection };

/**
 * Reads `commands/pending/<name>` and decides whether it can run: it must parse and pass the
 * checks against the mailbox's state. A file that cannot run is moved to `commands/rejected/`
 * with its explanation; one that can stays in `pending/` for the caller to run.
 */
export function admitCommandFile(root: string, name: string, state: MailboxState, now: Date = new Date()): Admission {
  const file = join(mailboxLayout(root).folders.commandsPending, name);
  const loaded = loadCommandFile(file);
  const parsed = loaded.ok ? parseCommandFile(loaded.bytes) : { ok: false as const, problems: [loaded.problem], warnings: [] };
  const problems = parsed.ok ? checkCommandAgainstState(parsed.command, state) : parsed.problems;
  if (parsed.ok && problems.length === 0) return { ok: true, command: parsed.command, warnings: parsed.warnings };
  return { ok: false, problems, rejection: rejectCommandFile(root, name, problems, now) };
}
