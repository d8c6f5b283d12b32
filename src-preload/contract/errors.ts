import { z } from 'zod';
import { ERROR_CODES } from './error-codes';

/** Every failure that crosses the bridge has one of these codes (error-codes.ts). */
export const ErrorCode = z.enum(ERROR_CODES);
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
