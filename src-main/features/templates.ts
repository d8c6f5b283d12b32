/**
 * Prompt templates: the built-in ones under `resources/prompts/<stage>/<name>.j2` (init, plan,
 * run, autopilot), rendered with nunjucks (Jinja syntax, as the templates are written). A trusted
 * repository overrides any of them by putting a file with the same relative name in one of its
 * config's `prompts.extra_dirs` (first folder wins), the user for every repository in their own
 * template folder, and the built-in set comes last. `{% include %}`, `{% import %}` and
 * `{% extends %}` resolve through the same search path, so an override can reuse built-in parts.
 *
 * A repository's templates are untrusted input sent to the model: a folder such as `/` in
 * `extra_dirs`, an include reaching outside, or a committed symlink in `.flightdeck/prompts/`
 * would put any file the user can read (a key under `~`) into a prompt. So every template,
 * included ones too, is read by {@link SafeTemplateLoader}: a plain relative name, a repository
 * folder inside the repository, no symlink anywhere below the repository (or the user's folder),
 * a regular file whose real path stays inside, of bounded size. Anything else is refused with
 * an error naming it. An untrusted repository's folders are not searched at all.
 *
 * Failures are FeatureErrors of kind `prompt` naming the template and, for syntax and render
 * errors, its file and line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import nunjucks from 'nunjucks';
import { checkInside, FileTooLargeError, isInside, readFileInside, UnsafePathError } from '../platform/contained-path';
import { appRoot } from '../platform/paths';
import { FeatureError } from './errors';

/** File extension of a template: the Jinja one. */
export const TEMPLATE_EXT = '.j2';
/** `plan/approve`, `run/dev_phase`: a path of lowercase words under the prompts folder, never leaving it. */
const TEMPLATE_NAME_RE = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/;
/**
 * An included name as nunjucks passes it (`plan/system.j2`, `_parts/intro.j2`): relative, no `.`
 * or `..` segment, no backslash, so it can only name a file below a template folder.
 */
const INCLUDE_NAME_RE = /^(?!.*(?:^|\/)\.{1,2}(?:\/|$))[A-Za-z0-9_.-]+(\/[A-Za-z0-9_.-]+)*$/;
/**
 * The largest template read. The built-in ones are under 5 KiB; a template is instructions, and
 * every byte of it goes to the model at every turn, so anything near this is a mistake or an attack.
 */
export const MAX_TEMPLATE_BYTES = 256 * 1024;

/**
 * The built-in templates' folder: `resources/prompts` next to package.json (source checkout and
 * the packaged app, whose package.json sits at the root of its archive with the resources).
 */
export function builtinPromptsDir(): string {
  return join(appRoot(), 'resources', 'prompts');
}

/** One folder templates are looked up in, and the folder no symlink may appear below. */
interface TemplateRoot {
  dir: string;
  /** The repository for its prompt folders, the folder itself for the user's and the built-in set. */
  base: string;
}

export interface PromptTemplatesOptions {
  /**
   * A repository's override folders (absolute, or relative to `root`), searched first in order.
   * Only for a repository the user trusts; each must lie inside `root`.
   */
  repository?: { root: string; dirs: readonly string[] };
  /** The user's own template folder (`<data folder>/prompts`), searched after the repository's. */
  userDir?: string;
  /** The built-in set (tests point it elsewhere). */
  builtinDir?: string;
}

export type PromptContext = Record<string, unknown>;

/**
 * The nunjucks loader of every template, included ones too (see the module comment). Synchronous:
 * templates are small and bounded; `noCache`: a user editing an override sees it at the next render.
 */
export class SafeTemplateLoader {
  constructor(readonly roots: readonly TemplateRoot[]) {}

  /** The first root's file of that name (checked, not read), or null; throws on a refused path. */
  locate(name: string): { file: string; root: TemplateRoot } | null {
    if (!INCLUDE_NAME_RE.test(name)) {
      throw new UnsafePathError(`"${name}" is not a template name Flightdeck reads: templates are named by a relative path inside a template folder (no "..", no absolute path)`, name, name);
    }
    for (const root of this.roots) {
      const file = checkInside(root.base, join(root.dir, name));
      if (existsSync(file)) return { file, root };
    }
    return null;
  }

  getSource(name: string): { src: string; path: string; noCache: boolean } | null {
    const found = this.locate(name);
    if (!found) return null;
    const src = readFileInside(found.root.base, found.file, { maxBytes: MAX_TEMPLATE_BYTES, what: 'prompt template' }).toString('utf8');
    return { src, path: found.file, noCache: true };
  }
}

/**
 * The search path of one repository's override folders: each resolved against the repository and
 * refused when it leaves it (`/`, `../..`, an absolute folder elsewhere) or goes through a symlink.
 */
function repositoryRoots(root: string, dirs: readonly string[]): TemplateRoot[] {
  const base = resolve(root);
  return dirs.map((d) => {
    const dir = resolve(base, d);
    if (!isInside(base, dir)) {
      throw new FeatureError('prompt', `prompts.extra_dirs "${d}" is outside the repository (${base}); a repository's templates must live inside it, e.g. ".flightdeck/prompts"`, { path: join(base, '.flightdeck', 'config.yml') });
    }
    try {
      checkInside(base, dir);
    } catch (e) {
      throw new FeatureError('prompt', `prompts.extra_dirs "${d}" is refused: ${(e as Error).message}`, { path: join(base, '.flightdeck', 'config.yml') }, { cause: e });
    }
    return { dir, base };
  });
}

