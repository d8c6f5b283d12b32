/**
 * Seed 001 §9: is a request complex enough to start with a todo list? Three fixed rules, in
 * order; the first that fires wins. Pure.
 */
import type { TodoItem } from '../../../src-preload/contract';

/** Rule 1: this many explicitly enumerated items ("1. … 2. …", "- … - …") make several goals. */
export const MIN_ENUMERATED_ITEMS = 2;
/**
 * Rule 2: a request longer than this (weighted characters) is rarely one small step. 600 is
 * about a dense paragraph of English; CJK characters weigh 3 since each carries about a word.
 */
export const LENGTH_THRESHOLD = 600;
export const CJK_WEIGHT = 3;
/** Rule 3: at least this many complexity keywords… */
export const MIN_KEYWORD_HITS = 2;
/** …spread over at least this many sentences or paragraphs. */
export const MIN_SEGMENTS = 3;
/** Auto-initialized todo items (more than this is a list to paste, not a plan). */
export const MAX_AUTO_TODOS = 12;

const KEYWORDS = [
  /\brefactor/i, /\bmigrat/i, /\bimplement/i, /\barchitect/i, /\bend[- ]to[- ]end\b/i, /\bmultiple\b/i, /\bseveral\b/i, /\bacross\b/i,
  /\bthen\b/i, /\bafter that\b/i, /\bfinally\b/i, /\badditionally\b/i, /\balso\b/i, /\bredesign/i, /\bintegrat/i, /\bset up\b/i,
  /重构/, /迁移/, /实现/, /架构/, /多个/, /然后/, /并且/, /同时/, /最后/, /另外/, /集成/, /设计/,
];

const LIST_ITEM = /^\s*(?:\d{1,3}[.)]\s+|\d{1,3}、\s*|[(（]\d{1,3}[)）]\s*|[-*•·]\s+|[①-⑳]\s*)(.+)$/;
const INLINE_NUMBERED = /(?:^|\s)\(?(\d{1,2})[).]\s+([^\n]+?)(?=\s+\(?\d{1,2}[).]\s+|$)/g;
const CJK = /[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff]/g;

export type ComplexityRule = 'enumeration' | 'length' | 'keywords';

export interface Complexity {
  complex: boolean;
  rule: ComplexityRule | null;
  /** Enumerated goals, when rule 1 fired. */
  items: string[];
}

export function enumeratedItems(text: string): string[] {
  const lines = text.split('\n').map((l) => LIST_ITEM.exec(l)?.[1]?.trim()).filter((x): x is string => !!x);
  if (lines.length >= MIN_ENUMERATED_ITEMS) return lines;
  // "do 1) this 2) that" on one line.
  const inline: string[] = [];
  for (const line of text.split('\n')) {
    const found = [...line.matchAll(INLINE_NUMBERED)];
    if (found.length >= MIN_ENUMERATED_ITEMS && found.every((m, i) => Number(m[1]) === i + 1)) inline.push(...found.map((m) => m[2]!.trim().replace(/[,;，；]$/, '')));
  }
  return inline;
}

export function weightedLength(text: string): number {
  const cjk = text.match(CJK)?.length ?? 0;
  return text.length - cjk + cjk * CJK_WEIGHT;
}

export function segments(text: string): number {
  return text.split(/[.!?。！？；;\n]+/).filter((s) => s.trim().length >= 3).length;
}

export function keywordHits(text: string): number {
  return KEYWORDS.filter((k) => k.test(text)).length;
}

export function assessComplexity(input: string): Complexity {
  const text = input.trim();
  const items = enumeratedItems(text);
  if (items.length >= MIN_ENUMERATED_ITEMS) return { complex: true, rule: 'enumeration', items };
  if (weightedLength(text) > LENGTH_THRESHOLD) return { complex: true, rule: 'length', items: [] };
  if (keywordHits(text) >= MIN_KEYWORD_HITS && segments(text) >= MIN_SEGMENTS) return { complex: true, rule: 'keywords', items: [] };
  return { complex: false, rule: null, items: [] };
}

/** The starting todo list: the enumerated goals, or one item the model is told to break down. */
export function initialTodos(input: string, c: Complexity): TodoItem[] {
  const short = (s: string) => (s.length > 200 ? s.slice(0, 197) + '…' : s);
  const texts = c.items.length > 0 ? c.items.slice(0, MAX_AUTO_TODOS) : [`Break down and carry out: ${short(input.trim().split('\n')[0] ?? input)}`];
  return texts.map((t, i) => ({ id: `t${i + 1}`, text: short(t), status: i === 0 ? 'in_progress' : 'pending' }));
}
