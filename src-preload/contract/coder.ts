/**
 * The Claude Code executor's part of the bridge (seed 000's Coder tool inside Flightdeck):
 * finding the `claude` CLI, choosing per session which executor runs its turns, and which
 * engineering-constraint files (`ai/…`) go into its prompts.
 *
 * A Claude Code session's events are the ordinary agent events (`agents.event`): transcript,
 * tool cards, approvals and cost look exactly like the built-in loop's.
 */
import { z } from 'zod';
import { event, request } from './define';
import { SessionId } from './agents';
import { UserPath } from './projects';

export const INSTALL_CLAUDE_HINT = 'npm install -g @anthropic-ai/claude-code';

/** Who runs a session's turns: the built-in loop, or the Claude Code CLI. */
export const Executor = z.enum(['builtin', 'claude-code']);
export type Executor = z.infer<typeof Executor>;

export const ClaudeDetection = z.object({
  found: z.boolean(),
  /** The executable that will run (absolute). */
  path: z.string().nullable(),
  /** e.g. "2.1.197" */
  version: z.string().nullable(),
  /** setting: the path saved in settings; path: found on PATH; bundled: Flightdeck's own install; known: a usual install folder. */
  source: z.enum(['setting', 'path', 'bundled', 'known']).nullable(),
  /** One sentence for the settings page: what was found, or what is wrong and what to do. */
  message: z.string(),
  installHint: z.string(),
  checkedAt: z.number().int(),
});
export type ClaudeDetection = z.infer<typeof ClaudeDetection>;

export const CoderSettings = z.object({
  /** An explicit claude executable; null = look on PATH and in the usual places. */
  claudePath: z.string().nullable(),
  /** Seed 000's idle timeout for session turns (no output for this long ends the run). */
  idleTimeoutS: z.number().int().min(10).max(86_400),
  /** Seed 000's total limit for one session turn; 0 = none. */
  maxDurationS: z.number().int().min(0).max(86_400),
});
export type CoderSettings = z.infer<typeof CoderSettings>;

export const ConstraintName = z.enum(['contract', 'guardrails', 'codex']);

export const InjectedFile = z.object({
  name: ConstraintName,
  /** Relative to the session root, e.g. `ai/contracts/current.md`. */
  path: z.string(),
  chars: z.number().int().nonnegative(),
  truncated: z.boolean(),
});
export type InjectedFile = z.infer<typeof InjectedFile>;

export const CoderSessionConfig = z.object({
  sessionId: SessionId,
  executor: Executor,
  /** Put the root's `ai/` constraint files into the prompt of a new Claude Code conversation. */
  injectConstraints: z.boolean(),
  /** The Claude Code session resumed by the next turn (null: the next turn starts one). */
  claudeSessionId: z.string().nullable(),
  /** What the last Claude Code conversation start injected. */
  injected: z.array(InjectedFile),
  updatedAt: z.number().int(),
});
export type CoderSessionConfig = z.infer<typeof CoderSessionConfig>;

export const ConstraintsInfo = z.object({
  root: z.string(),
  files: z.array(
    z.object({
      name: ConstraintName,
      path: z.string(),
      exists: z.boolean(),
      chars: z.number().int().nonnegative(),
      /** Why a file that is there is not read (a symbolic link, not a regular file, too large); absent when it is read or missing. */
      refused: z.string().optional(),
    }),
  ),
  /** The change scope `ai/contracts/current.md` declares (empty lists: none). */
  scope: z.object({ allowed: z.array(z.string()), forbidden: z.array(z.string()) }),
});
export type ConstraintsInfo = z.infer<typeof ConstraintsInfo>;

export const coderRequests = {
  'coder.detect': request(
    z.object({}).strict(),
    ClaudeDetection,
    'Look for the claude CLI (settings path, PATH, usual folders) and ask it for its version; says how to install it when missing.',
  ),
  'coder.settings.get': request(z.object({}).strict(), CoderSettings, 'Claude Code executor settings: CLI path and timeouts.'),
  'coder.settings.update': request(
    z
      .object({
        claudePath: UserPath.nullable().optional(),
        idleTimeoutS: CoderSettings.shape.idleTimeoutS.optional(),
        maxDurationS: CoderSettings.shape.maxDurationS.optional(),
      })
      .strict(),
    CoderSettings,
    'Change some Claude Code executor settings; returns all of them.',
  ),
  'coder.sessions.get': request(z.object({ sessionId: SessionId }).strict(), CoderSessionConfig, 'Which executor runs a session, and its Claude Code state.'),
  'coder.sessions.update': request(
    z.object({ sessionId: SessionId, executor: Executor.optional(), injectConstraints: z.boolean().optional(), resetConversation: z.boolean().optional() }).strict(),
    CoderSessionConfig,
    'Choose the executor of a session, switch constraint injection, or start the next Claude Code turn in a new conversation. Refused while a turn runs.',
  ),
  'coder.constraints.inspect': request(
    z.object({ root: UserPath }).strict(),
    ConstraintsInfo,
    'Which ai/ constraint files a folder has and the scope its contract declares.',
  ),
} as const;

export const coderEvents = {
  'coder.sessions.changed': event(CoderSessionConfig, 'A session changed executor, injection or Claude Code conversation.'),
} as const;