export class PromptTemplates {
  private readonly env: nunjucks.Environment;
  private readonly loader: SafeTemplateLoader;
  readonly searchPath: readonly string[];

  constructor(o: PromptTemplatesOptions = {}) {
    const builtin = o.builtinDir ?? builtinPromptsDir();
    const roots: TemplateRoot[] = [
      ...(o.repository ? repositoryRoots(o.repository.root, o.repository.dirs) : []),
      ...(o.userDir ? [{ dir: o.userDir, base: o.userDir }] : []),
      { dir: builtin, base: builtin },
    ];
    this.searchPath = roots.map((r) => r.dir);
    this.loader = new SafeTemplateLoader(roots);
    // Prompts are plain text for a model: no HTML escaping. throwOnUndefined turns a misspelt
    // variable into an error naming its line instead of a silently empty hole in the prompt.
    this.env = new nunjucks.Environment(this.loader as unknown as nunjucks.ILoader, { autoescape: false, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true });
  }

  /** The file `name` resolves to (override first), or null when no folder has it. */
  resolve(name: string): string | null {
    checkName(name);
    try {
      return this.loader.locate(name + TEMPLATE_EXT)?.file ?? null;
    } catch (e) {
      throw refused(name, e);
    }
  }

  /** Renders `name` (e.g. `plan/approve`) with `context`; throws a `prompt` FeatureError. */
  render(name: string, context: PromptContext): string {
    const file = this.resolve(name);
    if (!file) {
      throw new FeatureError('prompt', `template "${name}" not found (looked for ${name}${TEMPLATE_EXT} in ${this.searchPath.join(', ')})`);
    }
    try {
      return this.env.render(name + TEMPLATE_EXT, context);
    } catch (e) {
      throw promptError(name, file, e);
    }
  }
}

function refused(name: string, e: unknown): unknown {
  if (e instanceof UnsafePathError || e instanceof FileTooLargeError) {
    return new FeatureError('prompt', `template "${name}" is refused: ${e.message}`, { path: e.path }, { cause: e });
  }
  return e;
}

function checkName(name: string): void {
  if (!TEMPLATE_NAME_RE.test(name)) {
    throw new FeatureError('prompt', `"${name}" is not a template name (lowercase words separated by "/", e.g. "plan/approve")`);
  }
}

/**
 * nunjucks reports `(<file>) [Line L, Column C]\n  <reason>`; the file named there is the one that
 * failed (an included template's own file when the error is inside it). Some compile errors (an
 * unknown filter) come without a line: the first line naming the missing thing is taken then.
 */
function promptError(name: string, file: string, e: unknown): FeatureError {
  const text = e instanceof Error ? e.message : String(e);
  const m = /^\((.+?)\)\s*(?:\[Line (\d+), Column \d+\])?\s*([\s\S]*)$/.exec(text.trim());
  if (m) {
    const path = m[1]!;
    const reason = m[3]!.trim().replace(/\s+/g, ' ').replace(/^Error: /, '');
    const because = reason === 'attempted to output null or undefined value' ? 'a variable used here is not defined' : reason;
    const line = m[2] !== undefined ? Number(m[2]) : lineNaming(path, /not found: (\S+)/.exec(reason)?.[1]);
    return new FeatureError('prompt', `template "${name}" failed to render: ${because}`, { path, ...(line !== undefined ? { line } : {}) }, { cause: e });
  }
  return new FeatureError('prompt', `template "${name}" failed to render: ${text.split('\n')[0]}`, { path: file }, { cause: e });
}

function lineNaming(path: string, what: string | undefined): number | undefined {
  if (what === undefined) return undefined;
  try {
    const i = readFileSync(path, 'utf8').split('\n').findIndex((l) => l.includes(what));
    return i >= 0 ? i + 1 : undefined;
  } catch {
    // The template vanished between rendering and this lookup: the message still names it.
    return undefined;
  }
}

/** Workspace trust's answer for a repository: whether its own prompt templates may be used. */
export type RepositoryTemplatesPolicy = (repoRoot: string) => boolean;

export interface ProjectTemplatesOptions {
  /**
   * Whether the repository's own prompt folders are searched: only when the user trusts the
   * repository (workspace trust decides). Absent or false: the user's folder and the built-in set.
   */
  useRepositoryTemplates?: boolean;
  userDir?: string;
  builtinDir?: string;
}

/** The templates of one project: its `prompts.extra_dirs` (relative to the repository, when trusted) before the built-in set. */
export function projectTemplates(repoRoot: string, extraDirs: readonly string[], o: ProjectTemplatesOptions = {}): PromptTemplates {
  return new PromptTemplates({
    ...(o.useRepositoryTemplates ? { repository: { root: repoRoot, dirs: extraDirs } } : {}),
    ...(o.userDir ? { userDir: o.userDir } : {}),
    ...(o.builtinDir ? { builtinDir: o.builtinDir } : {}),
  });
}
