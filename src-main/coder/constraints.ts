/**
 * Flightdeck's side of seed 000's engineering constraints: the Coder tool never looks for
 * `ai/` files itself; the caller opts in, and this reads them, renders the seed's prompt
 * template and says which files went in (the UI shows that list).
 */
import { AppError } from '../../src-preload/contract';
import { FileTooLargeError, readFileInsideAsync, UnsafePathError } from '../platform/contained-path';
import { CONSTRAINT_FILES, renderCoderPrompt, type CoderTask, type ConstraintName, type Constraints, type ContextPack } from './core/prompt';
import { describeScope, parseContract, type ContractSections } from './core/scope';

/**
 * One constraint file beyond this is cut (and says so): the contract is meant to be read by a
 * person in a few minutes, and the whole prompt has to fit a model's context with the work.
 */
export const MAX_CONSTRAINT_CHARS = 100_000;
/** A constraint file larger than this is not read at all (it is named as refused). */
export const MAX_CONSTRAINT_BYTES = 4 * 1024 * 1024;

export interface InjectedFile {
  name: ConstraintName;
  /** Relative to cd, e.g. `ai/contracts/current.md`. */
  path: string;
  chars: number;
  truncated: boolean;
}

/** A constraint file that exists but was not read, and why (said to the user). */
export interface RefusedFile {
  path: string;
  reason: string;
}

export interface LoadedConstraints {
  constraints: Constraints;
  files: InjectedFile[];
  refused: RefusedFile[];
}

/**
 * A constraint file of `cd`, read by the rules for files of a repository the app does not control
 * (platform/contained-path.ts): no symbolic link on the way, a regular file (a FIFO is refused,
 * not waited on), inside `cd` for real. The text goes into a prompt sent to a model provider, so
 * a committed or agent-made link (`ai/engineering_codex.md` → `/proc/self/environ`, `~/.aws/credentials`)
 * must never be followed. null when there is none; `{ refused }` when it is there but not read.
 */
async function readOptional(cd: string, rel: string): Promise<string | null | { refused: string }> {
  try {
    return (await readFileInsideAsync(cd, rel, { maxBytes: MAX_CONSTRAINT_BYTES, what: 'a constraint file' })).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    if (e instanceof UnsafePathError || e instanceof FileTooLargeError) return { refused: e.message };
    throw e;
  }
}

export async function loadConstraints(cd: string): Promise<LoadedConstraints> {
  const constraints: Constraints = {};
  const files: InjectedFile[] = [];
  const refused: RefusedFile[] = [];
  for (const [name, rel] of Object.entries(CONSTRAINT_FILES) as Array<[ConstraintName, string]>) {
    const text = await readOptional(cd, rel);
    if (text !== null && typeof text === 'object') {
      refused.push({ path: rel, reason: text.refused });
      continue;
    }
    if (text === null || text.trim() === '') continue;
    const truncated = text.length > MAX_CONSTRAINT_CHARS;
    constraints[name] = truncated ? `${text.slice(0, MAX_CONSTRAINT_CHARS)}\n…（已截断：原文件 ${text.length} 字符）` : text;
    files.push({ name, path: rel, chars: text.length, truncated });
  }
  return { constraints, files, refused };
}

export interface BuiltPrompt {
  prompt: string;
  /** The constraint files whose content is in the prompt (empty when not injected or none exist). */
  injected: InjectedFile[];
  /** Constraint files that are there but were not read (a symbolic link, not a regular file, too large). */
  refused: RefusedFile[];
}

/** Seed 000's prompt for a task; with `inject`, the `ai/` constraint files of cd go in too. */
export async function buildCoderPrompt(opts: { task: CoderTask; cd: string; inject: boolean }): Promise<BuiltPrompt> {
  if (!opts.inject) return { prompt: renderCoderPrompt(opts.task), injected: [], refused: [] };
  const loaded = await loadConstraints(opts.cd);
  return { prompt: renderCoderPrompt(opts.task, loaded.constraints), injected: loaded.files, refused: loaded.refused };
}

/**
 * The contract of cd, parsed (null when there is none). One that is there but refused (a link, not
 * a regular file, too large) is an error saying so: its scope is checked, so it must not read as
 * "no contract" and let a run go unscoped without a word.
 */
export async function readContract(cd: string): Promise<{ text: string; sections: ContractSections } | null> {
  const text = await readOptional(cd, CONSTRAINT_FILES.contract);
  if (text !== null && typeof text === 'object') {
    throw new AppError('invalid_input', `${CONSTRAINT_FILES.contract} is not read: ${text.refused}. Its change scope cannot be checked; make it a regular file of the repository.`, { path: CONSTRAINT_FILES.contract });
  }
  if (text === null || text.trim() === '') return null;
  return { text, sections: parseContract(text) };
}

/** Seed 000's minimal context pack for a new session replacing a lost one. */
export async function contextPackFor(cd: string, goal: string | null): Promise<ContextPack> {
  // Context for a new conversation only (the scope, if checked, was read by the run itself).
  const contract = await readContract(cd).catch(() => null);
  return {
    goal: goal ?? contract?.sections.goal ?? null,
    contract: contract ? contract.text.slice(0, MAX_CONSTRAINT_CHARS) : null,
    scope: contract ? describeScope(contract.sections.scope) : null,
    assumptions: contract?.sections.assumptions ?? null,
    acceptance: contract?.sections.acceptance ?? null,
  };
}
