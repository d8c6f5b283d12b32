/**
 * The patch tool's edit formats, applied in memory (so the approval dialog can show the
 * diff before anything is written). Two forms:
 * - `edits`: search/replace pairs; each `search` must occur exactly once unless `all` is set,
 *   which keeps the model from editing the wrong one of two similar places.
 * - `diff`: a unified diff of the one file, applied strictly (no fuzz) with the `diff` package.
 */
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff';
import { z } from 'zod';
import { ToolError } from './root-guard';

export const PatchInput = z
  .object({
    path: z.string().describe('File to change, relative to the root.'),
    edits: z
      .array(
        z
          .object({
            search: z.string().min(1).describe('Exact text to find (include enough context to be unique).'),
            replace: z.string().describe('Replacement text.'),
            all: z.boolean().optional().describe('Replace every occurrence instead of requiring exactly one.'),
          })
          .strict(),
      )
      .min(1)
      .optional()
      .describe('Search/replace edits applied in order.'),
    diff: z.string().min(1).optional().describe('Alternatively, a unified diff of this one file.'),
  })
  .strict()
  .refine((v) => (v.edits === undefined) !== (v.diff === undefined), 'give either edits or diff');
export type PatchInput = z.infer<typeof PatchInput>;

function countOf(hay: string, needle: string): number {
  let n = 0;
  for (let i = hay.indexOf(needle); i >= 0; i = hay.indexOf(needle, i + needle.length)) n++;
  return n;
}

export function applyPatchInput(before: string, input: PatchInput): string {
  if (input.edits) {
    let text = before;
    input.edits.forEach((e, i) => {
      const n = countOf(text, e.search);
      if (n === 0) throw new ToolError(`Edit ${i + 1}: the search text was not found in ${input.path}. Read the file again and copy the text exactly.`);
      if (n > 1 && !e.all) throw new ToolError(`Edit ${i + 1}: the search text occurs ${n} times in ${input.path}; add context to make it unique or set "all": true.`);
      text = e.all ? text.split(e.search).join(e.replace) : text.replace(e.search, () => e.replace);
    });
    return text;
  }
  let patches;
  try {
    patches = parsePatch(input.diff!);
  } catch (e) {
    throw new ToolError(`The diff could not be parsed: ${(e as Error).message}`);
  }
  if (patches.length !== 1) throw new ToolError(`The diff must change exactly one file (it has ${patches.length}).`);
  const out = applyPatch(before, patches[0]!);
  if (out === false) throw new ToolError(`The diff does not apply to the current ${input.path} (context lines differ). Read the file again and regenerate the diff, or use edits.`);
  return out;
}

/** The unified diff shown in approvals. */
export function previewDiff(rel: string, before: string | null, after: string): string {
  return createTwoFilesPatch(before === null ? '/dev/null' : `a/${rel}`, `b/${rel}`, before ?? '', after, undefined, undefined, { context: 3 });
}
