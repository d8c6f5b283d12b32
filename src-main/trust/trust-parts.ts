/**
 * The parts of a repository that make Flightdeck run or read something on the repository's say-so,
 * read from one checkout into a flat list of items (what the user reviews), and the pure
 * functions over such lists: the fingerprint (SHA-256 of their canonical form) and the
 * difference between two of them (what changed since the user trusted the repository).
 *
 * What counts (docs/security.md lists the same):
 * - `.flightdeck/config.yml`: `worktree.setup` (commands run in every new worktree),
 *   `worktree.copy` (files copied from the main checkout into worktrees), `checks` (commands run
 *   after each feature phase), `prompts.extra_dirs` (folders read as prompt templates) and
 *   `agent.placement` (container image, engine, network, GPUs, resources);
 * - the files of the prompt template folders inside the repository (`.flightdeck/prompts/` by
 *   default), so an edited or added template is asked again;
 * - the mailbox's `.context/` files and `.clauderc` (text sent to the model as instructions);
 * - `.mcp.json` (MCP servers it suggests: offered only while trusted, and each one is used only
 *   once the user adds it).
 *
 * Reading never follows a symbolic link (a link is an item of its own, naming its target) and
 * never reads a file past {@link MAX_HASHED_BYTES}, a folder past {@link MAX_FOLDER_ENTRIES}.
 */
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readlinkSync } from 'node:fs';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { TrustChange, TrustItem } from '../../src-preload/contract';
import { readFileInside } from '../platform/contained-path';

export const CONFIG_RELATIVE = '.flightdeck/config.yml';
/** The prompt folder a project has when its config names none (the config's own default). */
export const DEFAULT_PROMPT_DIR = '.flightdeck/prompts';
export const CLAUDERC = '.clauderc';
export const CONTEXT_DIR = '.context';
export const MCP_JSON = '.mcp.json';
/** A config.yml larger than this is not a config anyone wrote by hand: it is an item of its own, never parsed. */
export const MAX_CONFIG_BYTES = 1024 * 1024;
/** Files are hashed up to this size; a larger one is named with its size only (and is changed when its size is). */
export const MAX_HASHED_BYTES = 1024 * 1024;
/** Entries listed per folder walk: a prompt folder holds dozens of templates, not thousands. */
export const MAX_FOLDER_ENTRIES = 500;
/** Folder depth walked under a prompt folder (`run/`, `plan/` and their includes). */
const MAX_DEPTH = 4;

const CONFIG_LABEL = 'in .flightdeck/config.yml';

function text(v: unknown): string {
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/** lstat that answers null for a path that is absent or cannot be looked at. */
function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    // Absent (or not ours to look at): nothing there to trust.
    return null;
  }
}

function linkTarget(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    // A link that cannot be read is still listed, as a link to something unknown.
    return '?';
  }
}

/**
 * `path` as a regular file inside `checkout`, opened without following a link (the lstat before
 * it is only what the item says; a link swapped in afterwards is not read) and of at most `max`.
 */
function readOrNull(checkout: string, path: string, max: number): Buffer | null {
  try {
    return readFileInside(checkout, path, { maxBytes: max });
  } catch {
    // Vanished, swapped for a link or a folder, or grown past the limit: named as unreadable.
    return null;
  }
}

function inside(parent: string, child: string): boolean {
  const r = relative(parent, child);
  return r === '' || (!r.startsWith(`..${sep}`) && r !== '..' && !isAbsolute(r));
}

function fileItem(checkout: string, abs: string, key: string, label: string): TrustItem | null {
  const rel = relative(checkout, abs).split(sep).join('/');
  const st = lstatOrNull(abs);
  if (!st) return null;
  if (st.isSymbolicLink()) return { key, kind: 'file', label, value: `${rel}: symbolic link → ${linkTarget(abs)}` };
  if (!st.isFile()) return { key, kind: 'file', label, value: `${rel}: not a regular file` };
  if (st.size > MAX_HASHED_BYTES) return { key, kind: 'file', label, value: `${rel}: ${st.size} bytes (too large to read)` };
  const buf = readOrNull(checkout, abs, MAX_HASHED_BYTES);
  if (!buf) return { key, kind: 'file', label, value: `${rel}: unreadable` };
  return { key, kind: 'file', label, value: `${rel}: ${buf.length} bytes, sha256 ${createHash('sha256').update(buf).digest('hex')}` };
}

