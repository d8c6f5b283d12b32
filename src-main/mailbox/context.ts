/**
 * Layered context: Markdown files added to a mailbox task's prompt, from three folders read in
 * this order — global (every project), project (`<workspace>/.context/`, else the mailbox's
 * `context/project/`) and task (`context/task/<task id>/`). Each file may start with a front
 * matter `title`, `priority` (higher first within its layer), `tags` and `enabled` (false
 * leaves it out). See docs/mailbox.md.
 *
 * `composeContext` is pure (files in, prompt text out); `readContextLayers` reads the folders.
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { parseDocument } from 'yaml';
import { FileTooLargeError, readFileInside } from '../platform/contained-path';
import { MAX_YAML_ALIASES } from './command-file';
import { mailboxLayout } from './layout';

export const CONTEXT_LAYERS = ['global', 'project', 'task'] as const;
export type ContextLayer = (typeof CONTEXT_LAYERS)[number];

/** A context file larger than this is left out with a warning: context is notes, not a data dump, and every byte goes to the model on every task. */
export const MAX_CONTEXT_FILE_BYTES = 256 * 1024;

/** The project layer inside a workspace (`workspace/.context/`). */
export const WORKSPACE_CONTEXT_FOLDER = '.context';

export interface ContextFile {
  layer: ContextLayer;
  /** The file's name inside its layer folder. */
  name: string;
  path: string;
  title: string;
  priority: number;
  tags: string[];
  enabled: boolean;
  body: string;
  /** Problems with the front matter (the file is still used with the defaults, unless it cannot be read at all). */
  warnings: string[];
}

export interface ContextFolders {
  global: string | null;
  project: string | null;
  task: string | null;
}

export interface ComposedContext {
  /** The files in prompt order, disabled ones included (marked) so a viewer can list them. */
  files: ContextFile[];
  /** The text added to the prompt ('' when no enabled file). */
  text: string;
  /** Its size in UTF-8 bytes. */
  bytes: number;
  warnings: string[];
}

const FRONT_MATTER = /^\uFEFF?---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;

/** Parses one context file's text. Never throws: a bad front matter becomes a warning and the defaults. */
export function parseContextFile(layer: ContextLayer, name: string, path: string, text: string): ContextFile {
  const out: ContextFile = { layer, name, path, title: name.replace(/\.md$/i, ''), priority: 0, tags: [], enabled: true, body: text.replace(/^\uFEFF/, ''), warnings: [] };
  const m = FRONT_MATTER.exec(text);
  if (!m) return out;
  out.body = text.slice(m[0].length);
  const doc = parseDocument(m[1]!, { uniqueKeys: true });
  if (doc.errors.length > 0) {
    out.warnings.push(`${name}: the front matter is not valid YAML (${doc.errors[0]!.message.split('\n')[0]}); defaults used.`);
    return out;
  }
  let fm: unknown;
  try {
    fm = doc.toJS({ maxAliasCount: MAX_YAML_ALIASES });
  } catch (e) {
    out.warnings.push(`${name}: the front matter cannot be read (${(e as Error).message}); defaults used.`);
    return out;
  }
  if (fm === null || fm === undefined) return out;
  if (typeof fm !== 'object' || Array.isArray(fm)) {
    out.warnings.push(`${name}: the front matter is not "key: value" lines; defaults used.`);
    return out;
  }
  const v = fm as Record<string, unknown>;
  if (v.title !== undefined) {
    if (typeof v.title === 'string' && v.title.trim() !== '') out.title = v.title.trim();
    else out.warnings.push(`${name}: title must be text.`);
  }
  if (v.priority !== undefined) {
    if (typeof v.priority === 'number' && Number.isFinite(v.priority)) out.priority = v.priority;
    else out.warnings.push(`${name}: priority must be a number; 0 used.`);
  }
  if (v.tags !== undefined) {
    if (Array.isArray(v.tags) && v.tags.every((t) => typeof t === 'string' || typeof t === 'number')) out.tags = v.tags.map(String);
    else if (typeof v.tags === 'string') out.tags = v.tags.split(',').map((t) => t.trim()).filter(Boolean);
    else out.warnings.push(`${name}: tags must be a list such as [coding, standards].`);
  }
  if (v.enabled !== undefined) {
    if (typeof v.enabled === 'boolean') out.enabled = v.enabled;
    else out.warnings.push(`${name}: enabled must be true or false; the file is used.`);
  }
  return out;
}

