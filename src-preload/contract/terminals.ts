import { z } from 'zod';
import { event, request } from './define';
import { ProjectId, UserPath } from './projects';
import { TERMINAL_ID_PATTERN, TERMINAL_MAX_INPUT_CHARS } from './terminal-frames';

/**
 * Live terminals. Output travels on the keyed `terminals.data` topic with stream offsets
 * (UTF-16 code units since the terminal started); a view attaches (getting the scrollback and
 * the offset where it ends), writes what it gets to xterm, and acknowledges parsed characters so
 * the main process can pause a flooding pty (see src-main/terminals/constants.ts).
 */

/** Size bounds: enough for an 8K screen at a tiny font, small enough to bound the pty's buffers. */
export const TERMINAL_MIN_COLS = 2;
export const TERMINAL_MAX_COLS = 1_000;
export const TERMINAL_MIN_ROWS = 1;
export const TERMINAL_MAX_ROWS = 500;
export { TERMINAL_MAX_INPUT_CHARS } from './terminal-frames';
/** A view acknowledges once it has parsed this many characters (VS Code's CharCountAckSize). */
export const TERMINAL_ACK_BATCH_CHARS = 5_000;
/**
 * What is parsed and under a batch is acknowledged this long after, if nothing more came: the
 * end of a burst (a command's last lines, an echo) is otherwise never counted, and the terminal's
 * in-flight count stays above zero for good. At most one ack a second while typing.
 */
export const TERMINAL_ACK_TAIL_MS = 1_000;
/**
 * A view still behind its output acknowledges at most this often: each acknowledgement is a
 * message through the view's socket, the main process and the pty host (about 0.2 ms of the
 * view's CPU alone, in a socket write), and a flood's batches (~128 KB each) made one per
 * batch, ~450 per 50 MB. Paced, a view parsing at 30 MB/s acknowledges ~600 KB at a time, a
 * small part of a flow window (what it parses in 200 ms): the pty still resumes with half a
 * window left to parse. A view that has parsed all it received acknowledges at once (the pipe
 * is empty: the pty may be waiting for exactly that).
 */
export const TERMINAL_ACK_INTERVAL_MS = 20;

export const TerminalId = z.string().regex(TERMINAL_ID_PATTERN, 'not a terminal id');
export const AttachmentId = z.string().regex(/^att-[a-z0-9]{6,40}$/, 'not an attachment id');

const Cols = z.number().int().min(TERMINAL_MIN_COLS).max(TERMINAL_MAX_COLS);
const Rows = z.number().int().min(TERMINAL_MIN_ROWS).max(TERMINAL_MAX_ROWS);
export const TerminalSize = z.object({ cols: Cols, rows: Rows });

/**
 * Who a terminal belongs to. Every field is optional: a plain shell has a project or only a
 * folder; an agent's command has its session (and later its phase, worktree or container).
 */
export const TerminalOwner = z.object({
  projectId: ProjectId.optional(),
  worktreePath: z.string().max(4096).optional(),
  sessionId: z.string().max(200).optional(),
  phase: z.string().max(200).optional(),
  containerId: z.string().max(200).optional(),
});
export type TerminalOwner = z.infer<typeof TerminalOwner>;

export const TerminalStatus = z.enum(['running', 'exited']);

export const TerminalInfo = z.object({
  id: TerminalId,
  title: z.string(),
  kind: z.enum(['shell', 'command']),
  /** The command line of a `command` terminal (null for an interactive shell). */
  command: z.string().nullable(),
  cwd: z.string(),
  owner: TerminalOwner,
  pid: z.number().int().nullable(),
  status: TerminalStatus,
  exitCode: z.number().int().nullable(),
  /** The signal that ended the process (e.g. "SIGTERM"), when one did. */
  signal: z.string().nullable(),
  /** Why the terminal ended abnormally, in words (the terminal host crashed, a timeout). */
  problem: z.string().nullable(),
  startedAt: z.number().int(),
  exitedAt: z.number().int().nullable(),
  /**
   * Once it has ended: how long its output is (UTF-16 units, the views' offsets), so a view knows
   * when it has all of it. The status and the last output may come on different channels (the
   * output on a direct socket): a view writes its end line only after that offset. Null while it runs.
   */
  outputEnd: z.number().int().nonnegative().nullable(),
  cols: Cols,
  rows: Rows,
});
export type TerminalInfo = z.infer<typeof TerminalInfo>;