/** The item of one file as the parts list names it (`file:<path in the checkout>`); null when it does not exist. */
export function fileItemOf(checkout: string, abs: string): TrustItem | null {
  return fileItem(checkout, abs, `file:${relative(checkout, abs).split(sep).join('/')}`, '');
}

/** Every file under `dir` (inside the checkout), without following links; capped. */
function folderItems(checkout: string, dir: string, label: string, depth = 0, budget = { left: MAX_FOLDER_ENTRIES }): TrustItem[] {
  const top = lstatOrNull(dir);
  const relDir = relative(checkout, dir).split(sep).join('/');
  if (!top) return [];
  if (top.isSymbolicLink()) return [{ key: `file:${relDir}`, kind: 'file', label, value: `${relDir}: symbolic link → ${linkTarget(dir)}` }];
  if (!top.isDirectory()) return [];
  let names: string[];
  try {
    names = readdirSync(dir).sort();
  } catch {
    // A folder that cannot be listed: named, so its state is part of what is trusted.
    return [{ key: `file:${relDir}/`, kind: 'problem', label, value: `${relDir}/: cannot be listed` }];
  }
  const out: TrustItem[] = [];
  for (const name of names) {
    if (budget.left-- <= 0) {
      out.push({ key: `file:${relDir}/…`, kind: 'problem', label, value: `${relDir}: more than ${MAX_FOLDER_ENTRIES} entries (the rest not listed)` });
      return out;
    }
    const abs = join(dir, name);
    const rel = relative(checkout, abs).split(sep).join('/');
    const st = lstatOrNull(abs);
    if (!st) continue;
    if (st.isDirectory()) {
      if (depth < MAX_DEPTH) out.push(...folderItems(checkout, abs, label, depth + 1, budget));
      else out.push({ key: `file:${rel}/`, kind: 'problem', label, value: `${rel}/: nested too deep (not listed)` });
      continue;
    }
    const item = fileItem(checkout, abs, `file:${rel}`, label);
    if (item) out.push(item);
  }
  return out;
}

/** What the config's raw YAML says about the parts that count (lenient: a config with a typo elsewhere still has its parts read). */
function configItems(raw: unknown): { items: TrustItem[]; promptDirs: string[] } {
  const items: TrustItem[] = [];
  const doc = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  const obj = (v: unknown) => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
  const list = (key: string, v: unknown, kind: TrustItem['kind'], label: string) => {
    if (v === undefined) return;
    if (!Array.isArray(v)) return void items.push({ key, kind, label, value: text(v) });
    v.forEach((c, i) => items.push({ key: `${key}[${i}]`, kind, label, value: text(c) }));
  };
  const worktree = obj(doc.worktree);
  list('worktree.setup', worktree?.setup, 'command', `worktree.setup ${CONFIG_LABEL}: run in every new worktree`);
  list('worktree.copy', worktree?.copy, 'setting', `worktree.copy ${CONFIG_LABEL}: files copied from the main checkout into new worktrees`);
  list('checks', doc.checks, 'command', `checks ${CONFIG_LABEL}: run after each feature phase`);
  const prompts = obj(doc.prompts);
  const extra = prompts?.extra_dirs;
  list('prompts.extra_dirs', extra, 'folder', `prompts.extra_dirs ${CONFIG_LABEL}: read as prompt templates`);
  const placement = obj(obj(doc.agent)?.placement);
  if (obj(doc.agent)?.placement !== undefined && !placement) items.push({ key: 'agent.placement', kind: 'setting', label: `agent.placement ${CONFIG_LABEL}`, value: text(obj(doc.agent)?.placement) });
  for (const k of Object.keys(placement ?? {}).sort()) {
    items.push({ key: `agent.placement.${k}`, kind: k === 'image' ? 'image' : 'setting', label: `agent.placement ${CONFIG_LABEL}: where feature runs and mailbox tasks work`, value: text(placement![k]) });
  }
  // Merging without the user is the repository's to ask only once trusted (an agent's PR merged unreviewed).
  const pr = obj(doc.pr);
  if (pr?.auto_merge !== undefined && pr.auto_merge !== 'off') items.push({ key: 'pr.auto_merge', kind: 'setting', label: `pr.auto_merge ${CONFIG_LABEL}: a green, approved pull request is merged without asking`, value: text(pr.auto_merge) });
  const promptDirs = Array.isArray(extra) ? extra.filter((d): d is string => typeof d === 'string' && d.trim() !== '') : extra === undefined ? [DEFAULT_PROMPT_DIR] : [];
  return { items, promptDirs };
}

