import { z } from 'zod';
import { request } from './define';
import { ProfileName } from './agents';

/** What a connection test found, in the user's terms. */
export const ConnectionOutcome = z.enum(['ok', 'no_key', 'key_rejected', 'unreachable', 'model_unknown', 'rate_limited', 'server_error', 'rejected']);
export type ConnectionOutcome = z.infer<typeof ConnectionOutcome>;

export const ConnectionTestResult = z.object({
  outcome: ConnectionOutcome,
  /** One line for the panel: "Connected in 312 ms", "The API key was rejected (401)". */
  headline: z.string(),
  /** What the endpoint said, and what to do about it; empty when all is well. */
  detail: z.string(),
  /** Round trip of the one-token request; null when no answer came. */
  latencyMs: z.number().int().nonnegative().nullable(),
  /** The HTTP status the endpoint answered, when it answered. */
  status: z.number().int().nullable(),
  baseUrl: z.string(),
  model: z.string(),
});
export type ConnectionTestResult = z.infer<typeof ConnectionTestResult>;

export const providerRequests = {
  'providers.testConnection': request(
    z.object({ name: ProfileName }).strict(),
    ConnectionTestResult,
    "Send a one-token request with a saved profile's base URL, key and model; say in words whether it works.",
  ),
} as const;
