import { z } from 'zod';
import { event, request } from './define';

/**
 * The autopilot: a goal and an acceptance command, worked towards in a loop in a worktree
 * (plan → execute → verify → decide) until the command passes with an empty backlog or a stop
 * condition is reached. The run state's schema lives here so main (which persists it as
 * `.flightdeck/autopilot/state.json`) and the renderer read one definition.
 */

export const AutopilotPhase = z.enum([
  /** Create a minimal PLAN.md when the repository has none. */
  'S0_BOOTSTRAP',
  /** Collect facts: git status, diff stat, the plan, this state, the detected test setup. */
  'S1_SNAPSHOT',
  /** The agent updates PLAN.md only; any other change is reverted and the update retried. */
  'S2_PLAN_UPDATE',
  /** The agent carries out the one Next step; a PLAN.md change sends the run back to S2. */
  'S3_EXECUTE_STEP',
  /** The acceptance command runs in the worktree; its exit code decides. */
  'S4_VERIFY',
  /** Pass: the step goes to Done. Fail: fix or re-plan, or Blocked after too many attempts. */
  'S5_DECIDE',
  /** The run ended; `exitReason` says why. */
  'STOPPED',
]);
export type AutopilotPhase = z.infer<typeof AutopilotPhase>;

export const AutopilotExitReason = z.enum([
  /** Acceptance green and the backlog empty. */
  'done',
  /** `maxIters` iterations ran without reaching done. */
  'max_iters',
  /** A step failed verification more than `maxFixAttemptsPerStep` times and waits for a human. */
  'blocked',
  /** The plan update kept producing a plan that does not validate, or touching other files. */
  'plan_invalid',
  'cancelled',
  'error',
]);
export type AutopilotExitReason = z.infer<typeof AutopilotExitReason>;

export const AutopilotVerification = z.object({
  passed: z.boolean(),
  exitCode: z.number().int().nullable(),
  /** The tail of the command's output, what the fix-or-replan prompt is given. */
  summary: z.string(),
  stepId: z.string().nullable(),
  iteration: z.number().int().min(1),
});
export type AutopilotVerification = z.infer<typeof AutopilotVerification>;

export const AutopilotLimits = z.object({
  maxIters: z.number().int().min(1),
  maxFixAttemptsPerStep: z.number().int().min(0),
  /**
   * Plan updates in a row that may fail (invalid plan, other files touched) before the run stops:
   * each is repaired through the plan-update prompt, but a model that cannot produce a valid
   * plan would otherwise loop forever without ever counting an iteration.
   */
  maxPlanRepairs: z.number().int().min(0),
});
export type AutopilotLimits = z.infer<typeof AutopilotLimits>;

export const AutopilotRunState = z.object({
  version: z.literal(1),
  phase: AutopilotPhase,
  /** 0 before the first snapshot; counts iterations started (S1 entered). */
  iteration: z.number().int().min(0),
  /** The step in Next for this iteration, null when Next is empty. */
  currentStepId: z.string().nullable(),
  /** Failed verifications per step id (the acceptance check with no step counts under `(none)`). */
  failures: z.record(z.string(), z.number().int().min(0)),
  /** Plan updates that failed in a row (reset by a good one). */
  planRepairs: z.number().int().min(0),
  /** Execute prompts of this iteration that edited PLAN.md and sent the run back to planning. */
  replans: z.number().int().min(0).default(0),
  lastVerification: AutopilotVerification.nullable(),
  exitReason: AutopilotExitReason.nullable(),
  /** Set when a step is blocked: which one and why. */
  blockedStepId: z.string().nullable(),
  /** Human-readable detail for the exit (the error, what was invalid). */
  exitDetail: z.string().nullable(),
  limits: AutopilotLimits,
});
export type AutopilotRunState = z.infer<typeof AutopilotRunState>;

export const AutopilotExecutor = z.enum(['builtin', 'claude-code']);
export type AutopilotExecutor = z.infer<typeof AutopilotExecutor>;

export const AutopilotRunOptions = z.object({
  seedFiles: z.array(z.string()),
  executor: AutopilotExecutor,
  /** Model provider profile; null = the default profile. */
  profile: z.string().nullable(),
  /** Commit the worktree after each completed step. */
  commit: z.boolean(),
  /** Every this many iterations the key state is written into Notes and the agent session restarted (0 = never). */
  compactEvery: z.number().int().min(0),
  acceptanceTimeoutMs: z.number().int().min(1_000),
  /**
   * The user chose, for this run, to run the acceptance command on the host with their own
   * permissions; otherwise it runs in the agent's sandbox (its container when placed in one).
   * Runs stored before the option existed read as false.
   */
  acceptanceUnsandboxed: z.boolean(),
  /** The run's JSONL log, relative to the worktree. */
  logFile: z.string(),
});
export type AutopilotRunOptions = z.infer<typeof AutopilotRunOptions>;

export const AutopilotRunStatus = z.enum(['running', 'paused', 'stopped']);
export type AutopilotRunStatus = z.infer<typeof AutopilotRunStatus>;

