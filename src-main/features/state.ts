/**
 * A feature's state, `state.yml` next to its specs: what the feature is, where its worktree and
 * branch are, its phases (the development phases from the design spec, then the fixed `review`
 * and `verify`) with their turns, cost, tokens and duration, the PR once opened, and the totals.
 * The file is the record a crashed run resumes from, so a malformed one is reported with its
 * line and left as it is, never replaced.
 */
import { basename, dirname } from 'node:path';
import { stringify } from 'yaml';
import { z } from 'zod';
// The contract's own modules, not its index: the state parser's worker thread loads this file and no more of the contract than it needs.
import { AgentMode } from '../../src-preload/contract/agents';
import { RunPlacement } from '../../src-preload/contract/feature-runs';
import { FileTooLargeError, readFileInside, readFileInsideAsync, UnsafePathError, writeFileInside } from '../platform/contained-path';
import { formatBytes as sizeText } from '../../src-preload/contract/units';
import { FEATURES_DIR } from './config';
import { FeatureError, ioError } from './errors';
import { parseYamlFile } from './yaml-file';
import { loadPlainYaml } from './yaml-fast';
// A feature's slug becomes its worktree's folder and branch name: one rule for both.
import { MAX_SLUG_LENGTH, SLUG_RE } from '../worktrees/worktree-model';

export const STATE_FILE = 'state.yml';
// Owner read/write only: the file holds costs and paths of the user's work.
const STATE_FILE_MODE = 0o600;
/**
 * Largest state file read. Flightdeck writes a few KiB (a dozen lines per phase); a repository or
 * an agent can commit anything, and a 60 MB one took 20 s and 2 GB to parse on every list. The
 * size is checked on the opened file before a byte is read, so an oversized one costs one fstat.
 */
export const MAX_STATE_FILE_BYTES = 1024 * 1024;

/**
 * The checkout or worktree a state file belongs to (the folder above `.flightdeck/<slug>/`), below
 * which no component may be a symlink: a committed `.flightdeck/<slug>` link would otherwise make
 * Flightdeck read, or write, a state file wherever it points. A path of another shape (a test's
 * loose file) is contained in its own folder.
 */
export function stateRoot(path: string): string {
  const featureDir = dirname(path);
  const features = dirname(featureDir);
  return basename(features) === FEATURES_DIR ? dirname(features) : featureDir;
}

export const FEATURE_STATUSES = ['planned', 'in_progress', 'completed', 'failed', 'merged'] as const;
export const FeatureStatus = z.enum(FEATURE_STATUSES);
export type FeatureStatus = z.infer<typeof FeatureStatus>;

export const PHASE_STATUSES = ['pending', 'running', 'completed', 'failed'] as const;
export const PhaseStatus = z.enum(PHASE_STATUSES);
export type PhaseStatus = z.infer<typeof PhaseStatus>;

/** `dev` phases come from the design spec; `quality` ones (review, verify) are always added. */
export const PhaseKind = z.enum(['dev', 'quality']);
export type PhaseKind = z.infer<typeof PhaseKind>;
export const QUALITY_PHASES = ['review', 'verify'] as const;

export const Slug = z
  .string()
  .max(MAX_SLUG_LENGTH, `must be at most ${MAX_SLUG_LENGTH} characters`)
  .regex(SLUG_RE, 'must be lowercase letters and digits separated by single hyphens');

const Timestamp = z
  .union([z.string(), z.date()])
  .transform((v, ctx) => {
    const d = v instanceof Date ? v : new Date(v);
    if (Number.isNaN(d.getTime())) {
      ctx.addIssue({ code: 'custom', message: 'must be a date and time such as 2026-02-10T10:30:00Z' });
      return z.NEVER;
    }
    return d.toISOString();
  });

const Count = z.number().int().nonnegative();
const Amount = z.number().nonnegative();

export const TokenCost = z.strictObject({
  input_tokens: Count.default(0),
  output_tokens: Count.default(0),
});
export type TokenCost = z.output<typeof TokenCost>;

export const PhaseRecord = z.strictObject({
  name: z.string().trim().min(1, 'must not be empty'),
  kind: PhaseKind,
  status: PhaseStatus.default('pending'),
  started_at: Timestamp.nullable().default(null),
  completed_at: Timestamp.nullable().default(null),
  turns: Count.default(0),
  cost_usd: Amount.default(0),
  cost: TokenCost.prefault({}),
  duration_secs: Amount.default(0),
  /** Free-form notes of the phase (review rounds, check output summary). */
  details: z.record(z.string(), z.unknown()).default({}),
});
export type PhaseRecord = z.output<typeof PhaseRecord>;

export const TotalStats = z.strictObject({
  turns: Count.default(0),
  cost_usd: Amount.default(0),
  duration_secs: Amount.default(0),
  cost: TokenCost.prefault({}),
});
export type TotalStats = z.output<typeof TotalStats>;

