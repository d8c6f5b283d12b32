/**
 * A fast first read of plain YAML files (the state files, a thousand of them at a first index):
 * js-yaml's loader costs about a tenth of the `yaml` package's document parser, which keeps the
 * node positions our error messages need. The fast read answers only for a subset of YAML where
 * the two agree, and says "don't know" (undefined) for everything else; the caller then parses
 * with parseYamlFile, which decides (and words) every error exactly as before. The result is
 * validated by the same zod schema either way.
 *
 * The subset, as `parseYamlFile` reads YAML (1.2, core schema, strict, unique keys):
 * - no tag, anchor, alias, directive, explicit key, block scalar, merge key or escape: any of
 *   the characters `! & * % ? | > < \` anywhere, a tab, a carriage return, a byte-order mark or another
 *   control character sends the text to the full parser (a quoted string that holds one is then
 *   only slower, never read differently);
 * - no flow collection or quoted string goes on past the end of its line, and no `:` stands
 *   more than 1,000 characters into a line (lineOutsideSubset: the `yaml` package refuses an
 *   implicit key longer than 1,024 characters, js-yaml takes it);
 * - no empty sequence entry (a `-` that ends its line): js-yaml puts the next entry of an outer
 *   sequence into the inner one (`- -\n- b` reads as `[[null, b]]`, not `[[null], b]`), which
 *   would move a phase into another's details;
 * - no quoted string followed at once by a `#` (`a: "b"#c`: a comment the `yaml` package refuses
 *   without a space before it, js-yaml takes);
 * - plain scalars resolve by the `yaml` package's own core-schema rules (copied below): no YAML
 *   1.1 `yes`/`on`, no timestamps, no binary or sexagesimal numbers, no `_` in numbers;
 * - every mapping key is a string that would read as itself when written plain (a key such as
 *   `null`, `true`, `1` or the empty key, or a flow collection, is turned into a string
 *   differently by each loader);
 *   `__proto__` is never a key here;
 * - anything js-yaml refuses (a duplicate key, a syntax error, a second document, nesting deep
 *   enough to exhaust the stack) is the full parser's to report.
 * test/unit/features/yaml-fast.test.ts holds both paths to the same result over the project's
 * state fixtures, hostile inputs and thousands of mutations of them.
 */
import { FAILSAFE_SCHEMA, load, Type } from 'js-yaml';

/**
 * A flow collection as a mapping key (`[a, b]: c`, `{ {a: 1}: c }`): each loader makes a
 * different string of it. Any `]` or `}` followed by a `:` (a quoted one too) goes to the full parser.
 */
const COLLECTION_KEY = /[\]}]\s*:/;

/**
 * Whether a flow collection or a quoted string may go on past its line (an unbalanced bracket or
 * an odd number of quotes on a line): the two loaders differ on how such a continuation must be
 * indented. An apostrophe in a plain scalar (`title: it's done`) sends the file to the full parser
 * too, which is only slower. Also whether a `:` stands past LONG_KEY characters into its line
 * (a long value after a short key stays in the subset).
 */
function lineOutsideSubset(text: string): boolean {
  let brackets = 0;
  let double = 0;
  let single = 0;
  let lineStart = 0;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 10;
    if (c === 10) {
      if (brackets !== 0 || double % 2 !== 0 || single % 2 !== 0) return true;
      lineStart = i + 1;
      continue;
    }
    if (c === 0x3a && i - lineStart > LONG_KEY) return true;
    if (c === 0x5b || c === 0x7b) brackets++;
    else if (c === 0x5d || c === 0x7d) brackets--;
    else if (c === 0x22) double++;
    else if (c === 0x27) single++;
  }
  return false;
}

/** Past this many characters into a line, a `:` may end a key the `yaml` package refuses (over 1,024 characters). */
const LONG_KEY = 1000;

