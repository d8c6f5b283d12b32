/**
 * The project's features config, `.flightdeck/config.yml`: which model and budget a feature
 * run uses, the checks run after each phase, extra prompt template folders, git and review
 * settings, how new worktrees are prepared, and where feature runs work by default. Strict: an
 * unknown key (usually a typo) or a wrong type is an error naming the key path and line, never
 * silently ignored. Loading only reads; the file is never rewritten here.
 */
import { join } from 'node:path';
import { z } from 'zod';
import { RunPlacement } from '../../src-preload/contract';
import { FileTooLargeError, readFileInsideAsync, UnsafePathError } from '../platform/contained-path';
import { FeatureError, ioError } from './errors';
import { parseYamlFile } from './yaml-file';

/** Folder of the project's features files, relative to the repository root. */
export const FEATURES_DIR = '.flightdeck';

/**
 * A feature's record folder relative to the repository root, as git takes it: forward slashes on
 * every system (a `top` pathspec is used as written, backslashes and all).
 */
export function recordPath(slug: string): string {
  return `${FEATURES_DIR}/${slug}`;
}
export const CONFIG_FILE = 'config.yml';
/** The only config format version this build understands. */
export const CONFIG_VERSION = 1;
/**
 * Largest features config read: a screenful of settings (a few KiB). It is parsed at every list,
 * plan and run; a repository can commit anything, and a huge YAML file holds the host while it parses.
 */
export const MAX_CONFIG_FILE_BYTES = 256 * 1024;

// Ports a user process may bind without privileges; 0 would mean "any port", not a range.
const MIN_PORT = 1024;
const MAX_PORT = 65535;

const nonEmpty = z.string().trim().min(1, 'must not be empty');

// The defaults are exactly the documented example config, so an absent key behaves as the
// example says. Nested objects use prefault so their own field defaults apply when absent.
export const AgentConfig = z.strictObject({
  model: nonEmpty.default('claude-opus-4-6'),
  max_budget_usd: z.number().positive().default(20.0),
  max_retries: z.number().int().nonnegative().default(3),
  max_turns: z.number().int().positive().default(100),
  /**
   * Where the project's feature runs work unless the feature's state.yml or the run request says
   * otherwise: the same shape (and strictness) as state.yml's `agent.placement`. Absent: on the host.
   */
  placement: RunPlacement.optional(),
});

export const PromptsConfig = z.strictObject({
  extra_dirs: z.array(nonEmpty).default(['.flightdeck/prompts']),
});

/** `auto` detects the default branch; anything else names the base branch. */
export const BaseBranch = z.union([z.literal('auto'), nonEmpty]);

export const GitConfig = z.strictObject({
  auto_commit: z.boolean().default(true),
  branch_prefix: z
    .string()
    .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, 'must be a branch name prefix such as "feature"')
    .default('feature'),
  base_branch: BaseBranch.default('auto'),
});

export const ReviewConfig = z.strictObject({
  enabled: z.boolean().default(true),
  max_review_rounds: z.number().int().positive().default(5),
});

export const PortRange = z
  .strictObject({
    start: z.number().int().min(MIN_PORT).max(MAX_PORT),
    end: z.number().int().min(MIN_PORT).max(MAX_PORT),
  })
  .refine((r) => r.start <= r.end, { message: 'start must not be greater than end', path: ['end'] });

/** Git-ignored files worth copying from the main checkout into a new worktree. */
export const DEFAULT_WORKTREE_COPY = ['.env', '.env.local', '.env.*.local', '.envrc'] as const;

export const WorktreeConfig = z.strictObject({
  setup: z.array(nonEmpty).default([]),
  copy: z.array(nonEmpty).default([...DEFAULT_WORKTREE_COPY]),
  ports: PortRange.nullable().default(null),
});

/**
 * The pull request loop after delivery with gh (src-main/features/pr/): how many fix rounds its
 * checks and reviews may cause before the feature waits for the user, and whether a green,
 * approved PR is merged by Flightdeck (off unless a method is named).
 */
export const PrConfig = z.strictObject({
  max_fix_rounds: z.number().int().nonnegative().max(20).default(3),
  auto_merge: z.enum(['off', 'squash', 'merge', 'rebase']).default('off'),
});

export const FeaturesConfig = z.strictObject({
  version: z.literal(CONFIG_VERSION, { error: `must be ${CONFIG_VERSION} (the only config version this Flightdeck understands)` }).default(CONFIG_VERSION),
  agent: AgentConfig.prefault({}),
  checks: z.array(nonEmpty).default(['cargo build', 'cargo +nightly fmt -- --check', 'cargo clippy -- -D warnings']),
  /** How long one check may run before it is stopped (a hung test runner, a watch mode). */
  check_timeout_minutes: z.number().int().positive().max(24 * 60).default(30),
  prompts: PromptsConfig.prefault({}),
  git: GitConfig.prefault({}),
  review: ReviewConfig.prefault({}),
  worktree: WorktreeConfig.prefault({}),
  pr: PrConfig.prefault({}),
});
export type FeaturesConfig = z.output<typeof FeaturesConfig>;

/** The config with every default: what an empty or absent-key file means. */
export function defaultConfig(): FeaturesConfig {
  return FeaturesConfig.parse({});
}

/** Validates config text; throws a FeatureError (kind config or yaml) with path and line. */
export function parseConfig(text: string, path: string): FeaturesConfig {
  return parseYamlFile(text, { kind: 'config', schema: FeaturesConfig, path, emptyAs: {} });
}

export function configPath(repoRoot: string): string {
  return join(repoRoot, FEATURES_DIR, CONFIG_FILE);
}

/**
 * Reads and validates `<repo>/.flightdeck/config.yml`. A missing file is a config error saying
 * so (the project has not been initialized); nothing is ever written.
 */
export async function loadConfig(repoRoot: string): Promise<FeaturesConfig> {
  const path = configPath(repoRoot);
  let text: string;
  try {
    // A regular file inside the repository, never through a link (a committed `.flightdeck` or
    // `config.yml` link would have the app read any file of the user's), its size checked on the
    // opened file before reading: a config is a screenful of settings.
    text = (await readFileInsideAsync(repoRoot, path, { maxBytes: MAX_CONFIG_FILE_BYTES, what: 'the features config' })).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') {
      throw new FeatureError('config', 'no features config: initialize the project first', { path }, { cause: e });
    }
    if (e instanceof FileTooLargeError) throw new FeatureError('config', `the features config is ${e.size} bytes, over the ${MAX_CONFIG_FILE_BYTES} a config may take; it is not read`, { path }, { cause: e });
    // Not a regular file of the repository's own (a link, a FIFO): an I/O refusal, as for any file.
    if (e instanceof UnsafePathError) throw new FeatureError('io', `the features config is not read: ${e.message}`, { path }, { cause: e });
    if (e instanceof FeatureError) throw e;
    throw ioError(path, 'read the features config', e);
  }
  return parseConfig(text, path);
}
