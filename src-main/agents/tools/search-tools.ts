import picomatch from 'picomatch';
import { z } from 'zod';
import { runSearchJob, SearchTimeoutError, type SearchJob } from './search-worker';
import { resolveInRoot, ToolError } from './root-guard';
import { lstatOrNull, notRegularError, specialKind } from './safe-fs';
import { jsonSchema, parseInput } from './schema';
import type { Tool } from './types';

/** Paths returned by one glob: more than this is not readable by the model anyway. */
const MAX_GLOB_RESULTS = 500;
/** Matching lines returned by one grep. */
const MAX_GREP_MATCHES = 300;
/** Files visited per search, so a huge tree cannot stall a turn. */
const MAX_WALK_FILES = 50_000;
/** Files larger than this are skipped by grep (generated bundles, data dumps). */
const MAX_GREP_FILE_BYTES = 2 * 1024 * 1024;
/**
 * The longest a glob or grep may take. Long enough for a large monorepo; a pattern that backtracks
 * catastrophically is stopped here instead of freezing the app.
 */
const SEARCH_TIMEOUT_MS = 20_000;
/** Folders skipped unless the pattern names them: history and installed dependencies. */
const SKIPPED_DIRS = new Set(['.git', 'node_modules']);

/** Runs a search in the worker, turning a deadline or a cancel into a message for the model. */
async function search(job: SearchJob, signal: AbortSignal): Promise<{ lines: string[]; more: boolean }> {
  try {
    return await runSearchJob(job, { signal, timeoutMs: SEARCH_TIMEOUT_MS });
  } catch (e) {
    if (e instanceof SearchTimeoutError) throw new ToolError(`${job.mode} stopped: ${e.message}. Use a simpler pattern or a narrower path.`);
    throw e;
  }
}

const GlobInput = z
  .object({
    pattern: z.string().min(1).describe('Glob pattern, e.g. "src/**/*.ts" or "**/package.json".'),
    path: z.string().optional().describe('Folder to search in, relative to the root (default: the root).'),
  })
  .strict();

export const globTool: Tool = {
  name: 'glob',
  description: 'List files inside the project root matching a glob pattern (.git and node_modules skipped unless named).',
  inputSchema: jsonSchema(GlobInput),
  async run(raw, ctx) {
    const input = parseInput(GlobInput, raw);
    const base = resolveInRoot(ctx.root, input.path ?? '.');
    if (!(await lstatOrNull(base.abs))?.isDirectory()) throw new ToolError(`${base.rel} is not a folder.`);
    const includeSkipped = /node_modules|\.git\b/.test(input.pattern);
    const realRoot = resolveInRoot(ctx.root, '.').abs;
    const re = picomatch.makeRe(input.pattern, { dot: true });
    const { lines: out, more } = await search(
      {
        mode: 'glob',
        realRoot,
        baseRel: base.rel,
        baseIsDir: true,
        pattern: '',
        flags: '',
        glob: { source: re.source, flags: re.flags },
        globFrom: base.rel,
        maxMatches: MAX_GLOB_RESULTS,
        maxFiles: MAX_WALK_FILES,
        maxFileBytes: 0,
        skippedDirs: includeSkipped ? [] : [...SKIPPED_DIRS],
      },
      ctx.signal,
    );
    if (out.length === 0) return { content: `No files match ${input.pattern}.`, isError: false };
    return { content: out.join('\n') + (more ? `\n… more than ${MAX_GLOB_RESULTS} matches; narrow the pattern.` : ''), isError: false };
  },
};

const GrepInput = z
  .object({
    pattern: z.string().min(1).describe('JavaScript regular expression to search for.'),
    path: z.string().optional().describe('Folder or file to search, relative to the root (default: the root).'),
    glob: z.string().optional().describe('Only files whose root-relative path matches this glob, e.g. "**/*.ts".'),
    ignoreCase: z.boolean().optional(),
  })
  .strict();

export const grepTool: Tool = {
  name: 'grep',
  description: 'Search file contents inside the project root with a regular expression. Returns path:line: text.',
  inputSchema: jsonSchema(GrepInput),
  async run(raw, ctx) {
    const input = parseInput(GrepInput, raw);
    let re: RegExp;
    try {
      re = new RegExp(input.pattern, input.ignoreCase ? 'i' : '');
    } catch (e) {
      throw new ToolError(`Invalid regular expression: ${(e as Error).message}`);
    }
    const base = resolveInRoot(ctx.root, input.path ?? '.');
    const baseStat = await lstatOrNull(base.abs);
    if (!baseStat) throw new ToolError(`${base.rel} does not exist.`);
    // The walk only ever opens regular files; a FIFO, socket or device named directly is refused here.
    const kind = specialKind(baseStat);
    if (kind) throw notRegularError(base.rel, kind);
    const realRoot = resolveInRoot(ctx.root, '.').abs;
    const glob = input.glob ? picomatch.makeRe(input.glob, { dot: true }) : null;
    const { lines: out, more } = await search(
      {
        mode: 'grep',
        realRoot,
        baseRel: base.rel,
        baseIsDir: baseStat.isDirectory(),
        pattern: input.pattern,
        flags: re.flags,
        glob: glob ? { source: glob.source, flags: glob.flags } : null,
        maxMatches: MAX_GREP_MATCHES,
        maxFiles: MAX_WALK_FILES,
        maxFileBytes: MAX_GREP_FILE_BYTES,
        skippedDirs: [...SKIPPED_DIRS],
      },
      ctx.signal,
    );
    if (out.length === 0) return { content: `No matches for /${input.pattern}/.`, isError: false };
    return { content: out.join('\n') + (more ? `\n… more than ${MAX_GREP_MATCHES} matches; narrow the search.` : ''), isError: false };
  },
};
