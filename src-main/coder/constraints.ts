/**
 * Flightdeck's side of seed 000's engineering constraints: the Coder tool never looks for
 * `ai/` files itself; the caller opts in, and this reads them, renders the seed's prompt
 * template and says which files went in (the UI shows that list).
 */
import { join } from 'node:path';
import { readFileNoWaitAsync } from '../platform/read-no-wait';
import { CONSTRAINT_FILES, renderCoderPrompt, type CoderTask, type ConstraintName, type Constraints, type ContextPack } from './core/prompt';
import { describeScope, parseContract, type ContractSections } from './core/scope';

/**
 * One constraint file beyond this is cut (and says so): the contract is meant to be read by a
 * person in a few minutes, and the whole prompt has to fit a model's context with the work.
 */
export const MAX_CONSTRAINT_CHARS = 100_000;

export interface InjectedFile {
  name: ConstraintName;
  /** Relative to cd, e.g. `ai/contracts/current.md`. */
  path: string;
  chars: number;
  truncated: boolean;
}

export interface LoadedConstraints {
  constraints: Constraints;
  files: InjectedFile[];
}

async function readOptional(path: string): Promise<string | null> {
  try {
    // Repository files: a FIFO in a constraint file's place is refused, not waited on.
    return await readFileNoWaitAsync(path, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') return null;
    throw e;
  }
}

export async function loadConstraints(cd: string): Promise<LoadedConstraints> {
  const constraints: Constraints = {};
  const files: InjectedFile[] = [];
  for (const [name, rel] of Object.entries(CONSTRAINT_FILES) as Array<[ConstraintName, string]>) {
    const text = await readOptional(join(cd, rel));
    if (text === null || text.trim() === '') continue;
    const truncated = text.length > MAX_CONSTRAINT_CHARS;
    constraints[name] = truncated ? `${text.slice(0, MAX_CONSTRAINT_CHARS)}\n…（已截断：原文件 ${text.length} 字符）` : text;
    files.push({ name, path: rel, chars: text.length, truncated });
  }
  return { constraints, files };
}

export interface BuiltPrompt {
  prompt: string;
  /** The constraint files whose content is in the prompt (empty when not injected or none exist). */
  injected: InjectedFile[];
}

/** Seed 000's prompt for a task; with `inject`, the `ai/` constraint files of cd go in too. */
export async function buildCoderPrompt(opts: { task: CoderTask; cd: string; inject: boolean }): Promise<BuiltPrompt> {
  if (!opts.inject) return { prompt: renderCoderPrompt(opts.task), injected: [] };
  const loaded = await loadConstraints(opts.cd);
  return { prompt: renderCoderPrompt(opts.task, loaded.constraints), injected: loaded.files };
}

/** The contract of cd, parsed (null when there is none). */
export async function readContract(cd: string): Promise<{ text: string; sections: ContractSections } | null> {
  const text = await readOptional(join(cd, CONSTRAINT_FILES.contract));
  if (text === null || text.trim() === '') return null;
  return { text, sections: parseContract(text) };
}

/** Seed 000's minimal context pack for a new session replacing a lost one. */
export async function contextPackFor(cd: string, goal: string | null): Promise<ContextPack> {
  const contract = await readContract(cd);
  return {
    goal: goal ?? contract?.sections.goal ?? null,
    contract: contract ? contract.text.slice(0, MAX_CONSTRAINT_CHARS) : null,
    scope: contract ? describeScope(contract.sections.scope) : null,
    assumptions: contract?.sections.assumptions ?? null,
    acceptance: contract?.sections.acceptance ?? null,
  };
}
