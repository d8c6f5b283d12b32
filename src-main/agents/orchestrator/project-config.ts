/**
 * The project's `.flightdeck/config.yml` (seed 001's `./.coder/config.json`). Read with
 * defaults; written read-modify-write through the `yaml` document model so keys, comments
 * and order that other capabilities or the user put there survive.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';

export const CONFIG_RELATIVE_PATH = '.flightdeck/config.yml';
/** Seed 001 §8: verification is retried this many times per turn unless the project says otherwise. */
export const DEFAULT_MAX_VERIFY_ATTEMPTS = 2;
/** A project cannot ask for endless repair loops. */
const MAX_VERIFY_ATTEMPTS_CAP = 10;

export interface ProjectConfig {
  agent: { profile: string | null; model: string | null };
  workflow: {
    autoVerifyAfterEdit: boolean;
    maxVerifyAttempts: number;
    /** An explicit verify command (must still be on the whitelist). */
    verifyCommand: string | null;
    todoAutoInit: boolean;
  };
}

export interface LoadedConfig {
  config: ProjectConfig;
  path: string;
  /** Set when the file exists but could not be read; defaults apply. */
  problem: string | null;
}

const DEFAULTS: ProjectConfig = {
  agent: { profile: null, model: null },
  workflow: { autoVerifyAfterEdit: true, maxVerifyAttempts: DEFAULT_MAX_VERIFY_ATTEMPTS, verifyCommand: null, todoAutoInit: true },
};

export function configPath(dir: string): string {
  return join(dir, CONFIG_RELATIVE_PATH);
}

export function readProjectConfig(dir: string): LoadedConfig {
  const path = configPath(dir);
  const config: ProjectConfig = { agent: { ...DEFAULTS.agent }, workflow: { ...DEFAULTS.workflow } };
  if (!existsSync(path)) return { config, path, problem: null };
  let doc;
  try {
    doc = parseDocument(readFileSync(path, 'utf8'));
  } catch (e) {
    return { config, path, problem: `could not read ${path}: ${(e as Error).message}` };
  }
  if (doc.errors.length > 0) return { config, path, problem: `${path} is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}` };
  const get = (p: string[]) => doc.getIn(p) as unknown;
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  config.agent.profile = str(get(['agent', 'profile']));
  config.agent.model = str(get(['agent', 'model']));
  const auto = get(['workflow', 'auto_verify_after_edit']);
  if (typeof auto === 'boolean') config.workflow.autoVerifyAfterEdit = auto;
  const max = get(['workflow', 'max_verify_attempts']);
  if (typeof max === 'number' && Number.isInteger(max) && max >= 0) config.workflow.maxVerifyAttempts = Math.min(max, MAX_VERIFY_ATTEMPTS_CAP);
  config.workflow.verifyCommand = str(get(['workflow', 'verify_command']));
  const todo = get(['workflow', 'todo_auto_init']);
  if (typeof todo === 'boolean') config.workflow.todoAutoInit = todo;
  return { config, path, problem: null };
}

/**
 * Sets values (by key path) in the config file, creating it when missing. A file that does
 * not parse is left untouched (its content is the user's) and the write fails with why.
 */
export function updateProjectConfig(dir: string, values: Array<[string[], unknown]>): string {
  const path = configPath(dir);
  const text = existsSync(path) ? readFileSync(path, 'utf8') : '';
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`${path} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it first, nothing was changed`);
  try {
    for (const [key, value] of values) doc.setIn(key, value);
  } catch (e) {
    throw new Error(`${path} does not hold a mapping at the top (${(e as Error).message}); fix it first, nothing was changed`);
  }
  mkdirSync(join(dir, '.flightdeck'), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, String(doc));
  renameSync(tmp, path);
  return path;
}
