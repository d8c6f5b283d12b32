import { lstatSync, realpathSync } from 'node:fs';
import { z } from 'zod';
import { applyPatchInput, PatchInput } from './patch-apply';
import { resolveInRoot, ToolError } from './root-guard';
import { lstatOrNull, notRegularError, readRegularFile, specialKind, writeRegularFile } from './safe-fs';
import { jsonSchema, parseInput } from './schema';
import type { Tool } from './types';

/** Lines returned by one read when no limit is given: a large file is paged, not dumped. */
export const DEFAULT_READ_LINES = 2_000;
/** Files larger than this are refused whole: read them in pages with offset/limit. */
const MAX_READ_BYTES = 4 * 1024 * 1024;
/** Characters per returned line: minified bundles are one enormous line. */
const MAX_LINE_CHARS = 2_000;
/** Larger writes are refused: the model should not be generating files of this size. */
const MAX_WRITE_BYTES = 2 * 1024 * 1024;

export function isBinary(buf: Buffer): boolean {
  return buf.subarray(0, 8_000).includes(0);
}

/**
 * A file's text for editing; a folder, a FIFO/socket/device, a binary or an oversized file is
 * refused with a reason (safe-fs: never opened in a way that can wait).
 */
export async function readTextFile(root: string, abs: string, rel: string): Promise<string> {
  const st = await lstatOrNull(abs);
  if (st?.isDirectory()) throw new ToolError(`${rel} is a directory; use glob to list it.`);
  const buf = await readRegularFile(abs, rel, realpathSync(root), {
    maxBytes: MAX_READ_BYTES,
    tooBig: (size) => `${rel} is ${size} bytes, larger than ${MAX_READ_BYTES}; read it in pages (offset/limit) or grep it.`,
  });
  if (isBinary(buf)) throw new ToolError(`${rel} is a binary file.`);
  return buf.toString('utf8');
}

const ReadInput = z
  .object({
    path: z.string().describe('File to read, relative to the root.'),
    offset: z.number().int().min(1).optional().describe('First line to return (1-based).'),
    limit: z.number().int().min(1).max(10_000).optional().describe(`Number of lines (default ${DEFAULT_READ_LINES}).`),
  })
  .strict();

export const readTool: Tool = {
  name: 'read',
  description: 'Read a text file inside the project root. Returns numbered lines; page long files with offset/limit.',
  inputSchema: jsonSchema(ReadInput),
  async run(raw, ctx) {
    const input = parseInput(ReadInput, raw);
    const p = resolveInRoot(ctx.root, input.path);
    const text = await readTextFile(ctx.root, p.abs, p.rel);
    const lines = text.split('\n');
    if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
    const start = (input.offset ?? 1) - 1;
    const limit = input.limit ?? DEFAULT_READ_LINES;
    const page = lines.slice(start, start + limit);
    const width = String(start + page.length).length;
    const body = page.map((l, i) => `${String(start + i + 1).padStart(width)}\t${l.length > MAX_LINE_CHARS ? l.slice(0, MAX_LINE_CHARS) + ' …[line truncated]' : l}`).join('\n');
    const more = start + page.length < lines.length ? `\n… ${lines.length - start - page.length} more lines (continue with offset ${start + page.length + 1})` : '';
    if (page.length === 0) return { content: `${p.rel} has ${lines.length} lines; nothing at offset ${start + 1}.`, isError: false };
    return { content: body + more, isError: false };
  },
};

const WriteInput = z
  .object({
    path: z.string().describe('File to create or overwrite, relative to the root.'),
    content: z.string().describe('The complete new content of the file.'),
  })
  .strict();

/** What write would leave on disk, for the approval diff. */
export async function previewWrite(root: string, raw: Record<string, unknown>): Promise<{ rel: string; before: string | null; after: string }> {
  const input = parseInput(WriteInput, raw);
  const p = resolveInRoot(root, input.path, { write: true });
  return { rel: p.rel, before: (await lstatOrNull(p.abs)) ? await readTextFile(root, p.abs, p.rel) : null, after: input.content };
}

export const writeTool: Tool = {
  name: 'write',
  description: 'Create or overwrite a file inside the project root with the given content. Prefer patch for changing existing files.',
  inputSchema: jsonSchema(WriteInput),
  async run(raw, ctx) {
    const input = parseInput(WriteInput, raw);
    if (Buffer.byteLength(input.content) > MAX_WRITE_BYTES) throw new ToolError(`The content is larger than ${MAX_WRITE_BYTES} bytes.`);
    const p = resolveInRoot(ctx.root, input.path, { write: true });
    const st = await lstatOrNull(p.abs);
    if (st?.isDirectory()) throw new ToolError(`${p.rel} is a directory.`);
    // Refused before the undo snapshot reads it (a FIFO there would wait for a writer).
    const kind = st ? specialKind(st) : null;
    if (kind) throw notRegularError(p.rel, kind);
    await ctx.beforeWrite(p.rel);
    const { existed } = await writeRegularFile(p.abs, p.rel, realpathSync(ctx.root), input.content);
    const lines = input.content === '' ? 0 : input.content.split('\n').length - (input.content.endsWith('\n') ? 1 : 0);
    return { content: `${existed ? 'Overwrote' : 'Created'} ${p.rel} (${lines} line${lines === 1 ? '' : 's'}).`, isError: false, edited: p.rel };
  },
};

/** What patch would leave on disk, for the approval diff. */
export async function previewPatch(root: string, raw: Record<string, unknown>): Promise<{ rel: string; before: string; after: string }> {
  const input = parseInput(PatchInput, raw);
  const p = resolveInRoot(root, input.path, { write: true });
  if (!(await lstatOrNull(p.abs))) throw new ToolError(`${p.rel} does not exist; create it with write.`);
  const before = await readTextFile(root, p.abs, p.rel);
  return { rel: p.rel, before, after: applyPatchInput(before, input) };
}

export const patchTool: Tool = {
  name: 'patch',
  description:
    'Change an existing file inside the project root. Either "edits": [{search, replace, all?}] (each search must match exactly once unless all is true) or "diff": a unified diff of this one file.',
  inputSchema: jsonSchema(PatchInput),
  async run(raw, ctx) {
    const { rel, before, after } = await previewPatch(ctx.root, raw);
    if (before === after) return { content: `No change: ${rel} already has that content.`, isError: false };
    const p = resolveInRoot(ctx.root, rel, { write: true });
    await ctx.beforeWrite(p.rel);
    await writeRegularFile(p.abs, p.rel, realpathSync(ctx.root), after);
    return { content: `Patched ${p.rel}.`, isError: false, edited: p.rel };
  },
};

/**
 * For the policy: how many names (hard links) the regular file a write/patch would change has;
 * 1 for a new file, anything else or a path that does not resolve. More than one means the same
 * file may also live outside the root. Metadata only (lstat never waits on a FIFO).
 */
export function writeTargetLinks(root: string, tool: string, input: Record<string, unknown>): number {
  if ((tool !== 'write' && tool !== 'patch') || typeof input.path !== 'string') return 1;
  try {
    const st = lstatSync(resolveInRoot(root, input.path, { write: true }).abs);
    return st.isFile() ? st.nlink : 1;
  } catch {
    // Outside the root, missing or unreadable: the tool itself refuses or creates it; no link to warn about.
    return 1;
  }
}
