/**
 * Messages between the main process and the pty host child process (over Node's IPC channel
 * with V8 serialization, so output crosses as raw bytes: no JSON, no decoding in the host).
 * Every batch ends on a UTF-8 character boundary, and `offset` is where it starts in the
 * terminal's byte stream, so the main process can check that nothing was lost or repeated.
 * Flow control in the host counts bytes too; the main process turns the views' acknowledged
 * characters into bytes (see terminal-service.ts).
 */
export interface SpawnRequest {
  id: string;
  file: string;
  args: string[];
  cwd: string;
  env: Record<string, string>;
  cols: number;
  rows: number;
  /** What it is ('shell', 'command'), recorded with its session for crash recovery and logs. */
  kind?: string;
  /** The most output held back during a flood (`toMain`), in UTF-16 code units: the main process's scrollback. */
  scrollbackChars: number;
  /** Whether the main process wants every batch's bytes from the start (see `toMain`). */
  toMain: boolean;
}

export type ToHost =
  | { t: 'spawn'; req: SpawnRequest }
  | { t: 'write'; id: string; data: string }
  | { t: 'resize'; id: string; cols: number; rows: number }
  /** Sends a signal to the terminal's whole process group. */
  | { t: 'signal'; id: string; signal: NodeJS.Signals }
  /**
   * How far the slowest live view has parsed, as a byte offset (`null`: nobody is watching, so
   * no flow control). The host compares it with what it sent and pauses or resumes the pty.
   */
  | { t: 'consumed'; id: string; offset: number | null }
  /** Asks for one terminal's throughput figures (the benchmark's per-hop breakdown). */
  | { t: 'stats'; id: string }
  /** Forget an exited terminal's host-side state. */
  | { t: 'release'; id: string }
  /**
   * Whether the main process needs every batch's bytes as it comes (`on`: a view fed over the
   * main process, an in-process listener). Otherwise the host may hold a flood's bytes back
   * (views on direct sockets have them already) and send them as one `catchUp` once it is
   * over; `on` sends what is held at once.
   */
  | { t: 'toMain'; id: string; on: boolean }
  | { t: 'shutdown' }
  /**
   * Browser mode: the socket handle passed with this message is a browser's dedicated output
   * connection, already authenticated by the main process (token, Host, Origin, and the
   * ticket of its main connection `conn`, good for one direct socket at a time while that connection
   * lasts); the host completes the WebSocket handshake
   * with `head` and the request line and headers given here. It carries output, and keystrokes
   * from the client (input frames, see direct-sockets.ts).
   */
  | { t: 'direct'; conn: string; url: string; headers: Record<string, string | string[] | undefined>; head: Uint8Array }
  /**
   * From now on write (`on`) or stop writing a terminal's output to connection `conn`'s direct
   * socket. Sent by the main process when that connection attaches (or detaches) a view of the
   * terminal: the host writes to a direct socket only the terminals routed to it here. Answered
   * by `routed` in the terminal's own lane, after all of its output sent before. `socket`: which
   * of the connection's direct sockets the main process meant, echoed in the answer.
   */
  | { t: 'route'; id: string; conn: string; on: boolean; socket: number }
  /** The main connection `conn` closed: its direct socket closes too. */
  | { t: 'dropDirect'; conn: string };

export type FromHost =
  | { t: 'ready'; pid: number }
  | { t: 'spawned'; id: string; pid: number }
  | { t: 'spawnFailed'; id: string; message: string }
  /**
   * `chars`: the UTF-16 code units of the batch (counted here, once, for every reader);
   * `length`: its bytes. `data` is the batch, or empty while a flood's bytes are held back
   * (see `toMain`; they follow in a `catchUp`).
   */
  | { t: 'data'; id: string; offset: number; chars: number; length: number; data: Uint8Array }
  /**
   * The output held back since the last batch with bytes, in the terminal's lane: from stream
   * offset `start` (UTF-16 units; later than where the main process's scrollback ends only if
   * more was held back than a scrollback keeps), `chars` units, as bytes. Sent when the flood is
   * over, before a `routed`, and before the exit.
   */
  | { t: 'catchUp'; id: string; start: number; chars: number; data: Uint8Array }
  /** The pty was paused or resumed; `window` is the flow window in force (bytes). */
  | { t: 'flow'; id: string; paused: boolean; window: number }
  | { t: 'stats'; id: string; stats: HostTerminalStats | null }
  /** `stats`: the pty's final figures, since the host forgets it once released. */
  | { t: 'exit'; id: string; exitCode: number; signal: number; stats: HostTerminalStats }
  /** Connection `conn`'s direct socket completed its handshake here. */
  | { t: 'directOpen'; conn: string }
  /** Connection `conn`'s direct socket closed (or never opened): its terminals are routed no more. */
  | { t: 'directClosed'; conn: string }
  /**
   * Answer to `route`, in the terminal's lane: every batch before this message went only to the
   * main process; after it, each batch also goes to the direct socket when `on` (false: the
   * socket is gone, or the terminal is unknown or exited). `asked`: the `on` of the request;
   * `socket`: the request's (the answer may arrive after that socket closed and another opened).
   */
  | { t: 'routed'; id: string; conn: string; asked: boolean; on: boolean; socket: number };

/** What the host measured for one pty (times are epoch milliseconds with sub-millisecond precision). */
export interface HostTerminalStats {
  bytesRead: number;
  firstReadAt: number | null;
  lastReadAt: number | null;
  pauses: number;
  /** Total time the pty was paused by flow control. */
  pausedMs: number;
  window: number;
  /** Times its reading was held for a keystroke in another terminal (input-hold.ts). */
  holds: number;
  /**
   * The latest inputs (at most ECHO_SAMPLES_MAX): when the host got each one and when it read
   * the pty's next output (its echo; null until then). The benchmark's per-hop echo timing.
   */
  echoes: Array<{ inputAt: number; readAt: number | null }>;
}
