/**
 * The agent engine's part of the bridge: sessions, their messages and normalized event
 * stream, approvals, provider profiles, modes and cost.
 *
 * Event stream: every agent event is appended to the event log with `runId = sessionId`
 * (one replayable stream per session; each event names its `turnId`), and only published on
 * `agents.event` after the batch holding it is committed. `agents.events.read` replays the
 * same stream, so a view rebuilt after a reload or a restart sees exactly what was shown live.
 *
 * Secrets: API keys go in (write-only, `agents.profiles.save`) and never come out; profiles
 * expose `apiKeySet` and where the key comes from, nothing more.
 *
 * Stability: consumers (the session UI, the Claude Code executor) build on these shapes;
 * change them additively only.
 */
import { z } from 'zod';
import { event, request } from './define';
import { ProjectId, UserPath } from './projects';
import { SessionWorktreeRef } from './worktrees';

// ---------------------------------------------------------------------------------------
// Identifiers and small enums
// ---------------------------------------------------------------------------------------

export const SessionId = z.string().regex(/^ses-[a-z0-9]{6,40}$/, 'not a session id');
export type SessionId = z.infer<typeof SessionId>;
export const TurnId = z.string().regex(/^turn-[a-z0-9]{6,40}$/, 'not a turn id');
export const ApprovalId = z.string().regex(/^apr-[a-z0-9]{6,40}$/, 'not an approval id');
export const MessageId = z.string().regex(/^msg-[a-z0-9]{6,40}$/, 'not a message id');
/** A provider profile's name, as typed in `/model` or `--profile`. */
export const ProfileName = z.string().regex(/^[a-z0-9][a-z0-9._-]{0,39}$/, 'profile names use a-z, 0-9, ".", "_", "-" (at most 40)');

/**
 * Seed 001 §5. plan: explore and propose, no writes nor side-effect commands.
 * default: balanced, writes and risky commands go through the policy (ask). auto-edit: reads
 * and writes freely, verifies automatically. yolo: bash runs unasked too (hard floor aside).
 */
export const AgentMode = z.enum(['plan', 'default', 'auto-edit', 'yolo']);
export type AgentMode = z.infer<typeof AgentMode>;

/**
 * What a session's commands may touch, enforced by the operating system (bubblewrap on Linux,
 * Seatbelt on macOS, Claude Code's own sandbox for its Bash): `read-only`; `workspace-write`
 * (default: the session folder, not its .git, plus a private /tmp); `danger-full-access`
 * (unconfined, an explicit choice the session header shows).
 */
