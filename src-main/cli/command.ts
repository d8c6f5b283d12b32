import type { AppServices } from '../app/services';
import type { Logger } from '../platform/logger';

export interface CliContext {
  /** Positional arguments after the command name. */
  args: string[];
  /** Parsed flags (string values, true for boolean flags, every value of a repeatable flag). */
  flags: Record<string, string | boolean | string[] | undefined>;
  json: boolean;
  dataDir: string;
  logger: Logger;
  /** Opens the shared services on the data folder; the CLI runner disposes them. */
  openApp(): Promise<AppServices>;
  out(line: string): void;
  /** Diagnostics for the person at the terminal (stderr), kept out of the transcript on stdout. */
  err(line: string): void;
  /**
   * Aborted when the command should stop early: its stdout has no reader any more (a closed
   * pipe), or its terminal closed (SIGHUP); the reason says which. Long-running commands end
   * their work when it fires.
   */
  signal: AbortSignal;
}

export interface CliCommand {
  name: string;
  summary: string;
  usage: string;
  /** Flags this command accepts beyond the global ones; `true` = takes a value, `'multiple'` = may be repeated (a list). */
  flags?: Record<string, boolean | 'multiple'>;
  /** Returns the exit code. Long-running commands (serve) resolve when they stop. */
  run(ctx: CliContext): Promise<number>;
}

/** A usage mistake: printed with the command's usage line, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
