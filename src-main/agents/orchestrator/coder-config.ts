/**
 * `./.coder/config.json`: the agent loop's own config file (seed 001 §7–8). `/model` writes
 * the model there; the loop reads `workflow.auto_verify_after_edit`,
 * `workflow.max_verify_attempts` (a top-level `max_verify_attempts` is accepted too: the
 * specification names it both ways), `workflow.verify_command`, `workflow.todo_auto_init`, and
 * `model` / `profile`. Where it sets a key it wins over `.flightdeck/config.yml`
 * (project-config.ts).
 *
 * The file is the user's: unknown keys are kept on write, and a file that is not valid JSON (or
 * not an object) is reported with its path and never overwritten.
 */
import { lstatSync } from 'node:fs';
import { FileTooLargeError, readFileInside, UnsafePathError, writeFileInside } from '../../platform/contained-path';
import { join } from 'node:path';
import { AppError } from '../../../src-preload/contract';
import { git } from '../../git/git';

export const CODER_CONFIG_RELATIVE_PATH = '.coder/config.json';
/** What `/model --gitignore` adds: the whole folder (other tools keep state there too). */
const IGNORE_ENTRY = '.coder/';
const GIT_TIMEOUT_MS = 10_000;

/** The values the file sets; a key it does not set (or sets with the wrong type) is absent. */
export interface CoderConfigValues {
  model?: string;
  profile?: string;
  autoVerifyAfterEdit?: boolean;
  maxVerifyAttempts?: number;
  verifyCommand?: string;
  todoAutoInit?: boolean;
}

export interface LoadedCoderConfig {
  path: string;
  exists: boolean;
  values: CoderConfigValues;
  /** Why the file (or a key of it) was not used, naming the file; null when all is well. */
  problem: string | null;
}

export function coderConfigPath(dir: string): string {
  return join(dir, CODER_CONFIG_RELATIVE_PATH);
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Parses the text; `problem` says why it cannot be used as a whole. Pure. */
export function parseCoderConfig(text: string, path: string): { doc: Json | null; problem: string | null } {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    return { doc: null, problem: `${path} is not valid JSON (${(e as Error).message}); its settings are ignored until it is fixed` };
  }
  if (!isObject(doc)) return { doc: null, problem: `${path} must hold a JSON object ({ … }); its settings are ignored until it is fixed` };
  return { doc, problem: null };
}

/** The values of a parsed file; keys with the wrong type are listed in `bad`. Pure. */
export function coderConfigValues(doc: Json): { values: CoderConfigValues; bad: string[] } {
  const values: CoderConfigValues = {};
  const bad: string[] = [];
  const wf = isObject(doc.workflow) ? doc.workflow : {};
  if (doc.workflow !== undefined && !isObject(doc.workflow)) bad.push('workflow (must be an object)');
  const str = (v: unknown, key: string): string | undefined => {
    if (v === undefined) return undefined;
    if (typeof v === 'string' && v.trim() !== '') return v.trim();
    bad.push(`${key} (must be a non-empty string)`);
    return undefined;
  };
  const bool = (v: unknown, key: string): boolean | undefined => {
    if (v === undefined) return undefined;
    if (typeof v === 'boolean') return v;
    bad.push(`${key} (must be true or false)`);
    return undefined;
  };
  const model = str(doc.model, 'model');
  if (model !== undefined) values.model = model;
  const profile = str(doc.profile, 'profile');
  if (profile !== undefined) values.profile = profile;
  const auto = bool(wf.auto_verify_after_edit, 'workflow.auto_verify_after_edit');
  if (auto !== undefined) values.autoVerifyAfterEdit = auto;
  const [maxKey, max] = wf.max_verify_attempts !== undefined ? ['workflow.max_verify_attempts', wf.max_verify_attempts] : ['max_verify_attempts', doc.max_verify_attempts];
  if (max !== undefined) {
    if (typeof max === 'number' && Number.isInteger(max) && max >= 0) values.maxVerifyAttempts = max;
    else bad.push(`${maxKey} (must be a whole number, 0 or more)`);
  }
  const verify = str(wf.verify_command, 'workflow.verify_command');
  if (verify !== undefined) values.verifyCommand = verify;
  const todo = bool(wf.todo_auto_init, 'workflow.todo_auto_init');
  if (todo !== undefined) values.todoAutoInit = todo;
  return { values, bad };
}

export function readCoderConfig(dir: string): LoadedCoderConfig {
  const path = coderConfigPath(dir);
  // existsSync follows a link: lstat says whether something is there at all.
  if (!lstatSync(path, { throwIfNoEntry: false })) return { path, exists: false, values: {}, problem: null };
  let text: string;
  try {
    // A link (→ ~/.aws/credentials) is refused, never read: its parse error would quote the file.
    text = readFileInside(dir, CODER_CONFIG_RELATIVE_PATH, { maxBytes: 1024 * 1024, what: 'the Coder config' }).toString('utf8');
  } catch (e) {
    return { path, exists: true, values: {}, problem: `could not read ${path}: ${(e as Error).message}` };
  }
  const parsed = parseCoderConfig(text, path);
  if (!parsed.doc) return { path, exists: true, values: {}, problem: parsed.problem };
  const { values, bad } = coderConfigValues(parsed.doc);
  return { path, exists: true, values, problem: bad.length > 0 ? `${path}: ignored ${bad.join(', ')}` : null };
}