export const SandboxMode = z.enum(['read-only', 'workspace-write', 'danger-full-access']);
export type SandboxMode = z.infer<typeof SandboxMode>;
/** Network for sandboxed commands: all, none, or listed domains (domain filtering: Claude Code's sandbox only). */
export const SandboxNetwork = z.enum(['on', 'off', 'allow-list']);
export type SandboxNetwork = z.infer<typeof SandboxNetwork>;
/** `example.com` or `*.example.com`. */
export const NetworkDomain = z.string().trim().toLowerCase().regex(/^(\*\.)?[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*$/, 'a domain such as example.com or *.example.com');

/**
 * The engine's tools. File tools are confined to the session's root directory. `coder`
 * (seed 000) is offered in plan mode only and runs a step through Claude Code.
 */
export const ToolName = z.enum(['read', 'write', 'patch', 'bash', 'glob', 'grep', 'todo', 'coder']);
export type ToolName = z.infer<typeof ToolName>;

/**
 * Policy presets shown and set by `/permissions [preset]`.
 * read-only: reads and read-only commands run, everything else is denied.
 * strict: reads run, every write and every command asks.
 * balanced (default): reads and known read-only commands run; writes and other commands ask.
 * trusted: reads and writes run; known read-only commands run; other commands ask.
 */
export const PolicyPreset = z.enum(['read-only', 'strict', 'balanced', 'trusted']);
export type PolicyPreset = z.infer<typeof PolicyPreset>;

export const PolicyDecision = z.enum(['allow', 'ask', 'deny']);
export type PolicyDecision = z.infer<typeof PolicyDecision>;

/** low: reads. medium: edits inside the root, ordinary commands. high: network, installs, git history. critical: hard-floor class. */
export const RiskLevel = z.enum(['low', 'medium', 'high', 'critical']);
export type RiskLevel = z.infer<typeof RiskLevel>;

/**
 * idle: ready for input. running: a turn is in progress. awaiting_approval: a turn waits on
 * the user. interrupted: the app stopped during a turn; the transcript is intact and input
 * (or answering a still-pending approval) continues it.
 */
export const SessionStatus = z.enum(['idle', 'running', 'awaiting_approval', 'interrupted']);
export type SessionStatus = z.infer<typeof SessionStatus>;

/** How a turn ended. step_limit is seed 001 §3.8's "step limit reached". */
export const TurnOutcome = z.enum(['completed', 'step_limit', 'cancelled', 'failed', 'interrupted']);
export type TurnOutcome = z.infer<typeof TurnOutcome>;

export const TodoItem = z.object({
  id: z.string().max(40),
  text: z.string().max(2_000),
  status: z.enum(['pending', 'in_progress', 'done']),
});
export type TodoItem = z.infer<typeof TodoItem>;

// ---------------------------------------------------------------------------------------
// Cost
// ---------------------------------------------------------------------------------------

export const TokenUsage = z.object({
  inputTokens: z.number().int().nonnegative(),
  outputTokens: z.number().int().nonnegative(),
  cacheReadTokens: z.number().int().nonnegative(),
  cacheWriteTokens: z.number().int().nonnegative(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

/** Totals over model calls. USD at the profile prices in force when each call was made. */
export const CostTotals = TokenUsage.extend({
  usd: z.number().nonnegative(),
  calls: z.number().int().nonnegative(),
});
export type CostTotals = z.infer<typeof CostTotals>;

export const CostSummary = z.object({
  sessionId: SessionId,
  total: CostTotals,
  /** One row per (profile, model) used in the session. */
  byModel: z.array(CostTotals.extend({ profile: z.string(), model: z.string() })),
  /** Calls by purpose: the turn's own steps, compaction summaries, /review. */
  byPurpose: z.array(CostTotals.extend({ purpose: z.enum(['turn', 'compaction', 'review']) })),
});
export type CostSummary = z.infer<typeof CostSummary>;

// ---------------------------------------------------------------------------------------
// Sessions and messages
// ---------------------------------------------------------------------------------------

export const QueuedInputId = z.string().regex(/^q-[a-z0-9]{6,40}$/, 'not a queued input id');
/** An input waiting in a session's queue, as the renderer shows it (images by count only: they stay in main). */
export const QueuedInput = z.object({ id: QueuedInputId, text: z.string(), images: z.number().int().nonnegative(), queuedAt: z.number().int() });
export type QueuedInput = z.infer<typeof QueuedInput>;

export const Session = z.object({
  id: SessionId,
  title: z.string(),
  /** Every file tool and command of the session is confined to / runs in this folder. */
  root: z.string(),
  projectId: ProjectId.nullable(),
  mode: AgentMode,
  profile: ProfileName,
  /** Model in use; `/model` changes it at once (and persists it to .coder/config.json). */
  model: z.string(),
  policyPreset: PolicyPreset,
  /** How commands are confined (plan mode runs them read-only whatever this says). */
  sandbox: SandboxMode,
  /** Seed 001 §4.1: tools switched off for this session are refused before any policy. */
  disabledTools: z.array(ToolName),
  status: SessionStatus,
  todos: z.array(TodoItem),
  turnCount: z.number().int().nonnegative(),
  lastTurn: z
    .object({ turnId: TurnId, outcome: TurnOutcome, message: z.string().nullable(), endedAt: z.number().int() })
    .nullable(),
  pendingApprovals: z.number().int().nonnegative(),
  /** Archived sessions are hidden from the default lists and shown under "Archived"; nothing else changes. */
  archived: z.boolean().optional(),
  /** Who runs the session's chat turns (absent: the built-in loop). Set with `coder.sessions.update`. */
  executor: z.enum(['builtin', 'claude-code']).optional(),
  /** The worktree the session works in (started "in a new worktree"); null or absent: the folder itself. */
  worktree: SessionWorktreeRef.nullable().optional(),
  cost: CostTotals,
  /**
   * Set on sessions the app made for its own work (init, planning, feature phases, autopilot,
   * mailbox tasks): the Planner reads, the Coder works under a guard. Absent: the user's own session.
   */
  role: z.enum(['planner', 'coder']).optional(),
  /** Inputs waiting for the running turn to end, oldest first; the main process sends them one by one. */
  queue: z.array(QueuedInput).optional(),
  /** Why the waiting inputs are held instead of sent when the turn ends (an interruption); absent: they go. */
  queueHeld: z.string().optional(),
  createdAt: z.number().int(),
  updatedAt: z.number().int(),
});
export type Session = z.infer<typeof Session>;

/** Image types the Messages API takes as base64 blocks. */
export const ImageMediaType = z.enum(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);
export type ImageMediaType = z.infer<typeof ImageMediaType>;
/** The API's own limit for one image; a larger one is refused here instead of by the provider. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
/** All images of one input together: one request frame must carry them (see MAX_CLIENT_FRAME_BYTES). */
export const MAX_INPUT_IMAGE_BYTES = 5 * 1024 * 1024;
export const MAX_INPUT_IMAGES = 8;
/** Decoded size of a base64 string (padding excluded). */
export const base64Bytes = (b64: string): number => Math.floor((b64.length * 3) / 4) - (b64.endsWith('==') ? 2 : b64.endsWith('=') ? 1 : 0);

/** An image pasted or dropped into the composer, sent with the input as an image block. */
export const ImageAttachment = z
  .object({
    mediaType: ImageMediaType,
    /** Base64 without a data: prefix. */
    data: z
      .string()
      .min(4)
      .max(Math.ceil(MAX_IMAGE_BYTES / 3) * 4)
      .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'the image data must be base64'),
  })
  .strict();
export type ImageAttachment = z.infer<typeof ImageAttachment>;

export const MessageBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('thinking'), thinking: z.string() }),
  z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.record(z.string(), z.unknown()) }),
  z.object({ type: z.literal('tool_result'), toolUseId: z.string(), content: z.string(), isError: z.boolean() }),
]);
export type MessageBlock = z.infer<typeof MessageBlock>;

