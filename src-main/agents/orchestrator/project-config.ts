/**
 * The agent loop's settings, from two files in the project folder:
 *
 * - `.flightdeck/config.yml`: the project's Flightdeck config (features and other
 *   capabilities keep their keys there too); `agent.profile`, `agent.model`, `workflow.*`.
 *   Written read-modify-write through the `yaml` document model, so keys, comments and order
 *   that other capabilities or the user put there survive.
 * - `.coder/config.json` (coder-config.ts): the agent loop's own file (seed 001 §7), which
 *   `/model` writes. Where both set a key, this one wins for the agent loop.
 *
 * `readProjectConfig` returns the merged values and, per key, which file it came from, so the
 * UI can show where each value in effect came from.
 */
import { lstatSync } from 'node:fs';
import { readFileInside, writeFileInside } from '../../platform/contained-path';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { CODER_CONFIG_RELATIVE_PATH, readCoderConfig } from './coder-config';

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

/** The keys the agent loop reads, as `.flightdeck/config.yml` spells them. */
export const CONFIG_KEYS = ['agent.profile', 'agent.model', 'workflow.auto_verify_after_edit', 'workflow.max_verify_attempts', 'workflow.verify_command', 'workflow.todo_auto_init'] as const;
export type ConfigKey = (typeof CONFIG_KEYS)[number];
/** Where a value in effect came from. */
export type ConfigSource = typeof CODER_CONFIG_RELATIVE_PATH | typeof CONFIG_RELATIVE_PATH | 'default';

export interface LoadedConfig {
  config: ProjectConfig;
  /** `.flightdeck/config.yml`'s path. */
  path: string;
  /** `.coder/config.json`'s path. */
  coderPath: string;
  /** Set when a file exists but could not be (fully) read, naming it; defaults apply for what was lost. */
  problem: string | null;
  /** For every key, the file its value came from. */
  sources: Record<ConfigKey, ConfigSource>;
}

const DEFAULTS: ProjectConfig = {
  agent: { profile: null, model: null },
  workflow: { autoVerifyAfterEdit: true, maxVerifyAttempts: DEFAULT_MAX_VERIFY_ATTEMPTS, verifyCommand: null, todoAutoInit: true },
};

/** `.flightdeck/config.yml` larger than this is not read (as for the features' config). */
const PROJECT_CONFIG_MAX_BYTES = 256 * 1024;

export function configPath(dir: string): string {
  return join(dir, CONFIG_RELATIVE_PATH);
}

/**
 * The settings in effect for the agent loop in `dir`: defaults, then `.flightdeck/config.yml`,
 * then `.coder/config.json` on top.
 */
export function readProjectConfig(dir: string): LoadedConfig {
  const yml = readFlightdeckConfig(dir);
  const coder = readCoderConfig(dir);
  const config = yml.config;
  const sources = Object.fromEntries(CONFIG_KEYS.map((k) => [k, yml.set.has(k) ? CONFIG_RELATIVE_PATH : 'default'])) as Record<ConfigKey, ConfigSource>;
  const take = <K extends ConfigKey>(key: K, value: unknown, apply: () => void) => {
    if (value === undefined) return;
    apply();
    sources[key] = CODER_CONFIG_RELATIVE_PATH;
  };
  const v = coder.values;
  take('agent.profile', v.profile, () => (config.agent.profile = v.profile!));
  take('agent.model', v.model, () => (config.agent.model = v.model!));
  take('workflow.auto_verify_after_edit', v.autoVerifyAfterEdit, () => (config.workflow.autoVerifyAfterEdit = v.autoVerifyAfterEdit!));
  take('workflow.max_verify_attempts', v.maxVerifyAttempts, () => (config.workflow.maxVerifyAttempts = Math.min(v.maxVerifyAttempts!, MAX_VERIFY_ATTEMPTS_CAP)));
  take('workflow.verify_command', v.verifyCommand, () => (config.workflow.verifyCommand = v.verifyCommand!));
  take('workflow.todo_auto_init', v.todoAutoInit, () => (config.workflow.todoAutoInit = v.todoAutoInit!));
  const problems = [yml.problem, coder.problem].filter((p): p is string => p !== null);
  return { config, path: yml.path, coderPath: coder.path, problem: problems.length > 0 ? problems.join('; ') : null, sources };
}