/** Layer order, then priority (higher first), then file name: the same files always compose to the same text. */
export function orderContextFiles(files: readonly ContextFile[]): ContextFile[] {
  return [...files].sort((a, b) => CONTEXT_LAYERS.indexOf(a.layer) - CONTEXT_LAYERS.indexOf(b.layer) || b.priority - a.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

const LAYER_HEADINGS: Record<ContextLayer, string> = { global: 'Global', project: 'Project', task: 'Task' };

/** The prompt text of the enabled files, in order, each under a heading naming its layer and title. */
export function composeContext(files: readonly ContextFile[]): ComposedContext {
  const ordered = orderContextFiles(files);
  const parts: string[] = [];
  for (const f of ordered) {
    if (!f.enabled) continue;
    const body = f.body.trim();
    if (body === '') continue;
    parts.push(`## ${LAYER_HEADINGS[f.layer]} context: ${f.title}\n\n${body}`);
  }
  const text = parts.length === 0 ? '' : `# Context\n\n${parts.join('\n\n')}\n`;
  return { files: ordered, text, bytes: Buffer.byteLength(text, 'utf8'), warnings: ordered.flatMap((f) => f.warnings) };
}

/** The folders of each layer for a task of a mailbox. */
export function contextFolders(o: { globalDir: string | null; root: string; workspace: string | null; taskId: string | null }): ContextFolders {
  const layout = mailboxLayout(o.root);
  const inWorkspace = o.workspace ? join(o.workspace, WORKSPACE_CONTEXT_FOLDER) : null;
  return {
    global: o.globalDir,
    // Present as anything (a symlink too): a link is then refused by its readers and writers,
    // naming it, rather than silently replaced by the mailbox's own folder.
    project: inWorkspace && presentAsAnything(inWorkspace) ? inWorkspace : layout.folders.contextProject,
    task: o.taskId ? layout.taskContext(o.taskId) : null,
  };
}

function presentAsAnything(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    // Missing (or unreadable, which reading would report the same way): the fallback folder is used.
    return false;
  }
}

/**
 * Reads the `*.md` files of every layer (a missing folder is an empty layer; unreadable files
 * become warnings). A layer folder that is a symlink, and a file that is a symlink or not a
 * regular file, are left out with a warning: a workspace is written by the agent (or a
 * repository's author), and a link there would put any file of the user's into the prompt.
 */
export function readContextFiles(folders: ContextFolders): { files: ContextFile[]; warnings: string[] } {
  const files: ContextFile[] = [];
  const warnings: string[] = [];
  for (const layer of CONTEXT_LAYERS) {
    const dir = folders[layer];
    if (!dir) continue;
    try {
      if (lstatSync(dir).isSymbolicLink()) {
        warnings.push(`${layer}: ${dir} is a symbolic link; its files are not read (context is read only from regular files inside the folder).`);
        continue;
      }
    } catch {
      // Missing: readdirSync below says so the way the rest of this loop expects.
    }
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT' || (e as NodeJS.ErrnoException).code === 'ENOTDIR') continue;
      throw e;
    }
    for (const name of names.sort()) {
      if (!name.toLowerCase().endsWith('.md') || name.startsWith('.')) continue;
      const path = join(dir, name);
      let buf: Buffer;
      try {
        // No symlink, no FIFO or device named *.md, nothing over the limit (checked before reading).
        buf = readFileInside(dir, path, { maxBytes: MAX_CONTEXT_FILE_BYTES, what: 'context file' });
      } catch (e) {
        if (e instanceof FileTooLargeError) warnings.push(`${layer}/${name}: left out, it is ${e.size} bytes (at most ${MAX_CONTEXT_FILE_BYTES}).`);
        else warnings.push(`${layer}/${name}: not read (${(e as Error).message}).`);
        continue;
      }
      files.push(parseContextFile(layer, name, path, buf.toString('utf8')));
    }
  }
  return { files, warnings };
}

/** Reads and composes a task's context. */
export function loadContext(folders: ContextFolders): ComposedContext {
  const { files, warnings } = readContextFiles(folders);
  const c = composeContext(files);
  return { ...c, warnings: [...warnings, ...c.warnings] };
}
