/**
 * Seed 000's Coder parameters: the one schema every caller (the CLI, the plan-mode tool,
 * Flightdeck sessions) goes through. Strict: an unknown or ill-typed parameter is a
 * `config_error` result, never a crash and never silently ignored.
 */
import { z } from 'zod';

export const SANDBOXES = ['read-only', 'workspace-write', 'danger-full-access'] as const;
export const Sandbox = z.enum(SANDBOXES);
export type Sandbox = z.infer<typeof Sandbox>;

/** Seed 000: no output for this long ends the run. */
export const DEFAULT_IDLE_TIMEOUT_S = 300;
/** Seed 000: the hard cap on one call (30 minutes); 0 means no cap. */
export const DEFAULT_MAX_DURATION_S = 1_800;
/**
 * Upper bounds keep a typo (an extra zero or three) from parking a run for weeks; a day is
 * longer than any real coding task and still fits a 32-bit timer once converted to ms.
 */
const MAX_SECONDS = 86_400;
/** Retries beyond this are a loop, not a policy: each one re-runs a write-capable agent. */
const MAX_RETRIES = 10;
/** A prompt larger than this is almost certainly a mistake (a pasted binary, a log file). */
export const MAX_PROMPT_CHARS = 1_000_000;

const seconds = z.number().int().nonnegative().max(MAX_SECONDS);

export const CoderParamsSchema = z
  .object({
    PROMPT: z.string().min(1, 'PROMPT is empty').max(MAX_PROMPT_CHARS, 'PROMPT is too long'),
    cd: z
      .string()
      .min(1, 'cd is empty')
      .max(4096, 'cd is too long')
      .refine((p) => !p.includes('\0'), 'cd contains a NUL byte'),
    sandbox: Sandbox.default('workspace-write'),
    /**
     * Claude Code session id (or session title) to resume. Absent, `""`, blank or `null` start a
     * new session: callers pass back whatever the last result carried, and a first call has none.
     */
    SESSION_ID: z
      .union([z.string().max(200), z.null()])
      .optional()
      .transform((v) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined)),
    return_all_messages: z.boolean().default(false),
    return_metrics: z.boolean().default(false),
    timeout: seconds.min(1, 'timeout must be at least 1 second').default(DEFAULT_IDLE_TIMEOUT_S),
    max_duration: seconds.default(DEFAULT_MAX_DURATION_S),
    max_retries: z.number().int().nonnegative().max(MAX_RETRIES).default(0),
    log_metrics: z.boolean().default(false),
  })
  .strict();

/** Parameters as the caller writes them (defaults optional). */
export type CoderParamsInput = z.input<typeof CoderParamsSchema>;
/** Parameters with every default applied. */
export type CoderParams = z.output<typeof CoderParamsSchema>;

/** The plan-mode tool takes the same parameters except `cd`, which is the session root. */
export const CoderToolInputSchema = CoderParamsSchema.omit({ cd: true });
export type CoderToolInput = z.input<typeof CoderToolInputSchema>;

export type ParamsParse = { ok: true; params: CoderParams } | { ok: false; message: string; issues: string[] };

/** One line per problem, naming the parameter, for the `config_error` result. */
export function describeIssues(error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path.map(String).join('.');
    if (issue.code === 'unrecognized_keys') return `unknown parameter${issue.keys.length > 1 ? 's' : ''}: ${issue.keys.join(', ')}`;
    return path ? `${path}: ${issue.message}` : issue.message;
  });
}

export function parseCoderParams(input: unknown): ParamsParse {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    return { ok: false, message: 'The parameters must be a JSON object with at least PROMPT and cd.', issues: ['not an object'] };
  }
  const parsed = CoderParamsSchema.safeParse(input);
  if (parsed.success) return { ok: true, params: parsed.data };
  const issues = describeIssues(parsed.error);
  return { ok: false, message: `Invalid Coder parameters: ${issues.join('; ')}`, issues };
}

/** The JSON schema the plan-mode tool advertises to the model. */
export function coderToolJsonSchema(): Record<string, unknown> {
  const schema = z.toJSONSchema(CoderToolInputSchema, { io: 'input' }) as Record<string, unknown>;
  delete schema.$schema;
  return schema;
}