/**
 * The trust items of one checkout (a main checkout or a worktree), in a stable order. Never
 * throws for what the repository holds: whatever cannot be read is an item saying so.
 * Synchronous and bounded (a config of at most 1 MiB, at most 500 entries per folder, files
 * hashed up to 1 MiB): the template loader asks at every render.
 */
export function readTrustItems(checkout: string): TrustItem[] {
  const items: TrustItem[] = [];
  let promptDirs = [DEFAULT_PROMPT_DIR];
  const cfg = join(checkout, CONFIG_RELATIVE);
  const st = lstatOrNull(cfg);
  if (st) {
    const label = '.flightdeck/config.yml';
    if (st.isSymbolicLink()) items.push({ key: 'config', kind: 'problem', label, value: `symbolic link → ${linkTarget(cfg)}` });
    else if (!st.isFile()) items.push({ key: 'config', kind: 'problem', label, value: 'not a regular file' });
    else if (st.size > MAX_CONFIG_BYTES) items.push({ key: 'config', kind: 'problem', label, value: `${st.size} bytes: too large to read` });
    else {
      const buf = readOrNull(checkout, cfg, MAX_CONFIG_BYTES);
      const body = buf ? buf.toString('utf8') : null;
      let raw: unknown = null;
      let problem: string | null = body === null ? 'unreadable' : null;
      if (body !== null) {
        try {
          raw = parseYaml(body, { maxAliasCount: 100 });
        } catch (e) {
          problem = `not valid YAML (${(e as Error).message.split('\n')[0]}); sha256 ${createHash('sha256').update(body).digest('hex')}`;
        }
      }
      if (problem) items.push({ key: 'config', kind: 'problem', label, value: problem });
      else {
        const c = configItems(raw);
        items.push(...c.items);
        promptDirs = c.promptDirs;
      }
    }
  }
  const seen = new Set<string>();
  for (const d of promptDirs) {
    const abs = isAbsolute(d) ? d : resolve(checkout, d);
    if (!inside(checkout, abs)) {
      // Never walked (it could be `/`): named, and refused by the template loader.
      items.push({ key: `folder:${d}`, kind: 'folder', label: 'a prompt template folder outside the repository', value: abs });
      continue;
    }
    if (seen.has(abs)) continue;
    seen.add(abs);
    items.push(...folderItems(checkout, abs, 'a prompt template (overrides a built-in one)'));
  }
  items.push(...folderItems(checkout, join(checkout, CONTEXT_DIR), 'mailbox context (.context/): sent to the model as instructions'));
  for (const [name, label] of [
    [CLAUDERC, '.clauderc: its systemPrompt is sent to the model as instructions'],
    [MCP_JSON, '.mcp.json: MCP servers it suggests (offered on the project page, each used only once you add it)'],
  ] as const) {
    const item = fileItem(checkout, join(checkout, name), `file:${name}`, label);
    if (item) items.push(item);
  }
  return items;
}

/** The canonical form of a list of items: sorted by key, only the fields that mean something. */
export function canonical(items: readonly TrustItem[]): string {
  const sorted = [...items].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return JSON.stringify(sorted.map((i) => [i.key, i.kind, i.value]));
}

/** SHA-256 (hex) of the canonical form: equal exactly when the same things would run and be read. */
export function fingerprintOf(items: readonly TrustItem[]): string {
  return createHash('sha256').update(canonical(items)).digest('hex');
}

/** What differs from `before` (the trusted snapshot) to `after` (what the checkout holds now). */
export function diffItems(before: readonly TrustItem[], after: readonly TrustItem[]): TrustChange[] {
  const old = new Map(before.map((i) => [i.key, i]));
  const now = new Map(after.map((i) => [i.key, i]));
  const out: TrustChange[] = [];
  for (const [key, a] of now) {
    const b = old.get(key);
    if (!b) out.push({ key, kind: a.kind, label: a.label, change: 'added', before: null, after: a.value });
    else if (b.value !== a.value || b.kind !== a.kind) out.push({ key, kind: a.kind, label: a.label, change: 'changed', before: b.value, after: a.value });
  }
  for (const [key, b] of old) if (!now.has(key)) out.push({ key, kind: b.kind, label: b.label, change: 'removed', before: b.value, after: null });
  return out.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
}
