import { z } from 'zod';

/**
 * Every failure that crosses the bridge has one of these codes. Expected failures carry
 * a message written for the user; unexpected ones are reduced to `internal` with no stack.
 */
export const ErrorCode = z.enum([
  'invalid_input',
  'unknown_channel',
  'forbidden',
  'not_found',
  'conflict',
  'unavailable',
  'internal',
  // projects
  'path_not_found',
  'not_a_directory',
  'not_a_git_repo',
  'git_not_installed',
  'already_added',
  // store
  'database_too_new',
  'disk_full',
  'database_corrupt',
  // files and folders the operating system refuses to open
  'permission_denied',
  // bridge: one connection asked for more than its share (subscriptions, requests in flight)
  'limit_exceeded',
]);
export type ErrorCode = z.infer<typeof ErrorCode>;

export const BridgeErrorShape = z.object({
  code: ErrorCode,
  message: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type BridgeErrorShape = z.infer<typeof BridgeErrorShape>;

/** An error with a code the user can act on. Thrown by services, carried across the bridge. */
export class AppError extends Error {
  override readonly name = 'AppError';
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }

  toShape(): BridgeErrorShape {
    return this.details === undefined
      ? { code: this.code, message: this.message }
      : { code: this.code, message: this.message, details: this.details };
  }
}

export function isAppError(e: unknown): e is AppError {
  return e instanceof AppError;
}
