/**
 * Prompt templates: the built-in ones under `resources/prompts/<stage>/<name>.j2` (init, plan,
 * run), rendered with nunjucks (Jinja syntax, as the templates are written). A project overrides
 * any of them by putting a file with the same relative name in one of its config's
 * `prompts.extra_dirs` (first folder wins, the built-in set comes last), and `{% include %}` /
 * `{% extends %}` resolve through the same search path, so an override can reuse built-in parts.
 *
 * Failures are FeatureErrors of kind `prompt` naming the template and, for syntax and render
 * errors, its file and line.
 */
import { existsSync, readFileSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import nunjucks from 'nunjucks';
import { appRoot } from '../platform/paths';
import { FeatureError } from './errors';

/** File extension of a template: the Jinja one. */
export const TEMPLATE_EXT = '.j2';
/** `plan/approve`, `run/dev_phase`: a path of lowercase words under the prompts folder, never leaving it. */
const TEMPLATE_NAME_RE = /^[a-z0-9_-]+(\/[a-z0-9_-]+)*$/;

/**
 * The built-in templates' folder: `resources/prompts` next to package.json (source checkout and
 * the packaged app, whose package.json sits at the root of its archive with the resources).
 */
export function builtinPromptsDir(): string {
  return join(appRoot(), 'resources', 'prompts');
}

export interface PromptTemplatesOptions {
  /** Override folders, searched in order before the built-in set (absolute paths). */
  extraDirs?: readonly string[];
  /** The built-in set (tests point it elsewhere). */
  builtinDir?: string;
}

export type PromptContext = Record<string, unknown>;

export class PromptTemplates {
  private readonly env: nunjucks.Environment;
  readonly searchPath: readonly string[];

  constructor(o: PromptTemplatesOptions = {}) {
    // A missing override folder is normal (the default `.flightdeck/prompts` rarely exists).
    const extra = (o.extraDirs ?? []).filter((d) => existsSync(d));
    this.searchPath = [...extra, o.builtinDir ?? builtinPromptsDir()];
    // noCache: a user editing an override sees it at the next render, without a restart.
    const loader = new nunjucks.FileSystemLoader([...this.searchPath], { noCache: true });
    // Prompts are plain text for a model: no HTML escaping. throwOnUndefined turns a misspelt
    // variable into an error naming its line instead of a silently empty hole in the prompt.
    this.env = new nunjucks.Environment(loader, { autoescape: false, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true });
  }

  /** The file `name` resolves to (override first), or null when no folder has it. */
  resolve(name: string): string | null {
    checkName(name);
    for (const dir of this.searchPath) {
      const file = join(dir, name + TEMPLATE_EXT);
      if (existsSync(file)) return file;
    }
    return null;
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

/** The templates of one project: its `prompts.extra_dirs` (relative to the repository) before the built-in set. */
export function projectTemplates(repoRoot: string, extraDirs: readonly string[], builtinDir?: string): PromptTemplates {
  return new PromptTemplates({ extraDirs: extraDirs.map((d) => (isAbsolute(d) ? d : resolve(repoRoot, d))), builtinDir });
}