export interface CoderConfigWrite {
  path: string;
  /** The file did not exist before this write. */
  created: boolean;
}

/**
 * Sets top-level keys (model, profile) in the file, creating it (and `.coder/`) when missing,
 * keeping every other key. A file that is not a JSON object is left untouched and the write
 * fails with `invalid_input`, naming the file.
 */
export function updateCoderConfig(dir: string, set: Partial<Record<'model' | 'profile', string>>): CoderConfigWrite {
  const path = coderConfigPath(dir);
  // The folder's files are the repository's (or an agent's): a `.coder` or config.json committed
  // as a symbolic link is refused, never read or written through (platform/contained-path.ts).
  const text = readInside(dir, CODER_CONFIG_RELATIVE_PATH, 'the Coder config');
  const created = text === null;
  let doc: Json = {};
  if (text !== null) {
    const parsed = parseCoderConfig(text, path);
    if (!parsed.doc) throw new AppError('invalid_input', `${parsed.problem!.replace(/; its settings are ignored until it is fixed$/, '')}; fix it first, nothing was changed.`);
    doc = parsed.doc;
  }
  for (const [k, v] of Object.entries(set)) if (v !== undefined) doc[k] = v;
  writeInside(dir, path, JSON.stringify(doc, null, 2) + '\n');
  return { path, created };
}

/** A file of `root` by the contained-path rules; null when missing; a link or a special file is an `invalid_input` naming it. */
function readInside(root: string, rel: string, what: string): string | null {
  try {
    return readFileInside(root, rel, { maxBytes: 1024 * 1024, what }).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    if (e instanceof UnsafePathError || e instanceof FileTooLargeError) throw new AppError('invalid_input', `${e.message}; nothing was changed.`);
    throw e;
  }
}

function writeInside(root: string, file: string, text: string): void {
  try {
    writeFileInside(root, file, text);
  } catch (e) {
    if (e instanceof UnsafePathError) throw new AppError('invalid_input', `${e.message}; nothing was changed.`);
    throw e;
  }
}

/**
 * Whether the config file would show up in `git status` as a new file: dir is inside a git
 * work tree and the file is neither tracked nor ignored. False without git.
 */
export async function coderConfigUntracked(dir: string): Promise<boolean> {
  try {
    const out = await git(['status', '--porcelain', '--untracked-files=all', '--', CODER_CONFIG_RELATIVE_PATH], { cwd: dir, timeoutMs: GIT_TIMEOUT_MS });
    return out.split('\n').some((l) => l.startsWith('?? '));
  } catch {
    // Not a repository, or git is missing: nothing can be "untracked" then.
    return false;
  }
}

async function ignored(dir: string): Promise<boolean> {
  try {
    await git(['check-ignore', '-q', CODER_CONFIG_RELATIVE_PATH], { cwd: dir, timeoutMs: GIT_TIMEOUT_MS });
    return true;
  } catch {
    // Exit 1 means "not ignored"; any other failure is treated the same: the entry gets added.
    return false;
  }
}

/**
 * Adds `.coder/` (relative to dir) to the .gitignore at the top of dir's work tree. Returns
 * the .gitignore's path and whether it was created; null when the entry is already there.
 */
export async function ignoreCoderConfig(dir: string): Promise<{ path: string; created: boolean } | null> {
  let top: string;
  let prefix: string;
  try {
    top = (await git(['rev-parse', '--show-toplevel'], { cwd: dir, timeoutMs: GIT_TIMEOUT_MS })).trim();
    prefix = (await git(['rev-parse', '--show-prefix'], { cwd: dir, timeoutMs: GIT_TIMEOUT_MS })).trim();
  } catch {
    throw new AppError('not_a_git_repo', `${dir} is not in a git repository, so there is no .gitignore to add .coder/ to.`);
  }
  // Already ignored by some rule (a global excludes file, a broader pattern): nothing to add.
  if (await ignored(dir)) return null;
  const entry = `/${prefix}${IGNORE_ENTRY}`;
  const path = join(top, '.gitignore');
  // A .gitignore committed as a link (→ ~/.ssh/config) is refused: neither appended to nor copied.
  const existing = readInside(top, '.gitignore', 'the .gitignore');
  const created = existing === null;
  const text = existing ?? '';
  const lines = text.split(/\r?\n/).map((l) => l.trim());
  if (lines.includes(entry) || (prefix === '' && lines.includes(IGNORE_ENTRY))) return null;
  writeInside(top, path, `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}${entry}\n`);
  return { path, created };
}