/** `.flightdeck/config.yml` alone: its values over the defaults, and which keys it set. */
function readFlightdeckConfig(dir: string): { config: ProjectConfig; path: string; problem: string | null; set: Set<ConfigKey> } {
  const path = configPath(dir);
  const config: ProjectConfig = { agent: { ...DEFAULTS.agent }, workflow: { ...DEFAULTS.workflow } };
  const set = new Set<ConfigKey>();
  if (!lstatSync(path, { throwIfNoEntry: false })) return { config, path, problem: null, set };
  let doc;
  try {
    // A link (→ anywhere) is refused, never read: a parse error would quote the file it points at.
    doc = parseDocument(readFileInside(dir, CONFIG_RELATIVE_PATH, { maxBytes: PROJECT_CONFIG_MAX_BYTES, what: 'the project config' }).toString('utf8'));
  } catch (e) {
    return { config, path, problem: `could not read ${path}: ${(e as Error).message}`, set };
  }
  if (doc.errors.length > 0) return { config, path, problem: `${path} is not valid YAML: ${doc.errors[0]!.message.split('\n')[0]}`, set };
  const get = (p: string[]) => doc.getIn(p) as unknown;
  // Each key counts as set by the file only when its value is usable.
  const use = <T>(key: ConfigKey, value: T | null, apply: (v: T) => void) => {
    if (value === null) return;
    apply(value);
    set.add(key);
  };
  const str = (v: unknown) => (typeof v === 'string' && v.trim() !== '' ? v.trim() : null);
  const bool = (v: unknown) => (typeof v === 'boolean' ? v : null);
  const count = (v: unknown) => (typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : null);
  use('agent.profile', str(get(['agent', 'profile'])), (v) => (config.agent.profile = v));
  use('agent.model', str(get(['agent', 'model'])), (v) => (config.agent.model = v));
  use('workflow.auto_verify_after_edit', bool(get(['workflow', 'auto_verify_after_edit'])), (v) => (config.workflow.autoVerifyAfterEdit = v));
  use('workflow.max_verify_attempts', count(get(['workflow', 'max_verify_attempts'])), (v) => (config.workflow.maxVerifyAttempts = Math.min(v, MAX_VERIFY_ATTEMPTS_CAP)));
  use('workflow.verify_command', str(get(['workflow', 'verify_command'])), (v) => (config.workflow.verifyCommand = v));
  use('workflow.todo_auto_init', bool(get(['workflow', 'todo_auto_init'])), (v) => (config.workflow.todoAutoInit = v));
  return { config, path, problem: null, set };
}

/**
 * Sets values (by key path) in the config file, creating it when missing. A file that does
 * not parse is left untouched (its content is the user's) and the write fails with why.
 */
export function updateProjectConfig(dir: string, values: Array<[string[], unknown]>): string {
  const path = configPath(dir);
  const text = lstatSync(path, { throwIfNoEntry: false }) ? readFileInside(dir, CONFIG_RELATIVE_PATH, { maxBytes: PROJECT_CONFIG_MAX_BYTES, what: 'the project config' }).toString('utf8') : '';
  const doc = parseDocument(text);
  if (doc.errors.length > 0) throw new Error(`${path} is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); fix it first, nothing was changed`);
  try {
    for (const [key, value] of values) doc.setIn(key, value);
  } catch (e) {
    throw new Error(`${path} does not hold a mapping at the top (${(e as Error).message}); fix it first, nothing was changed`);
  }
  // No link on the way (a committed `.flightdeck` → elsewhere), the file replaced, never written through.
  writeFileInside(dir, path, String(doc));
  return path;
}

export interface ConfigEntry {
  key: ConfigKey;
  /** The value in effect; null = not set (the loop falls back: the profile's model, the detected command). */
  value: string | number | boolean | null;
  source: ConfigSource;
  /** The file it came from; null for a default. */
  path: string | null;
}

/** Every key with its value in effect and where that value came from. Pure. */
export function configEntries(c: LoadedConfig): ConfigEntry[] {
  const value: Record<ConfigKey, ConfigEntry['value']> = {
    'agent.profile': c.config.agent.profile,
    'agent.model': c.config.agent.model,
    'workflow.auto_verify_after_edit': c.config.workflow.autoVerifyAfterEdit,
    'workflow.max_verify_attempts': c.config.workflow.maxVerifyAttempts,
    'workflow.verify_command': c.config.workflow.verifyCommand,
    'workflow.todo_auto_init': c.config.workflow.todoAutoInit,
  };
  return CONFIG_KEYS.map((key) => {
    const source = c.sources[key];
    return { key, value: value[key], source, path: source === 'default' ? null : source === CONFIG_RELATIVE_PATH ? c.path : c.coderPath };
  });
}