export const PrInfo = z.strictObject({
  url: z.string().min(1),
  number: z.number().int().positive(),
  title: z.string(),
});
export type PrInfo = z.output<typeof PrInfo>;

/**
 * How the feature's run drives its agents, chosen when the plan was approved: the executor (the
 * built-in loop or Claude Code), the provider profile and model (null: the project's defaults)
 * and the approval mode of the run's sessions, and where they work (`placement`: absent = on the
 * host, so files written before it existed keep their meaning; kept absent when absent).
 */
export const RunAgent = z.strictObject({
  executor: z.enum(['builtin', 'claude-code']),
  profile: z.string().min(1).nullable().default(null),
  model: z.string().min(1).nullable().default(null),
  /** yolo by default: a run works unattended inside the sandbox, the hard floor and the Coder's guard. */
  mode: AgentMode.default('yolo'),
  placement: RunPlacement.optional(),
});
export type RunAgent = z.output<typeof RunAgent>;

export const FeatureState = z
  .strictObject({
    feature: z.strictObject({ slug: Slug, created_at: Timestamp, updated_at: Timestamp }),
    status: FeatureStatus,
    current_phase: Count.default(0),
    git: z.strictObject({
      worktree_path: z.string().min(1),
      branch: z.string().min(1),
      base_branch: z.string().min(1),
    }),
    phases: z.array(PhaseRecord),
    pr: PrInfo.nullable().default(null),
    total: TotalStats.prefault({}),
    /** Absent in files written before it existed: the run then uses the project's defaults. */
    agent: RunAgent.nullable().default(null),
  })
  .superRefine((s, ctx) => {
    // current_phase == phases.length means "all done"; beyond that a resume would index nothing.
    if (s.current_phase > s.phases.length) {
      ctx.addIssue({ code: 'custom', path: ['current_phase'], message: `must be at most ${s.phases.length} (the number of phases)` });
    }
    const seen = new Set<string>();
    s.phases.forEach((p, i) => {
      if (seen.has(p.name)) ctx.addIssue({ code: 'custom', path: ['phases', i, 'name'], message: `duplicate phase name "${p.name}"` });
      seen.add(p.name);
    });
  });
export type FeatureState = z.output<typeof FeatureState>;

/** The totals as the sum of the phases (what `total` must show after any phase update). */
export function sumPhases(phases: readonly PhaseRecord[]): TotalStats {
  const t: TotalStats = { turns: 0, cost_usd: 0, duration_secs: 0, cost: { input_tokens: 0, output_tokens: 0 } };
  for (const p of phases) {
    t.turns += p.turns;
    t.cost_usd += p.cost_usd;
    t.duration_secs += p.duration_secs;
    t.cost.input_tokens += p.cost.input_tokens;
    t.cost.output_tokens += p.cost.output_tokens;
  }
  return t;
}

/** A copy of `state` whose `total` is recomputed from its phases. */
export function withTotals(state: FeatureState): FeatureState {
  return { ...state, total: sumPhases(state.phases) };
}

/** A new planned feature: the given development phases followed by review and verify. */
export function newFeatureState(input: {
  slug: string;
  now: Date;
  worktreePath: string;
  branch: string;
  baseBranch: string;
  devPhases: readonly string[];
  /** Titles of the dev phases as written in the design spec, kept in each phase's details. */
  devPhaseTitles?: readonly string[];
  agent?: RunAgent | null;
}): FeatureState {
  const at = input.now.toISOString();
  const phases = [
    ...input.devPhases.map((name, i) => {
      const title = input.devPhaseTitles?.[i];
      return { name, kind: 'dev' as const, ...(title !== undefined ? { details: { title } } : {}) };
    }),
    ...QUALITY_PHASES.map((name) => ({ name, kind: 'quality' as const })),
  ];
  return FeatureState.parse({
    feature: { slug: input.slug, created_at: at, updated_at: at },
    status: 'planned',
    current_phase: 0,
    git: { worktree_path: input.worktreePath, branch: input.branch, base_branch: input.baseBranch },
    phases,
    agent: input.agent ?? null,
  });
}

/** Validates state text; throws a FeatureError (kind state or yaml) with path and line. */
export function parseState(text: string, path: string): FeatureState {
  // Plain YAML, as Flightdeck writes it, is read by the fast loader (yaml-fast.ts); anything
  // else, and every file the schema refuses, by parseYamlFile, which words the error.
  return parsePlainState(text) ?? parseStateFully(text, path);
}

/** The state in `text` when the fast loader reads it and the schema accepts it; else undefined (parseStateFully decides). */
export function parsePlainState(text: string): FeatureState | undefined {
  const plain = loadPlainYaml(text);
  if (plain === undefined) return undefined;
  const checked = FeatureState.safeParse(plain);
  return checked.success ? checked.data : undefined;
}

