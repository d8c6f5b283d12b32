/**
 * The change scope an Implementation Contract (`ai/contracts/current.md`) declares, and the
 * check that a run stayed inside it.
 *
 * How a contract declares scope (Markdown, any heading level, headings case-insensitive):
 *
 *     ## Allowed paths            (also: "In scope", "Scope", "允许修改", "变更范围")
 *     - `src/parser/**`
 *     - `test/parser/**`
 *
 *     ## Out of scope             (also: "Forbidden paths", "Not in scope", "禁止修改", "范围外")
 *     - `src/legacy/**`
 *
 * Each list item contributes its back-quoted globs, or, without back quotes, its first word
 * when that word looks like a path (contains `/`, `*` or `.`); prose items are ignored. Globs
 * are picomatch globs relative to `cd`; `dir/` means `dir/**`. A changed path violates the
 * contract when it matches an out-of-scope glob, or when allowed globs exist and it matches
 * none of them. Without either section the contract declares no path scope.
 */
import picomatch from 'picomatch';

export interface ContractScope {
  allowed: string[];
  forbidden: string[];
}

export interface ContractSections {
  scope: ContractScope;
  goal: string | null;
  assumptions: string | null;
  acceptance: string | null;
}

const ALLOWED_HEADING = /^(allowed paths?|in[- ]scope|scope|change scope|允许修改.*|变更范围.*|修改范围.*)$/i;
const FORBIDDEN_HEADING = /^(out[- ]of[- ]scope|forbidden paths?|not in scope|禁止修改.*|范围外.*|不得修改.*)$/i;
const GOAL_HEADING = /^(goal|goals|objective|目标.*)$/i;
const ASSUMPTIONS_HEADING = /^(assumptions?|open questions|assumptions? (and|&) open questions|假设.*)$/i;
const ACCEPTANCE_HEADING = /^(acceptance( criteria)?|验收.*)$/i;

interface Section {
  heading: string;
  lines: string[];
}

function sections(markdown: string): Section[] {
  const out: Section[] = [];
  let current: Section | null = null;
  let fence = false;
  for (const line of markdown.split(/\r?\n/)) {
    if (/^\s*(```|~~~)/.test(line)) fence = !fence;
    const heading = fence ? null : /^\s{0,3}#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (heading) {
      current = { heading: heading[1]!.replace(/[*_`:：]/g, '').trim(), lines: [] };
      out.push(current);
    } else if (current) {
      current.lines.push(line);
    }
  }
  return out;
}

/** Globs of one list item (see the module comment). */
export function itemGlobs(item: string): string[] {
  const quoted = [...item.matchAll(/`([^`]+)`/g)].map((m) => m[1]!.trim()).filter((g) => g !== '');
  if (quoted.length > 0) return quoted;
  const first = item.trim().split(/\s+/)[0] ?? '';
  return /[/*.]/.test(first) ? [first.replace(/[,;，；]$/, '')] : [];
}

function listGlobs(lines: readonly string[]): string[] {
  const globs: string[] = [];
  for (const line of lines) {
    const item = /^\s*(?:[-*+]|\d+[.)])\s+(.*)$/.exec(line);
    if (item) globs.push(...itemGlobs(item[1]!));
  }
  return globs.map(normalizeGlob).filter((g) => g !== '');
}

export function normalizeGlob(glob: string): string {
  let g = glob.trim().replace(/\\/g, '/');
  while (g.startsWith('./')) g = g.slice(2);
  if (g.endsWith('/')) g += '**';
  return g;
}

function text(lines: readonly string[]): string | null {
  const t = lines.join('\n').trim();
  return t === '' ? null : t;
}

export function parseContract(markdown: string): ContractSections {
  const result: ContractSections = { scope: { allowed: [], forbidden: [] }, goal: null, assumptions: null, acceptance: null };
  for (const s of sections(markdown)) {
    if (FORBIDDEN_HEADING.test(s.heading)) result.scope.forbidden.push(...listGlobs(s.lines));
    else if (ALLOWED_HEADING.test(s.heading)) result.scope.allowed.push(...listGlobs(s.lines));
    else if (GOAL_HEADING.test(s.heading)) result.goal ??= text(s.lines);
    else if (ASSUMPTIONS_HEADING.test(s.heading)) result.assumptions ??= text(s.lines);
    else if (ACCEPTANCE_HEADING.test(s.heading)) result.acceptance ??= text(s.lines);
  }
  return result;
}

export function hasScope(scope: ContractScope): boolean {
  return scope.allowed.length > 0 || scope.forbidden.length > 0;
}

export function describeScope(scope: ContractScope): string | null {
  if (!hasScope(scope)) return null;
  const lines: string[] = [];
  if (scope.allowed.length > 0) lines.push(`允许修改（Allowed paths）：${scope.allowed.join(', ')}`);
  if (scope.forbidden.length > 0) lines.push(`禁止修改（Out of scope）：${scope.forbidden.join(', ')}`);
  return lines.join('\n');
}

export interface ScopeViolation {
  path: string;
  reason: string;
}

/**
 * Changed paths (relative to cd, `/`-separated; `../x` for paths outside cd) checked against
 * the scope. Paths outside cd always violate a declared scope: the contract is about cd.
 */
export function checkScope(changedPaths: readonly string[], scope: ContractScope): ScopeViolation[] {
  if (!hasScope(scope)) return [];
  const opts = { dot: true };
  const forbidden = scope.forbidden.map((g) => ({ glob: g, match: picomatch(g, opts) }));
  const allowed = scope.allowed.length > 0 ? picomatch(scope.allowed, opts) : null;
  const violations: ScopeViolation[] = [];
  for (const path of changedPaths) {
    if (path.startsWith('../') || path === '..') {
      violations.push({ path, reason: 'outside cd' });
      continue;
    }
    const hit = forbidden.find((f) => f.match(path));
    if (hit) violations.push({ path, reason: `out of scope (${hit.glob})` });
    else if (allowed && !allowed(path)) violations.push({ path, reason: 'not in the allowed paths' });
  }
  return violations;
}
