/**
 * Tunables of the terminal path. Flow control is by unacknowledged output, like VS Code's, but
 * with an adaptive window instead of its fixed 100k/5k watermarks (see flow-window.ts and
 * docs/terminal-performance.md for the measurements behind these numbers).
 */
import { TERMINAL_INPUT_FRAME_MAX_BYTES } from '../../src-preload/contract/terminal-frames';

/**
 * The smallest (and first) flow window: the pty may be this many bytes ahead of the slowest
 * live view. Four batches: the pty resumes with two still to parse, which covers the round trip
 * (ack → main → pty host → read → batch → view) even on a loaded machine. With 256 KB the view
 * ran dry before each resume about a fifth of the time in the benchmark.
 */
export const FLOW_WINDOW_MIN_BYTES = 512 * 1024;
/**
 * The largest window. Bounds what one terminal holds in flight (host → main → socket → view) to
 * a few megabytes whatever the view's speed; 4 MB is about 120 ms of xterm's parser (~34 MB/s).
 */
export const FLOW_WINDOW_MAX_BYTES = 4 * 1024 * 1024;
/**
 * The window is sized to what the slowest view parses in this long: long enough that pauses are
 * rare, short enough that a Ctrl+C in a flooding terminal shows its effect without a visible wait.
 */
export const FLOW_TARGET_LAG_MS = 200;
// Views acknowledge parsed characters in batches of 5,000 (TERMINAL_ACK_BATCH_CHARS in the
// contract, shared with the renderer): one ack per ~5 KB keeps ack traffic tiny.
/**
 * A live view that owes more than the smallest flow window and has not acknowledged anything for this
 * long is treated as stalled (a frozen tab, a debugger pause): it stops governing the pty so the
 * other views and the process keep going. It counts again from its next acknowledgement.
 */
export const FLOW_STALLED_VIEW_MS = 10_000;

/**
 * Output is batched per terminal before it crosses the bridge: 5 ms is VS Code's
 * TerminalDataBufferer interval, short enough to be invisible and long enough to turn a flood of
 * 4 KB pty reads into a few large frames.
 */
export const BATCH_FLUSH_MS = 5;
/** A batch this large is sent at once (Hyper's DataBatcher uses 200 KB): bounds frame size and latency. */
export const BATCH_MAX_BYTES = 128 * 1024;
/**
 * A batch window opened by a small write still passes on this many writes in all at once while
 * nothing is gathered, so the prompt after an echoed Enter, or output a program writes in a few
 * small pieces, does not wait up to BATCH_FLUSH_MS for the window the first piece opened. (The
 * echo of a keystroke skips the window anyway: HostTerminal sends the first read after input at
 * once.) Four covers an echo and a prompt in a few reads; more in one window is a burst.
 */
export const BATCH_IMMEDIATE_WRITES = 4;
/** …and at most this many bytes in all: a pty read of a flood (4 KB and up) ends it at once. */
export const BATCH_IMMEDIATE_BYTES = 2 * 1024;

/**
 * While a pty runs, the views' progress reaches the pty host in steps of at least this much: it
 * needs it only to pause in time, and a step of 1/16 of the smallest flow window makes it pause
 * at most that much early. Passing on every ack (one per 5,000 characters) cost an IPC message
 * and a wake-up of the host per ~5 KB of a flood. While the pty is paused every ack goes on, so
 * it resumes at once.
 */
export const FLOW_REPORT_BYTES = 32 * 1024;

/**
 * The pty host pauses a pty whose data it cannot hand to the main process fast enough (the IPC
 * backlog), so a flood nobody watches cannot grow the host's memory either.
 */
export const HOST_IPC_BACKLOG_MAX_BYTES = 1_000_000;

/**
 * Output handed to a shared channel (the pty host's IPC channel, a browser's WebSocket) and not
 * yet written out, beyond which further batches wait in their terminal's queue (fair-queue.ts).
 * What a quiet terminal's echo can wait behind: two batches, well under a millisecond to write.
 */
export const CHANNEL_IN_FLIGHT_MAX_BYTES = 256 * 1024;
/** Frames below this size (keystroke echo, prompts, status) skip the queue of an idle terminal. */
export const CHANNEL_SMALL_FRAME_BYTES = 4 * 1024;

/**
 * Terminal output is not queued for a terminal whose frames to one browser socket (the main
 * process's or a direct one from the pty host) have backed up this much: flow control keeps a
 * live view far below it, so only a stuck client gets here, and its view resyncs from the
 * terminal's scrollback when it sees the gap. Bounds what one client can make us buffer.
 */
export const TERMINAL_SOCKET_BACKLOG_MAX_BYTES = 8 * 1024 * 1024;
/**
 * A direct socket takes one thing from the client, keystrokes (terminal-frames.ts's input
 * frame, at most TERMINAL_MAX_INPUT_CHARS); ws refuses a larger frame itself (1009), and anything
 * that is not a well-formed input frame closes the socket (1008).
 */
export const DIRECT_SOCKET_MAX_CLIENT_FRAME_BYTES = TERMINAL_INPUT_FRAME_MAX_BYTES;

/** Scrollback kept per terminal for late or reloaded views: about 1–2 MB of UTF-16 text. */
export const DEFAULT_SCROLLBACK_CHARS = 1_000_000;

/** Resizes reach the pty at most this often; a dragged splitter sends dozens a second. */
export const RESIZE_THROTTLE_MS = 100;

// Size and input bounds are validated by the contract (src-preload/contract/terminals.ts).

/** After SIGTERM/SIGHUP, a process group gets this long to exit before SIGKILL. */
export const KILL_GRACE_MS = 2_000;

/**
 * Exited terminals stay readable until the user closes them, but agent commands create many:
 * beyond this many exited ones, the oldest exited agent-command terminals are forgotten (their
 * output is also in the run's event log).
 */
export const MAX_EXITED_COMMAND_TERMINALS = 40;

/** runCommand's default cap on the output it returns to the caller (head and tail are kept). */
export const DEFAULT_COMMAND_OUTPUT_CAP_BYTES = 256 * 1024;
/** Output of an agent's command appended to its run's event log, in batches of at most this size... */
export const EVENT_LOG_CHUNK_CHARS = 16 * 1024;
/** ...at most this often... */
export const EVENT_LOG_FLUSH_MS = 250;
/** ...and at most this much per command, so one noisy command cannot fill the database. */
export const EVENT_LOG_CAP_CHARS = 1_000_000;