/** A sequence entry with nothing in it: a `-` ending its line, a comment after it at most. */
const EMPTY_ENTRY = /(?:^|[ ])-(?:[ ]+(?:#.*)?)?$/m;

/** A quoted string with a comment right after it (`"b"#c`). */
const QUOTED_THEN_COMMENT = /["']#/;

/** Characters that introduce what the fast read leaves to the full parser (see above). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const OUTSIDE_SUBSET = /[!&*%?|><\\\t\r\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\ufeff\u2028\u2029]/;

// The `yaml` package's core schema (yaml/dist/schema/core and common/null), in its order.
const NULL = /^(?:~|[Nn]ull|NULL)?$/;
const BOOL = /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/;
const INT_OCT = /^0o[0-7]+$/;
const INT = /^[-+]?[0-9]+$/;
const INT_HEX = /^0x[0-9a-fA-F]+$/;
const FLOAT_NAN = /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/;
const FLOAT_EXP = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/;

/** What a plain scalar reads as under the core schema (the `yaml` package's resolution). */
export function resolvePlain(s: string): null | boolean | number | string {
  // Most scalars and keys are words: none of the patterns below starts with a letter other than these.
  if (/^[a-eg-mo-su-zA-EG-MO-SU-Z]/.test(s)) return s;
  if (NULL.test(s)) return null;
  if (BOOL.test(s)) return s[0] === 't' || s[0] === 'T';
  if (INT_OCT.test(s)) return parseInt(s.substring(2), 8);
  if (INT.test(s)) return parseInt(s, 10);
  if (INT_HEX.test(s)) return parseInt(s.substring(2), 16);
  if (FLOAT_NAN.test(s)) return s.slice(-3).toLowerCase() === 'nan' ? NaN : s[0] === '-' ? -Infinity : Infinity;
  if (FLOAT_EXP.test(s) || FLOAT.test(s)) return parseFloat(s);
  return s;
}

const scalar = (tag: string, test: (s: string) => boolean) =>
  new Type(tag, { kind: 'scalar', resolve: (s: string | null) => test(s ?? ''), construct: (s: string | null) => resolvePlain(s ?? '') });

/** js-yaml's failsafe schema (strings, sequences, mappings) with the core schema's plain scalars, and nothing else. */
const CORE_AS_YAML = FAILSAFE_SCHEMA.extend({
  implicit: [
    scalar('tag:yaml.org,2002:null', (s) => NULL.test(s)),
    scalar('tag:yaml.org,2002:bool', (s) => BOOL.test(s)),
    scalar('tag:yaml.org,2002:int', (s) => INT_OCT.test(s) || INT.test(s) || INT_HEX.test(s)),
    scalar('tag:yaml.org,2002:float', (s) => FLOAT_NAN.test(s) || FLOAT_EXP.test(s) || FLOAT.test(s)),
  ],
});

/** Whether every key under `v` is one both loaders give the same (see above). */
function plainKeys(v: unknown): boolean {
  if (Array.isArray(v)) return v.every(plainKeys);
  if (v === null || typeof v !== 'object') return true;
  if (Object.getPrototypeOf(v) !== Object.prototype) return false;
  for (const [k, x] of Object.entries(v)) {
    if (k === '' || k === '__proto__' || resolvePlain(k) !== k || !plainKeys(x)) return false;
  }
  // A '__proto__' key is an own property js-yaml defines; Object.entries lists it, but be sure.
  return !Object.prototype.hasOwnProperty.call(v, '__proto__');
}

/**
 * The value of `text` when it is in the subset above and js-yaml reads it, with the keys both
 * loaders agree on; undefined otherwise (an empty document too): then parseYamlFile decides.
 */
export function loadPlainYaml(text: string): unknown {
  const own = loadOwnYaml(text);
  if (own !== undefined) return own;
  if (OUTSIDE_SUBSET.test(text) || COLLECTION_KEY.test(text) || EMPTY_ENTRY.test(text) || QUOTED_THEN_COMMENT.test(text) || lineOutsideSubset(text)) return undefined;
  let value: unknown;
  try {
    value = load(text, { schema: CORE_AS_YAML });
  } catch {
    // Refused (a duplicate key, a syntax error, too deep): the full parser reports it in its words.
    return undefined;
  }
  if (value === null || value === undefined || !plainKeys(value)) return undefined;
  return value;
}

/**
 * Flightdeck's own output, read line by line: what serializeState writes (the `yaml` package's
 * stringify, two-space indents, no line width) for the states it keeps, in about a tenth of
 * js-yaml's time (a first index of a thousand features is a thousand of these). Anything the
 * writer would not have written is undefined here, and loadPlainYaml goes on to js-yaml: a
 * narrower subset than the one above, read exactly as the `yaml` package reads it.
 * - Every line is a key (`[A-Za-z_][A-Za-z0-9_-]*`, one that reads as itself) followed by `:` and
 *   either one space and a value, or nothing and a block below it, indented two more: a mapping,
 *   or a sequence (`- ` entries, a mapping entry going on two columns in). The same key twice,
 *   a blank line, a comment, a tab, a line indented otherwise or a block more than 128 columns in are
 *   left to js-yaml.
 * - A value is `{}`, `[]`, a quoted string on one line with no escape (`''` in single quotes),
 *   or a plain scalar on one line: not starting with an indicator (`-?:,[]{}#&*!|>'"%@` or a
 *   backquote; a negative number's `-` is read), no ` #` (a comment) or `: ` (a key) in it, no
 *   control character or whitespace other than the space, not ending with a space or a `:`;
 *   resolved by the core schema's rules (resolvePlain).
 */
export function loadOwnYaml(text: string): unknown {
  if (text.length === 0 || text.charCodeAt(text.length - 1) !== 10) return undefined;
  const r = new OwnReader(text.split('\n'));
  r.lines.pop();
  if (r.lines.length === 0) return undefined;
  const value = r.mapping(0, null);
  return value !== undefined && r.at === r.lines.length ? value : undefined;
}

/** Sixty-four levels of blocks. */
const OWN_MAX_INDENT = 128;
/** `key:` then one space and a value, or nothing (a block follows). */
const OWN_PAIR = /^([A-Za-z_][A-Za-z0-9_-]{0,127}):(?: (.+))?$/;
/** Characters no plain scalar read here holds: control characters, and whitespace other than the space. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const OWN_PLAIN_OUT = /[\u0000-\u001f\u007f-\u009f\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff]/;
/** What a plain scalar may not start with: a space, or an indicator (the YAML 1.2 set, `-` `?` `:` too). */
const OWN_INDICATOR_FIRST = /^[ ?:,[\]{}#&*!|>'"%@`-]/;
/** What may stand between double quotes (no escape, no quote, no control character). */
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const OWN_DOUBLE = /^"[^"\\\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]*"$/;
// eslint-disable-next-line no-control-regex -- control characters are exactly what is looked for
const OWN_SINGLE = /^'(?:[^'\u0000-\u001f\u007f-\u009f\u2028\u2029\ufeff]|'')*'$/;

class OwnReader {
  at = 0;
  constructor(readonly lines: string[]) {}

  /** The spaces before line `i`'s text; -1 past the end (every block ends there). */
  private indentOf(i: number): number {
    const line = this.lines[i];
    if (line === undefined) return -1;
    let n = 0;
    while (line.charCodeAt(n) === 32) n++;
    return n;
  }

  /**
   * A mapping whose keys stand at column `indent`; `first` is its first pair's text when that
   * stands on a sequence entry's line (`- key: value`), else the mapping starts at line `at`.
   */
  mapping(indent: number, first: string | null): Record<string, unknown> | undefined {
    const out: Record<string, unknown> = {};
    let pair = first;
    for (;;) {
      if (pair === null) {
        const n = this.indentOf(this.at);
        if (n < indent) return out;
        if (n > indent) return undefined;
        pair = this.lines[this.at]!.slice(indent);
      }
      this.at++;
      const m = OWN_PAIR.exec(pair);
      pair = null;
      if (!m) return undefined;
      const key = m[1]!;
      if (key === '__proto__' || resolvePlain(key) !== key || Object.prototype.hasOwnProperty.call(out, key)) return undefined;
      const value = m[2] === undefined ? this.block(indent + 2) : scalarOf(m[2]);
      if (value === undefined) return undefined;
      out[key] = value;
    }
  }

  /** The block under a `key:` line: a mapping or a sequence at column `indent`. */
  private block(indent: number): unknown {
    // Every level is two columns in: deeper than OWN_MAX_INDENT is not a state Flightdeck wrote,
    // and the yaml package runs out of stack somewhere past a few hundred (an error it reports).
    if (indent > OWN_MAX_INDENT || this.indentOf(this.at) !== indent) return undefined;
    return this.lines[this.at]!.startsWith('- ', indent) ? this.sequence(indent) : this.mapping(indent, null);
  }

  /** Entries `- …` at column `indent`: a scalar each, or a mapping going on two columns in. */
  private sequence(indent: number): unknown[] | undefined {
    const out: unknown[] = [];
    for (;;) {
      const n = this.indentOf(this.at);
      if (n < indent) return out;
      const line = this.lines[this.at]!;
      if (n > indent || !line.startsWith('- ', indent)) return undefined;
      const rest = line.slice(indent + 2);
      let value: unknown;
      if (OWN_PAIR.test(rest)) value = this.mapping(indent + 2, rest);
      else {
        value = scalarOf(rest);
        this.at++;
      }
      if (value === undefined) return undefined;
      out.push(value);
    }
  }
}

/** A value on its key's line, or undefined when the writer would not have written it so. */
function scalarOf(s: string): unknown {
  if (s === '{}') return {};
  if (s === '[]') return [];
  const c = s.charCodeAt(0);
  if (c === 0x22) return OWN_DOUBLE.test(s) ? s.slice(1, -1) : undefined;
  if (c === 0x27) return OWN_SINGLE.test(s) ? s.slice(1, -1).replace(/''/g, "'") : undefined;
  // No indicator first (but a negative number's `-`), no comment (` #`) or key (`: `) in it, not ending with a space or a `:`.
  if (OWN_INDICATOR_FIRST.test(s) && !(c === 0x2d && isDigitOrDot(s.charCodeAt(1)))) return undefined;
  const last = s.charCodeAt(s.length - 1);
  if (last === 0x20 || last === 0x3a || s.includes(': ') || s.includes(' #') || OWN_PLAIN_OUT.test(s)) return undefined;
  return resolvePlain(s);
}

const isDigitOrDot = (c: number) => (c >= 0x30 && c <= 0x39) || c === 0x2e;
