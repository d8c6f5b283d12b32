/**
 * Messages between the main process and the pty host child process (over Node's IPC channel,
 * JSON-serialized). Terminal output crosses as already-decoded strings: every batch ends on a
 * UTF-8 character boundary, and `offset` is where it starts in the terminal's stream (UTF-16
 * code units), so the main process can check that nothing was lost or repeated.
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
}

export type ToHost =
  | { t: 'spawn'; req: SpawnRequest }
  | { t: 'write'; id: string; data: string }
  | { t: 'resize'; id: string; cols: number; rows: number }
  /** Sends a signal to the terminal's whole process group. */
  | { t: 'signal'; id: string; signal: NodeJS.Signals }
  /**
   * How far the slowest live view has parsed (`null`: nobody is watching, so no flow control).
   * The host compares it with what it sent and pauses or resumes the pty.
   */
  | { t: 'consumed'; id: string; offset: number | null }
  /** Forget an exited terminal's host-side state. */
  | { t: 'release'; id: string }
  | { t: 'shutdown' };

export type FromHost =
  | { t: 'ready'; pid: number }
  | { t: 'spawned'; id: string; pid: number }
  | { t: 'spawnFailed'; id: string; message: string }
  | { t: 'data'; id: string; offset: number; data: string }
  | { t: 'flow'; id: string; paused: boolean }
  | { t: 'exit'; id: string; exitCode: number; signal: number };
