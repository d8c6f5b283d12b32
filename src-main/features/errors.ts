/**
 * The features error taxonomy: one error type whose `kind` says which part failed (the agent,
 * a prompt template, the file system, the project config, a feature's state file, planning,
 * git or gh, or YAML itself), so the UI and the CLI can show the kind next to a clear message.
 * A file-related failure carries the file and, when known, the 1-based line.
 */
import { AppError, type ErrorCode } from '../../src-preload/contract/errors';

export const FEATURE_ERROR_KINDS = ['agent', 'prompt', 'io', 'config', 'state', 'plan', 'git', 'yaml'] as const;
export type FeatureErrorKind = (typeof FEATURE_ERROR_KINDS)[number];

export interface FeatureErrorLocation {
  /** The file the failure is about. */
  path?: string;
  /** 1-based line in that file. */
  line?: number;
}

// Which bridge code each kind maps to: what the user can do about it decides the code. A
// config, state or YAML problem is something in a file they can edit (invalid input); git and
// the agent are outside services that may be busy or absent.
const CODE_OF_KIND: Record<FeatureErrorKind, ErrorCode> = {
  agent: 'unavailable',
  prompt: 'not_found',
  io: 'internal',
  config: 'invalid_input',
  state: 'invalid_input',
  plan: 'invalid_input',
  git: 'conflict',
  yaml: 'invalid_input',
};

/** Where a message names its file and line: `path:line: message`, like compilers do. */
export function formatLocated(message: string, loc: FeatureErrorLocation): string {
  if (loc.path === undefined) return message;
  return loc.line === undefined ? `${loc.path}: ${message}` : `${loc.path}:${loc.line}: ${message}`;
}

export class FeatureError extends Error {
  override readonly name = 'FeatureError';
  readonly path: string | undefined;
  readonly line: number | undefined;
  constructor(
    readonly kind: FeatureErrorKind,
    /** The message without location; {@link message} has the location in front. */
    readonly detail: string,
    loc: FeatureErrorLocation = {},
    options?: { cause?: unknown },
  ) {
    super(formatLocated(detail, loc), options);
    this.path = loc.path;
    this.line = loc.line;
  }

  /** The bridge shape: the kind and location travel in `details` so the UI can show them. */
  toAppError(): AppError {
    const details: Record<string, unknown> = { kind: this.kind };
    if (this.path !== undefined) details.path = this.path;
    if (this.line !== undefined) details.line = this.line;
    return new AppError(codeFor(this), `${this.kind} error: ${this.message}`, details);
  }
}

function codeFor(e: FeatureError): ErrorCode {
  if (e.kind === 'io') {
    const code = (e.cause as NodeJS.ErrnoException | undefined)?.code;
    if (code === 'ENOENT') return 'not_found';
    if (code === 'EACCES' || code === 'EPERM') return 'permission_denied';
    if (code === 'ENOSPC') return 'disk_full';
  }
  return CODE_OF_KIND[e.kind];
}

/** An io FeatureError for a failed file operation, keeping the errno in `cause`. */
export function ioError(path: string, what: string, cause: unknown): FeatureError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new FeatureError('io', `could not ${what}: ${reason}`, { path }, { cause });
}

export function isFeatureError(e: unknown): e is FeatureError {
  return e instanceof FeatureError;
}