export const OpenTarget = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('project'), projectId: ProjectId }).strict(),
  z.object({ kind: z.literal('path'), path: UserPath }).strict(),
]);
export type OpenTarget = z.infer<typeof OpenTarget>;

export const TerminalSignal = z.enum(['SIGINT', 'SIGTERM', 'SIGKILL', 'SIGHUP', 'SIGQUIT']);

export const AttachResult = z.object({
  terminal: TerminalInfo,
  attachmentId: AttachmentId,
  /** The scrollback: output from `start` to `end` (`start` is the request's `since` when it could be honoured). */
  data: z.string(),
  start: z.number().int().nonnegative(),
  /** Live data continues from here; a `terminals.data` event before it is a duplicate to drop. */
  end: z.number().int().nonnegative(),
});
export type AttachResult = z.infer<typeof AttachResult>;

/** A terminal's scrollback read without watching it (a read ahead of its first show). */
export const TerminalHistory = z.object({
  data: z.string(),
  /** `data` is the output from `start` to `end`. */
  start: z.number().int().nonnegative(),
  end: z.number().int().nonnegative(),
});
export type TerminalHistory = z.infer<typeof TerminalHistory>;

export const TerminalData = z.object({
  offset: z.number().int().nonnegative(),
  data: z.string(),
});
export type TerminalData = z.infer<typeof TerminalData>;

const Ok = z.object({ ok: z.literal(true) });

export const terminalRequests = {
  'terminals.create': request(
    z.object({ target: OpenTarget, cols: Cols.default(80), rows: Rows.default(24) }).strict(),
    TerminalInfo,
    "Open a shell in a project's repository or in an existing folder.",
  ),
  'terminals.list': request(z.object({}).strict(), z.array(TerminalInfo), 'Every terminal, running or exited, with its owner.'),
  'terminals.write': request(
    z.object({ id: TerminalId, data: z.string().min(1).max(TERMINAL_MAX_INPUT_CHARS, 'input too long; send it in parts') }).strict(),
    Ok,
    'Type into a terminal.',
  ),
  'terminals.resize': request(z.object({ id: TerminalId, cols: Cols, rows: Rows }).strict(), Ok, 'Tell the pty its new size.'),
  'terminals.kill': request(
    z.object({ id: TerminalId, signal: TerminalSignal.default('SIGTERM') }).strict(),
    Ok,
    "Send a signal to the terminal's process group.",
  ),
  'terminals.close': request(
    z.object({ id: TerminalId }).strict(),
    z.object({ closed: z.boolean() }),
    'End the process if it still runs and forget the terminal and its scrollback.',
  ),
  'terminals.attach': request(
    z.object({ id: TerminalId, since: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional() }).strict(),
    AttachResult,
    'Start watching a terminal: its scrollback (only what came after `since`, for a view that holds the output up to it, when the scrollback reaches back that far) and the offset live data continues from. Resumes a paused pty.',
  ),
  'terminals.history': request(
    z
      .object({
        id: TerminalId,
        /** Only what came after this offset, when the scrollback reaches back to it (`start` says what was given). */
        since: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
        /** Nothing (null) when the answer would be longer: it is neither decoded nor sent. */
        maxChars: z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER).optional(),
      })
      .strict(),
    TerminalHistory.nullable(),
    "A terminal's scrollback and where it starts and ends, without watching it: a view reads it ahead of the terminal's first show and attaches from its end then.",
  ),
  'terminals.detach': request(z.object({ id: TerminalId, attachmentId: AttachmentId }).strict(), Ok, 'Stop watching a terminal.'),
  'terminals.ack': request(
    z.object({ id: TerminalId, attachmentId: AttachmentId, chars: z.number().int().positive().max(100_000_000) }).strict(),
    Ok,
    'Acknowledge characters the view has parsed (flow control).',
  ),
} as const;

export const terminalEvents = {
  'terminals.data': event(TerminalData, 'Output of one terminal (keyed by terminal id).', { keyed: true }),
  'terminals.status': event(TerminalInfo, 'A terminal started or exited (keyed by terminal id).', { keyed: true }),
  'terminals.changed': event(z.object({ terminals: z.array(TerminalInfo) }), 'The terminal list or a terminal status changed.'),
} as const;