export const AutopilotRun = z.object({
  id: z.string(),
  projectId: z.string().nullable(),
  repo: z.string(),
  worktree: z.string(),
  branch: z.string(),
  goal: z.string(),
  testCmd: z.string(),
  options: AutopilotRunOptions,
  status: AutopilotRunStatus,
  /** Why the run is paused (interrupted by a restart, an agent error), or null. */
  message: z.string().nullable(),
  state: AutopilotRunState,
  sessionId: z.string().nullable(),
  costUsd: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
});
export type AutopilotRun = z.infer<typeof AutopilotRun>;

export const AutopilotIteration = z.object({
  iteration: z.number().int(),
  stepId: z.string().nullable(),
  stepText: z.string().nullable(),
  filesChanged: z.array(z.string()),
  verification: z.object({ passed: z.boolean(), exitCode: z.number().int().nullable(), summary: z.string() }).nullable(),
  /** What happened beyond the prompts: plan repaired, changes reverted, re-plan, step completed, blocked. */
  notes: z.array(z.string()),
  costUsd: z.number(),
  durationMs: z.number(),
  startedAt: z.number(),
  endedAt: z.number().nullable(),
});
export type AutopilotIteration = z.infer<typeof AutopilotIteration>;

export const AutopilotStep = z.object({ id: z.string(), text: z.string(), line: z.number().int() });
export type AutopilotStep = z.infer<typeof AutopilotStep>;

export const AutopilotPlanView = z.object({
  text: z.string(),
  problems: z.array(z.object({ line: z.number().int(), message: z.string() })),
  next: AutopilotStep.nullable(),
  backlog: z.array(AutopilotStep),
  done: z.array(AutopilotStep),
  blocked: z.array(AutopilotStep),
});
export type AutopilotPlanView = z.infer<typeof AutopilotPlanView>;

const RunId = z.string().min(1).max(100);

export const AutopilotStartInput = z
  .object({
    /** The repository: a folder path, or a project's id. */
    repo: z.string().min(1).max(4096).optional(),
    projectId: z.string().min(1).max(100).optional(),
    goal: z.string().trim().min(1, 'The goal is empty').max(2_000),
    testCmd: z.string().trim().min(1, 'The acceptance command is empty').max(2_000),
    seedFiles: z.array(z.string().min(1).max(4096)).max(50).default([]),
    maxIters: z.number().int().min(1).max(1_000).default(20),
    maxFixAttempts: z.number().int().min(0).max(100).default(3),
    executor: AutopilotExecutor.default('builtin'),
    profile: z.string().min(1).max(100).nullable().default(null),
    commit: z.boolean().default(false),
    compactEvery: z.number().int().min(0).max(1_000).default(5),
    acceptanceTimeoutS: z.number().int().min(1).max(24 * 3600).default(600),
    /** Run the acceptance command unsandboxed, as the user (the agent may have rewritten what it runs). Off unless chosen. */
    acceptanceUnsandboxed: z.boolean().default(false),
  })
  .strict()
  .refine((v) => v.repo !== undefined || v.projectId !== undefined, { message: 'Give the repository (a folder or a project)', path: ['repo'] });
export type AutopilotStartInput = z.input<typeof AutopilotStartInput>;

export const autopilotRequests = {
  'autopilot.list': request(z.object({ projectId: z.string().optional() }).strict(), z.object({ runs: z.array(AutopilotRun) }), 'Autopilot runs, newest first (of one project when given).'),
  'autopilot.get': request(
    z.object({ runId: RunId }).strict(),
    z.object({ run: AutopilotRun, plan: AutopilotPlanView.nullable(), iterations: z.array(AutopilotIteration) }),
    "One run: its state, its worktree's PLAN.md as it stands, and its iteration timeline.",
  ),
  'autopilot.start': request(AutopilotStartInput, z.object({ run: AutopilotRun }), 'Start a run in a new worktree of the repository; it goes on in the background.'),
  'autopilot.pause': request(z.object({ runId: RunId }).strict(), z.object({ run: AutopilotRun }), 'Pause a run after the state it is in finishes.'),
  'autopilot.resume': request(z.object({ runId: RunId }).strict(), z.object({ run: AutopilotRun }), 'Resume a paused or interrupted run from its saved state.'),
  'autopilot.cancel': request(z.object({ runId: RunId }).strict(), z.object({ run: AutopilotRun }), 'Cancel a run: its agent turn and acceptance command are stopped.'),
  'autopilot.answer': request(
    z.object({ runId: RunId, stepId: z.string().regex(/^\d{3,}$/), answer: z.string().trim().min(1, 'The answer is empty').max(4_000) }).strict(),
    z.object({ run: AutopilotRun }),
    "Answer a blocked step: the answer goes into PLAN.md's Notes, the step back to Next, and the run resumes.",
  ),
} as const;

export const autopilotEvents = {
  'autopilot.changed': event(z.object({ run: AutopilotRun, iteration: AutopilotIteration.nullable() }), 'A run changed state (and the iteration it is in).'),
} as const;