/** parseState without the fast loader (the reference its tests compare it with). */
export function parseStateFully(text: string, path: string): FeatureState {
  return parseYamlFile(text, { kind: 'state', schema: FeatureState, path });
}

export function serializeState(state: FeatureState): string {
  // Validate before writing: an invalid state must never replace a valid file.
  const checked = FeatureState.parse(state);
  return stringify(checked, { lineWidth: 0 });
}

export async function readState(path: string): Promise<FeatureState> {
  return parseState(await readStateText(path), path);
}

/** The text of the state file at `path`, read by the rules of readFileInsideAsync (no symlink, no FIFO, at most MAX_STATE_FILE_BYTES). */
export async function readStateText(path: string): Promise<string> {
  try {
    return (await readFileInsideAsync(stateRoot(path), path, STATE_READ)).toString('utf8');
  } catch (e) {
    throw stateReadError(path, e);
  }
}

/**
 * The same read, synchronous: for an update, whose write is synchronous too, and for the scanner. Awaited, the read
 * was ten trips through the thread pool and the event loop per update (checks, open, stat, real
 * paths, reads, close), and a run's other work queued between them: about half of a run's
 * state-write time in the feature-runs bench. A FIFO still cannot block it (opened O_NONBLOCK,
 * refused by its type), and a folder on a hung file system blocks the write after it the same way.
 */
export function readStateTextSync(path: string): string {
  try {
    return readFileInside(stateRoot(path), path, STATE_READ).toString('utf8');
  } catch (e) {
    throw stateReadError(path, e);
  }
}

const STATE_READ = { maxBytes: MAX_STATE_FILE_BYTES, what: 'feature state file' };

function stateReadError(path: string, e: unknown): Error {
  if ((e as NodeJS.ErrnoException).code === 'ENOENT') return new FeatureError('state', 'state file not found', { path }, { cause: e });
  if (e instanceof FileTooLargeError) return new FeatureError('state', `the state file is ${sizeText(e.size)}, over the ${sizeText(e.limit)} a feature's state may take; it is not read (a state file holds a few KiB: restore it from git, or remove the feature's folder)`, { path }, { cause: e });
  return ioError(path, 'read the feature state', e);
}

/**
 * What this process last wrote to each state file, as text and as the state that text parses to.
 * A run writes its state several times a phase; when the file still holds exactly that text (its
 * bytes are compared, so any edit by an agent or by hand is seen), the next update skips parsing
 * and validating it again.
 */
const lastWritten = new Map<string, { text: string; state: FeatureState }>();
/** State files remembered at once: one per feature being run, with room to spare. */
const LAST_WRITTEN_MAX = 256;

/** Writes `state.yml` atomically (old content or new, never a mix), creating its folder. */
export function writeState(path: string, state: FeatureState): void {
  let data: string;
  let checked: FeatureState;
  try {
    // Validate before writing: an invalid state must never replace a valid file.
    checked = FeatureState.parse(state);
    data = stringify(checked, { lineWidth: 0 });
  } catch (e) {
    throw new FeatureError('state', `refusing to write an invalid state: ${e instanceof Error ? e.message : String(e)}`, { path }, { cause: e });
  }
  try {
    // The folder is not flushed: a run rewrites its state several times a phase, and a power loss
    // undoing the last rename leaves the previous state, from which the run resumes (atomic-file.ts).
    writeFileInside(stateRoot(path), path, data, STATE_FILE_MODE, { syncFolder: false });
  } catch (e) {
    if (e instanceof UnsafePathError) throw new FeatureError('state', `refusing to write the feature state: ${e.message}`, { path }, { cause: e });
    throw ioError(path, 'write the feature state', e);
  }
  lastWritten.delete(path);
  if (lastWritten.size >= LAST_WRITTEN_MAX) lastWritten.delete(lastWritten.keys().next().value as string);
  lastWritten.set(path, { text: data, state: checked });
}

/**
 * The safe way to change a state file: read and validate it first (a malformed file throws with
 * its path and line and is left as it is, so a hand-edited mistake is never replaced by a
 * guess), apply `change`, stamp `updated_at`, recompute the totals from the phases, write.
 */
export async function updateState(path: string, now: Date, change: (s: FeatureState) => FeatureState): Promise<FeatureState> {
  const text = readStateTextSync(path);
  const known = lastWritten.get(path);
  const current = known && known.text === text ? structuredClone(known.state) : parseState(text, path);
  const next = withTotals(change(current));
  const stamped: FeatureState = { ...next, feature: { ...next.feature, updated_at: now.toISOString() } };
  writeState(path, stamped);
  return stamped;
}