/**
 * One message of the conversation. `tool` messages hold tool results (sent to the model as
 * user turns). kind: chat (typed or answered by the model), command (a `!` command and its
 * output, kept so the model sees it), summary (what compaction left of older turns), verify
 * (auto-verify output and repair prompt), note (engine reminders such as the todo plan).
 */
export const Message = z.object({
  id: MessageId,
  sessionId: SessionId,
  turnId: TurnId.nullable(),
  role: z.enum(['user', 'assistant', 'tool']),
  kind: z.enum(['chat', 'command', 'summary', 'verify', 'note']),
  blocks: z.array(MessageBlock),
  createdAt: z.number().int(),
});
export type Message = z.infer<typeof Message>;

// ---------------------------------------------------------------------------------------
// Approvals
// ---------------------------------------------------------------------------------------

export const ApprovalDecision = z.enum(['approve_once', 'approve_session', 'deny']);
export type ApprovalDecision = z.infer<typeof ApprovalDecision>;

export const Approval = z.object({
  id: ApprovalId,
  sessionId: SessionId,
  turnId: TurnId.nullable(),
  toolUseId: z.string(),
  tool: z.string(),
  input: z.record(z.string(), z.unknown()),
  /** One line for the dialog title: the command, or "write src/a.ts". */
  summary: z.string(),
  risk: RiskLevel,
  /** Why the policy asks (e.g. "balanced preset: commands that are not read-only ask"). */
  reason: z.string(),
  /** For write/patch: the unified diff the call would apply, computed when asked. */
  diff: z.string().nullable(),
  /** What "approve for this session" remembers, e.g. `npm test *` or `write`. */
  sessionRule: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'cancelled']),
  decision: ApprovalDecision.nullable(),
  /** The user's reason for a denial, passed back to the model. */
  decisionReason: z.string().nullable(),
  /** Who asked: the built-in loop, or another executor routed through the same gate. */
  source: z.string(),
  createdAt: z.number().int(),
  resolvedAt: z.number().int().nullable(),
});
export type Approval = z.infer<typeof Approval>;

// ---------------------------------------------------------------------------------------
// Provider profiles
// ---------------------------------------------------------------------------------------

/** USD per million tokens. */
export const Prices = z.object({
  inputPerMTok: z.number().nonnegative().max(10_000),
  outputPerMTok: z.number().nonnegative().max(10_000),
  cacheReadPerMTok: z.number().nonnegative().max(10_000),
  cacheWritePerMTok: z.number().nonnegative().max(10_000),
});
export type Prices = z.infer<typeof Prices>;

export const ProviderPresetId = z.enum(['anthropic', 'glm', 'minimax', 'deepseek', 'custom']);
export type ProviderPresetId = z.infer<typeof ProviderPresetId>;

