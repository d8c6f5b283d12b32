/**
 * Reading the agent's structured answers: the reviewer's fenced ```yaml block `issues:` (a list
 * of {severity, file, line?, description}; `issues: []` is a clean review) and the verifier's
 * block `result: pass|fail` with `items:`. Pure. An answer without a readable block is reported
 * as such (with the reason), never guessed from the prose around it.
 */
import { parse } from 'yaml';
import { z } from 'zod';
import { ReviewIssue, type VerifyItem } from '../../../src-preload/contract/feature-runs';

export type Parsed<T> = { ok: true; value: T } | { ok: false; reason: string };

const FENCE = /```[ \t]*(ya?ml)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g;

/** Every fenced block's body, last first (the final answer usually comes last). */
function fencedBlocks(text: string): string[] {
  const out: string[] = [];
  for (const m of text.matchAll(FENCE)) out.push(m[2] ?? '');
  return out.reverse();
}

function yamlObject(body: string): Record<string, unknown> | null {
  try {
    // maxAliasCount: the text is the model's, an alias bomb must not take the host down.
    const v: unknown = parse(body, { maxAliasCount: 50 });
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    // Not YAML: the caller looks at the next block or reports that none was readable.
    return null;
  }
}

const LooseIssue = z.object({
  severity: z.string().transform((s) => s.trim().toLowerCase()).pipe(ReviewIssue.shape.severity),
  file: z.union([z.string(), z.number()]).transform(String).default(''),
  line: z.union([z.number().int().positive(), z.null()]).optional().transform((v) => v ?? undefined),
  description: z.string().min(1),
});

/** The reviewer's issues. Blocking ones (critical, major) lead to a fix prompt and another round. */
export function parseReviewIssues(text: string): Parsed<ReviewIssue[]> {
  const blocks = fencedBlocks(text);
  if (blocks.length === 0) return { ok: false, reason: 'the answer has no fenced ```yaml block' };
  let reason = 'no fenced block has an "issues:" list';
  for (const body of blocks) {
    const obj = yamlObject(body);
    if (!obj || !('issues' in obj)) continue;
    const list = obj.issues ?? [];
    if (!Array.isArray(list)) {
      reason = '"issues" is not a list';
      continue;
    }
    const issues: ReviewIssue[] = [];
    for (const [i, raw] of list.entries()) {
      const one = LooseIssue.safeParse(raw);
      if (!one.success) {
        const first = one.error.issues[0];
        return { ok: false, reason: `issues[${i}]: ${first ? `${first.path.join('.') || 'entry'}: ${first.message}` : 'invalid'}` };
      }
      issues.push({ severity: one.data.severity, file: one.data.file, description: one.data.description, ...(one.data.line !== undefined ? { line: one.data.line } : {}) });
    }
    return { ok: true, value: issues };
  }
  return { ok: false, reason };
}

export function blockingIssues(issues: readonly ReviewIssue[]): ReviewIssue[] {
  return issues.filter((i) => i.severity === 'critical' || i.severity === 'major');
}

export interface VerifyAnswer {
  result: 'pass' | 'fail';
  items: VerifyItem[];
}

function verdict(v: unknown): 'pass' | 'fail' | null {
  if (v === true) return 'pass';
  if (v === false) return 'fail';
  if (typeof v !== 'string') return null;
  const s = v.trim().toLowerCase();
  if (s === 'pass' || s === 'passed' || s === 'ok') return 'pass';
  if (s === 'fail' || s === 'failed') return 'fail';
  return null;
}

/** The verifier's verdict on the verification plan. */
export function parseVerifyResult(text: string): Parsed<VerifyAnswer> {
  const blocks = fencedBlocks(text);
  if (blocks.length === 0) return { ok: false, reason: 'the answer has no fenced ```yaml block' };
  for (const body of blocks) {
    const obj = yamlObject(body);
    if (!obj || !('result' in obj)) continue;
    const result = verdict(obj.result);
    if (!result) return { ok: false, reason: `"result" must be pass or fail, not ${JSON.stringify(obj.result)}` };
    const items: VerifyItem[] = [];
    const rawItems = Array.isArray(obj.items) ? obj.items : [];
    for (const raw of rawItems) {
      if (typeof raw === 'string') {
        items.push({ item: raw, result });
        continue;
      }
      if (!raw || typeof raw !== 'object') continue;
      const r = raw as Record<string, unknown>;
      const name = [r.item, r.name, r.description, r.check].find((v) => typeof v === 'string') as string | undefined;
      const itemResult = verdict(r.result ?? r.status);
      if (!name || !itemResult) continue;
      items.push({ item: name, result: itemResult, ...(typeof r.note === 'string' ? { note: r.note } : {}) });
    }
    return { ok: true, value: { result, items } };
  }
  return { ok: false, reason: 'no fenced block has a "result:" key' };
}