const ProfileFields = {
  name: ProfileName,
  label: z.string().trim().min(1).max(80),
  preset: ProviderPresetId,
  baseUrl: z.string().url().max(2048).refine((u) => /^https?:\/\//.test(u), 'the base URL must be http(s)'),
  model: z.string().trim().min(1).max(200),
  maxTokens: z.number().int().min(1).max(1_000_000),
  contextWindow: z.number().int().min(1_000).max(10_000_000),
  prices: Prices,
};

export const ProviderProfile = z.object({
  ...ProfileFields,
  /** Whether a key is available; the key itself never crosses the bridge. */
  apiKeySet: z.boolean(),
  /**
   * stored: saved by the user (safeStorage or 0600 file); env: ANTHROPIC_API_KEY; none;
   * unreadable: the key store cannot be read (damaged file, keychain unavailable), see apiKeyProblem.
   */
  apiKeySource: z.enum(['stored', 'env', 'none', 'unreadable']),
  /** Why the stored key cannot be read, naming the file; only with apiKeySource `unreadable`. */
  apiKeyProblem: z.string().optional(),
  isDefault: z.boolean(),
  /** Built-in presets can be edited (key, model, prices) but not removed. */
  builtIn: z.boolean(),
});
export type ProviderProfile = z.infer<typeof ProviderProfile>;

export const ProviderProfileInput = z
  .object({
    ...ProfileFields,
    /** Write-only. Omit to keep the stored key. */
    apiKey: z.string().trim().min(1).max(1_000).refine((k) => !/\s/.test(k), 'the API key contains whitespace').optional(),
    clearApiKey: z.boolean().optional(),
    makeDefault: z.boolean().optional(),
  })
  .strict();
export type ProviderProfileInput = z.infer<typeof ProviderProfileInput>;

// ---------------------------------------------------------------------------------------
// Engine settings (per app)
// ---------------------------------------------------------------------------------------

export const AgentSettings = z.object({
  /** Catastrophic commands (rm -rf /, mkfs, force push to the base branch…) are denied in every mode while on. */
  hardFloor: z.boolean(),
  /** Seed 001 §3.8: model calls per turn before "step limit reached". */
  maxSteps: z.number().int().min(1).max(500),
  /** Compaction runs before a model call when the estimated context exceeds this share of the window. */
  compactAtShare: z.number().min(0.1).max(0.98),
  /** Retries of a failed model call (429, 529, 5xx, resets, stalls). */
  maxRetries: z.number().int().min(0).max(20),
  /** A stream silent this long is aborted and retried. */
  idleTimeoutMs: z.number().int().min(1_000).max(30 * 60_000),
  /** A bash command running this long is killed. */
  bashTimeoutMs: z.number().int().min(1_000).max(24 * 3_600_000),
  defaultMode: AgentMode,
  defaultPolicyPreset: PolicyPreset,
  /** Network for sandboxed commands (every executor); `allow-list` filters domains in Claude Code's sandbox, other commands get none. */
  sandboxNetwork: SandboxNetwork,
  sandboxAllowedDomains: z.array(NetworkDomain).max(200),
});
export type AgentSettings = z.infer<typeof AgentSettings>;

/** Where a setting of the agent loop in effect came from: a file in the project folder, or the default. */
export const AgentConfigSource = z.enum(['.coder/config.json', '.flightdeck/config.yml', 'default']);
export type AgentConfigSource = z.infer<typeof AgentConfigSource>;

/**
 * The agent loop's settings in effect for a session's folder: each key (as the files spell
 * it), its value (null = not set), and the file it came from. `.coder/config.json` wins over
 * `.flightdeck/config.yml` for the keys both set.
 */
export const EffectiveAgentConfig = z.object({
  /** The folder both files are read from (the project, else the session root). */
  dir: z.string(),
  entries: z.array(
    z.object({
      key: z.string(),
      value: z.union([z.string(), z.number(), z.boolean()]).nullable(),
      source: AgentConfigSource,
      /** The file's path; null for a default. */
      path: z.string().nullable(),
    }),
  ),
  /** A file that exists but could not be used (not valid JSON/YAML, a key of the wrong type), naming it. */
  problem: z.string().nullable(),
});
export type EffectiveAgentConfig = z.infer<typeof EffectiveAgentConfig>;

// ---------------------------------------------------------------------------------------
// The normalized agent event union
// ---------------------------------------------------------------------------------------

const ToolUseRef = { toolUseId: z.string(), tool: z.string() };

/**
 * A slash command's output as structure. diff: `git status --short` lines and the unified
 * diff (`/diff`). table: an intro line, rows under named columns, notes after (`/help`,
 * `/permissions`, `/model`); `current` marks the row in effect (the preset, the profile).
 */
export const CommandView = z.discriminatedUnion('type', [
  z.object({ type: z.literal('diff'), status: z.string(), diff: z.string() }),
  z.object({
    type: z.literal('table'),
    intro: z.string().nullable(),
    columns: z.array(z.string()).min(1).max(8),
    rows: z.array(z.object({ cells: z.array(z.string()).max(8), current: z.boolean().optional() })),
    notes: z.array(z.string()),
  }),
]);
export type CommandView = z.infer<typeof CommandView>;

/**
 * What happens in a session, as the UI draws it and the log replays it. Every variant is
 * persisted before it is published. Deltas carry the step (model call index within the
 * turn) and the content block index so a view can assemble blocks as they stream.
 */
export const AgentEventData = z.discriminatedUnion('type', [
  /** A RunInput began. kind follows seed 001 §2: chat, `!` bang, `/` slash. */
  /** `resumed`: the turn continues after an approval was answered (no new user input; `input` is empty). */
  z.object({
    type: z.literal('turn.started'),
    input: z.string(),
    kind: z.enum(['chat', 'bang', 'slash']),
    mode: AgentMode,
    model: z.string(),
    resumed: z.boolean().optional(),
    /** Images attached to the input (their bytes are in the conversation, not in the event). */
    images: z.array(z.object({ mediaType: ImageMediaType, bytes: z.number().int().nonnegative() })).optional(),
  }),
  z.object({ type: z.literal('turn.ended'), outcome: TurnOutcome, message: z.string().nullable(), steps: z.number().int().nonnegative() }),
  /** A message was appended to the conversation (user, assistant when complete, tool result). */
  z.object({ type: z.literal('message'), message: Message }),
  /** Seed 001 §9: the input was judged complex; the todo list was initialized. */
  z.object({ type: z.literal('complexity'), complex: z.boolean(), rule: z.enum(['enumeration', 'length', 'keywords']).nullable() }),
  z.object({ type: z.literal('step.started'), step: z.number().int().positive(), model: z.string() }),
  z.object({ type: z.literal('text.delta'), step: z.number().int(), index: z.number().int(), text: z.string() }),
  z.object({ type: z.literal('thinking.delta'), step: z.number().int(), index: z.number().int(), text: z.string() }),
  /** A tool_use block opened in the stream; its JSON input follows in `tool.input.delta`. */
  z.object({ type: z.literal('tool.started'), step: z.number().int(), index: z.number().int(), ...ToolUseRef }),
  z.object({ type: z.literal('tool.input.delta'), step: z.number().int(), index: z.number().int(), toolUseId: z.string(), partialJson: z.string() }),
  /** A model call finished: what it cost and why it stopped. */
  z.object({
    type: z.literal('usage'),
    step: z.number().int(),
    purpose: z.enum(['turn', 'compaction', 'review']),
    profile: z.string(),
    model: z.string(),
    usage: TokenUsage,
    usd: z.number().nonnegative(),
    stopReason: z.string().nullable(),
  }),
  /**
   * A model call failed and will be retried after `delayMs`. Blocks of `step` streamed so far
   * are discarded: the retried call streams the step again from its start.
   */
  z.object({
    type: z.literal('retry'),
    step: z.number().int().nonnegative(),
    attempt: z.number().int().positive(),
    maxRetries: z.number().int().nonnegative(),
    delayMs: z.number().int().nonnegative(),
    reason: z.string(),
    status: z.number().int().nullable(),
  }),
  /** Seed 001 §4.1–4.2: what the tool switch, mode, hard floor and policy decided for a call. */
  z.object({
    type: z.literal('tool.decision'),
    ...ToolUseRef,
    decision: PolicyDecision,
    source: z.enum(['disabled', 'hard_floor', 'role_guard', 'mode', 'policy', 'session_rule', 'yolo', 'headless']),
    reason: z.string(),
    risk: RiskLevel,
  }),
  z.object({ type: z.literal('approval.requested'), approval: Approval }),
  z.object({ type: z.literal('approval.resolved'), approval: Approval }),
  /** Live output of a running command (bash), in arrival order. */
  /**
   * Live output of a running command (bash), in arrival order. When the command runs in a
   * terminal the user can open, one event (possibly with an empty chunk) carries its id.
   */
  z.object({ type: z.literal('tool.output'), toolUseId: z.string(), chunk: z.string(), terminalId: z.string().max(200).optional() }),
  z.object({
    type: z.literal('tool.result'),
    ...ToolUseRef,
    isError: z.boolean(),
    /** What the model receives, capped for the event (the message holds the same text). */
    content: z.string(),
    exitCode: z.number().int().nullable(),
    /** A command's stdout and stderr apart (bash, when captured apart), each capped like content. */
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    durationMs: z.number().int().nonnegative(),
  }),
  z.object({ type: z.literal('todo.updated'), todos: z.array(TodoItem) }),
  z.object({
    type: z.literal('compaction'),
    trigger: z.enum(['auto', 'manual']),
    beforeTokens: z.number().int().nonnegative(),
    afterTokens: z.number().int().nonnegative(),
    summarizedMessages: z.number().int().nonnegative(),
  }),
  /** Seed 001 §8. */
  z.object({ type: z.literal('verify.started'), command: z.string(), attempt: z.number().int().positive(), maxAttempts: z.number().int().nonnegative(), /** How long it may run before it is stopped. */ timeoutMs: z.number().int().positive().optional() }),
  z.object({
    type: z.literal('verify.result'),
    command: z.string(),
    attempt: z.number().int().positive(),
    passed: z.boolean(),
    exitCode: z.number().int().nullable(),
    output: z.string(),
  }),
  /**
   * "auto-verify not run", with why (no whitelisted command, not whitelisted, attempts exhausted…).
   * not_approved: files deciding what the command runs changed, and the policy or the user refused the run.
   */
  z.object({
    type: z.literal('verify.skipped'),
    reason: z.enum(['not_requested', 'disabled', 'no_edits', 'docs_only', 'bash_unavailable', 'no_command', 'not_whitelisted', 'attempts_exhausted', 'mode', 'not_approved']),
    message: z.string(),
  }),
  /**
   * Output of a `/` command (or the structured result of a `!` command). `text` is the plain
   * form (CLI, logs, the model); `view`, when present, is the same content as structure for
   * the UI to draw as a diff or a table instead of guessing at the text.
   */
  z.object({
    type: z.literal('command.result'),
    kind: z.enum(['slash', 'bang']),
    name: z.string(),
    ok: z.boolean(),
    text: z.string(),
    exitCode: z.number().int().nullable(),
    view: CommandView.optional(),
    /** `!`: the structured result (seed 001 §6) — the command line, and stdout/stderr apart when captured. */
    command: z.string().optional(),
    stdout: z.string().optional(),
    stderr: z.string().optional(),
    /** Follow-up inputs the UI offers as buttons (e.g. `/model --gitignore`); the text names them too. */
    actions: z.array(z.object({ label: z.string().max(80), input: z.string().max(2_000) })).max(4).optional(),
  }),
  z.object({ type: z.literal('mode.changed'), mode: AgentMode }),
  /** `/model`: in effect at once; `persistedTo` is the config file written, or null with `persistError`. */
  z.object({
    type: z.literal('model.changed'),
    profile: z.string(),
    model: z.string(),
    persistedTo: z.string().nullable(),
    persistError: z.string().nullable(),
  }),
  z.object({ type: z.literal('permissions.changed'), preset: PolicyPreset }),
  /** `/rewind N`: the chat turns after N are set aside (the transcript folds them); toTurn null: the last rewind was taken back. */
  z.object({ type: z.literal('rewound'), toTurn: z.number().int().min(0).nullable() }),
  /** `/new` or `/resume` made another session current; the UI follows it. */
  z.object({ type: z.literal('session.switched'), toSessionId: SessionId, reason: z.enum(['new', 'resume']) }),
  z.object({ type: z.literal('status'), status: SessionStatus }),
  /** A failure the user should read; `actionable` messages say what to change (key, URL…). */
  z.object({ type: z.literal('error'), code: z.string(), message: z.string(), retryable: z.boolean() }),
  z.object({ type: z.literal('notice'), level: z.enum(['info', 'warning']), text: z.string() }),
]);
export type AgentEventData = z.infer<typeof AgentEventData>;
export type AgentEventType = AgentEventData['type'];

export const AgentEvent = z.object({
  sessionId: SessionId,
  /** Position in the session's stream (1-based, gapless); resume a replay from lastSeq + 1. */
  seq: z.number().int().positive(),
  ts: z.number().int(),
  turnId: TurnId.nullable(),
  data: AgentEventData,
});
export type AgentEvent = z.infer<typeof AgentEvent>;

// ---------------------------------------------------------------------------------------
// Channels and topics
// ---------------------------------------------------------------------------------------

const BySession = z.object({ sessionId: SessionId }).strict();

export const agentRequests = {
  'agents.sessions.list': request(
    z.object({ projectId: ProjectId.optional() }).strict(),
    z.array(Session),
    'Agent sessions, most recently updated first (optionally of one project).',
  ),
  'agents.sessions.get': request(BySession, Session, 'One session with its status, todos and cost totals.'),
  'agents.sessions.create': request(
    z
      .object({
        projectId: ProjectId.optional(),
        root: UserPath.optional(),
        title: z.string().trim().min(1).max(200).optional(),
        mode: AgentMode.optional(),
        profile: ProfileName.optional(),
        sandbox: SandboxMode.optional(),
      })
      .strict()
      .refine((v) => (v.projectId === undefined) !== (v.root === undefined), 'give either a project or a root folder'),
    Session,
    'Start a session in a project (or a folder); it is idle until input arrives.',
  ),
  'agents.sessions.update': request(
    z
      .object({
        sessionId: SessionId,
        title: z.string().trim().min(1).max(200).optional(),
        mode: AgentMode.optional(),
        profile: ProfileName.optional(),
        model: z.string().trim().min(1).max(200).optional(),
        policyPreset: PolicyPreset.optional(),
        disabledTools: z.array(ToolName).max(8).optional(),
        sandbox: SandboxMode.optional(),
        archived: z.boolean().optional(),
      })
      .strict(),
    Session,
    'Change a session: title, mode, profile/model, policy preset, disabled tools, sandbox, archived. Takes effect at the next tool call or model call.',
  ),
  'agents.sessions.remove': request(
    BySession,
    z.object({ removed: z.boolean() }),
    'Delete a session, its messages, approvals and events (refused while a turn runs). Files are untouched.',
  ),
  'agents.messages.list': request(BySession, z.array(Message), 'The conversation of a session, oldest first (summaries replace compacted turns).'),
  'agents.files.suggest': request(
    z.object({ sessionId: SessionId, query: z.string().max(500), limit: z.number().int().min(1).max(50).optional() }).strict(),
    z.object({ paths: z.array(z.string()), truncated: z.boolean() }),
    'Files of the session root for an @ mention, best fuzzy matches first (tracked and untracked-not-ignored; paths relative to the root).',
  ),
  'agents.events.read': request(
    z
      .object({
        sessionId: SessionId,
        fromSeq: z.number().int().positive().default(1),
        limit: z.number().int().min(1).max(10_000).default(2_000),
        /** Instead of fromSeq: from the start of the lastTurns-th last turn, when much comes before it (startSeq says where the read began). */
        lastTurns: z.number().int().min(1).max(1_000).optional(),
      })
      .strict(),
    z.object({
      events: z.array(AgentEvent),
      lastSeq: z.number().int().nonnegative(),
      startSeq: z.number().int().positive(),
      /** One past the last stored row this read covered; the next read starts there. */
      nextSeq: z.number().int().positive(),
      /** The read stopped at `limit` rows: there may be more. Events left out (not agent events, or an older shape) make `events` shorter than the rows read. */
      more: z.boolean(),
    }),
    'Replay a session event stream from fromSeq (inclusive); subscribe to agents.event first, then read, and drop duplicates by seq. With lastTurns, only the newest turns when the session is long (startSeq > 1: earlier events were left out), for showing a long conversation before all of it is read.',
  ),
  'agents.images.get': request(
    z.object({ sessionId: SessionId, turnId: TurnId, index: z.number().int().min(0).max(MAX_INPUT_IMAGES - 1) }).strict(),
    ImageAttachment,
    'An image attached to the input that started a turn (index in the order attached), from the stored conversation: what the transcript shows as its thumbnail, fetched when the message is shown (turn.started carries only sizes). not_found when the turn has no such image.',
  ),
  'agents.input': request(
    z
      .object({ sessionId: SessionId, input: z.string().min(1).max(200_000), images: z.array(ImageAttachment).max(MAX_INPUT_IMAGES).optional() })
      .strict()
      .refine((x) => (x.images ?? []).reduce((n, i) => n + base64Bytes(i.data), 0) <= MAX_INPUT_IMAGE_BYTES, {
        message: `the attached images together must be at most ${MAX_INPUT_IMAGE_BYTES / 1024 / 1024} MB`,
        path: ['images'],
      }),
    z.object({ sessionId: SessionId, turnId: TurnId }),
    'Run one input (chat, "!cmd" or "/command") in a session. Returns at once; progress arrives on agents.event. Refused while a turn runs.',
  ),
  'agents.submit': request(
    z
      .object({
        sessionId: SessionId,
        input: z.string().min(1).max(200_000),
        images: z.array(ImageAttachment).max(MAX_INPUT_IMAGES).optional(),
        /** The page's id for this input: sent again with the same id (its answer was lost with the connection), it is answered as the first time, not run twice. */
        inputId: z.string().regex(/^[A-Za-z0-9_-]{8,64}$/).optional(),
      })
      .strict()
      .refine((x) => (x.images ?? []).reduce((n, i) => n + base64Bytes(i.data), 0) <= MAX_INPUT_IMAGE_BYTES, {
        message: `the attached images together must be at most ${MAX_INPUT_IMAGE_BYTES / 1024 / 1024} MB`,
        path: ['images'],
      }),
    z.discriminatedUnion('outcome', [
      z.object({ outcome: z.literal('started'), sessionId: SessionId, turnId: TurnId }),
      z.object({ outcome: z.literal('queued'), sessionId: SessionId, queuedId: QueuedInputId, position: z.number().int().positive() }),
    ]),
    'What the composer sends: starts a turn when the session can take one, else queues the input (sent when the running turn ends), decided atomically here. Refused (the input is not kept) only when it can be neither.',
  ),
  'agents.queue.remove': request(
    z.object({ sessionId: SessionId, queuedId: QueuedInputId }).strict(),
    z.object({ removed: z.boolean() }),
    'Take a waiting input out of the queue (false when it was already sent or removed).',
  ),
  'agents.queue.resume': request(
    BySession,
    z.object({ started: z.boolean() }),
    'Release held queued inputs (after an interruption): the first goes now if no turn runs.',
  ),
  'agents.cancel': request(
    BySession,
    z.object({ cancelled: z.boolean() }),
    'Cancel the running turn at once: aborts the model request or kills the running command.',
  ),
  'agents.approvals.list': request(
    z.object({ sessionId: SessionId.optional() }).strict(),
    z.array(Approval),
    'Pending approvals (of one session, or of all), oldest first. They survive reloads and restarts.',
  ),
  'agents.approvals.answer': request(
    z
      .object({ approvalId: ApprovalId, decision: ApprovalDecision, reason: z.string().trim().max(2_000).optional() })
      .strict(),
    Approval,
    'Approve once, approve for this session (by command family) or deny with a reason the model reads.',
  ),
  'agents.rules.list': request(BySession, z.array(z.string()), 'The rules "approve for this session" remembered for a session (command families, or exactly: a line), oldest first.'),
  'agents.rules.remove': request(
    z.object({ sessionId: SessionId, rule: z.string().min(1).max(100_000) }).strict(),
    z.object({ removed: z.boolean() }),
    'Forget one remembered rule: the calls it covered ask again.',
  ),
  'agents.cost.get': request(BySession, CostSummary, 'What a session cost: totals, per model, per purpose.'),
  'agents.profiles.list': request(z.object({}).strict(), z.array(ProviderProfile), 'Provider profiles (built-in presets and user ones), keys never included.'),
  'agents.profiles.save': request(ProviderProfileInput, ProviderProfile, 'Add or change a provider profile; the API key is write-only.'),
  'agents.profiles.remove': request(
    z.object({ name: ProfileName }).strict(),
    z.object({ removed: z.boolean() }),
    'Remove a user profile and its stored key (built-in presets cannot be removed).',
  ),
  'agents.settings.get': request(z.object({}).strict(), AgentSettings, 'Engine settings: hard floor, step limit, compaction, retries, timeouts, defaults.'),
  'agents.settings.update': request(AgentSettings.partial().strict(), AgentSettings, 'Change some engine settings; returns all of them.'),
  'agents.config.get': request(BySession, EffectiveAgentConfig, "The agent loop's settings in effect for a session's folder, each with the file it came from (.coder/config.json over .flightdeck/config.yml)."),
} as const;

export const agentEvents = {
  'agents.event': event(AgentEvent, 'A persisted event of one session (subscribe with the session id as key).', { keyed: true }),
  'agents.sessions.changed': event(
    z.object({ session: Session.nullable(), removedId: SessionId.nullable() }),
    'A session was created, changed status/mode/model/cost, or was removed (session null, removedId set).',
  ),
  'agents.approvals.changed': event(
    z.object({ approval: Approval }),
    'An approval was requested or resolved in any session (for badges and the global approval dialog).',
  ),
  'agents.profiles.changed': event(z.object({ profiles: z.array(ProviderProfile) }), 'Provider profiles changed.'),
  'agents.settings.changed': event(AgentSettings, 'Engine settings changed.'),
} as const;
