/**
 * The fast read of state files (yaml-fast.ts, used by parseState) against the full parse it
 * stands in for (parseStateFully, parseYamlFile): the same state or the same error (kind,
 * message, path, line) for the project's state fixtures, states as Flightdeck writes them,
 * hostile inputs (tags, anchors and alias bombs, merge keys, YAML 1.1 booleans, timestamps,
 * directives, odd keys, duplicate keys, deep nesting) and thousands of seeded mutations of them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isFeatureError } from '../../../src-main/features/errors';
import { newFeatureState, parseState, parseStateFully, serializeState, type FeatureState } from '../../../src-main/features/state';
import { parse as parseYaml } from 'yaml';
import { loadOwnYaml, loadPlainYaml } from '../../../src-main/features/yaml-fast';
import { appRoot } from '../../../src-main/platform/paths';

const PATH = '/repo/.flightdeck/alpha/state.yml';
const FIXTURES = join(appRoot(), 'test', 'fixtures', 'features', 'malformed');

type Outcome = { state: FeatureState } | { error: { kind: string; message: string; path: string | undefined; line: number | undefined } } | { thrown: string };

function outcome(parse: (text: string, path: string) => FeatureState, text: string): Outcome {
  try {
    return { state: parse(text, PATH) };
  } catch (e) {
    if (isFeatureError(e)) return { error: { kind: e.kind, message: e.message, path: e.path, line: e.line } };
    return { thrown: String(e) };
  }
}

function sameBothWays(text: string): Outcome {
  const full = outcome(parseStateFully, text);
  const fast = outcome(parseState, text);
  expect(fast, text).toEqual(full);
  // toEqual does not tell 0 from -0: the serialized states must match too.
  expect(JSON.stringify(fast), text).toBe(JSON.stringify(full));
  return full;
}

/** Where the line reader of Flightdeck's own output answers, its value is the `yaml` package's, as parseYamlFile reads it (0 and -0 told apart). */
function ownAsYaml(text: string): boolean {
  const own = loadOwnYaml(text);
  if (own === undefined) return false;
  const full: unknown = parseYaml(text, { uniqueKeys: true, strict: true });
  expect(own, text).toEqual(full);
  expect(JSON.stringify(own), text).toBe(JSON.stringify(full));
  expect(Object.is((own as { details?: { a?: unknown } }).details?.a, (full as { details?: { a?: unknown } }).details?.a), text).toBe(true);
  return true;
}

function written(details: Record<string, unknown> = {}, extra: Partial<FeatureState> = {}): string {
  const s = newFeatureState({ slug: 'alpha', now: new Date('2026-02-10T10:30:00Z'), worktreePath: '.trees/alpha', branch: 'feature/alpha', baseBranch: 'main', devPhases: ['types', 'api'] });
  return serializeState({ ...s, status: 'in_progress', current_phase: 1, phases: s.phases.map((p, i) => (i === 0 ? { ...p, status: 'completed', turns: 3, cost_usd: 0.25, details } : p)), ...extra });
}

/** States as Flightdeck writes them, with notes of every kind in a phase's free-form details. */
const WRITTEN = [
  written(),
  written({ round: 2, note: 'fix: the parser "quotes" it', ok: true, none: null, ratio: 0.5, big: 2 ** 60, neg: -3, list: ['a', 1, false], nested: { a: { b: [{ c: 'd' }] } } }),
  written({ message: 'a "quoted" and \'single\' word, a # and a : colon', unicode: 'héllo — ☃ 😀', empty: '', spaces: '  padded  ', looks: ['true', 'null', '1', '0x1F', '1e3', '.inf', 'yes', '2026-02-10'] }),
  written({ multi: 'line one\nline two\n', tabbed: 'a\tb' }),
  written({}, { pr: { url: 'https://github.com/o/r/pull/7?x=1&y=2', number: 7, title: 'Fix it!' } }),
  written({}, { agent: { executor: 'claude-code', profile: null, model: 'm', mode: 'yolo' } }),
];

const HOSTILE = [
  '',
  '# only a comment\n',
  '~\n',
  'just a scalar\n',
  '- a\n- b\n',
  written().replace('status: in_progress', 'status: !!str in_progress'),
  written().replace('status: in_progress', 'status: !custom in_progress'),
  written().replace('branch: feature/alpha', 'branch: &b feature/alpha').replace('base_branch: main', 'base_branch: *b'),
  `a: &a ["x","x","x","x","x","x","x","x","x"]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]\n${written()}`,
  written().replace('details: {}', 'details:\n      base: &base { a: 1 }\n      merged:\n        <<: *base\n        b: 2'),
  written().replace('details: {}', 'details:\n      <<: { a: 1 }'),
  written().replace('details: {}', 'details: { on: yes, off: no, y: n }'),
  written().replace('details: {}', 'details: { when: 2001-12-14t21:59:43.10-05:00, day: 2002-12-14 }'),
  written().replace('details: {}', 'details: { bin: 0b101, under: 1_000, oct: 0o17, old_oct: 017, hex: 0x1F, sexa: 190:20:30, inf: -.inf, nan: .NaN, exp: 1e3, dot: .5, plus: +12 }'),
  written().replace('turns: 3', 'turns: 0b11'),
  written().replace('turns: 3', 'turns: 0o3'),
  written().replace('turns: 3', 'turns: 0x3'),
  written().replace('turns: 3', 'turns: 3.0'),
  written().replace('turns: 3', 'turns: +3'),
  written().replace('turns: 3', 'turns: 1_0'),
  `%YAML 1.1\n---\n${written().replace('details: {}', 'details: { flag: yes }')}`,
  `%YAML 1.2\n---\n${written()}`,
  `${written()}---\n${written()}`,
  `---\n${written()}...\n`,
  written().replace('details: {}', 'details:\n      ? complex\n      : key'),
  written().replace('details: {}', 'details:\n      ? [a, b]\n      : key'),
  written().replace('details: {}', 'details: { null: a }'),
  written().replace('details: {}', 'details: { ~: a }'),
  written().replace('details: {}', 'details: { : a }'),
  written().replace('details: {}', 'details: { true: a, 1: b, 1.5: c }'),
  written().replace('details: {}', 'details: { 1: a, "1": b }'),
  written().replace('details: {}', 'details: { "null": a, "true": b, "": c }'),
  written().replace('details: {}', 'details: { __proto__: { polluted: 1 } }'),
  written().replace('details: {}', 'details: { "__proto__": { polluted: 1 } }'),
  written().replace('details: {}', 'details: { constructor: 1, toString: 2, hasOwnProperty: 3 }'),
  written().replace('details: {}', 'details: { [a, b]: c }'),
  written().replace('details: {}', 'details: { {a: 1}: c }'),
  written().replace('status: in_progress', 'status: in_progress\nstatus: completed'),
  written().replace('details: {}', 'details: { a: 1, a: 2 }'),
  written().replace('details: {}', 'details:\n      a: 1\n      a: 2'),
  written().replace('details: {}', `details: { deep: ${'['.repeat(5000)}${']'.repeat(5000)} }`),
  written().replace('details: {}', `details: { ${'k'.repeat(1100)}: long key }`),
  written().replace('details: {}', 'details: { a: "b"#c }'),
  // The same two outside a flow mapping: js-yaml took both, the yaml package refuses both.
  written().replace('details: {}', `details:\n      ${'k'.repeat(1100)}: long key`),
  written().replace('details: {}', `details:\n      a${' '.repeat(1100)}: spaces before the colon`),
  written().replace('details: {}', "details:\n      a: \"b\"#c\n      d: 'e'#f"),
  // An empty entry of a nested sequence: js-yaml moved the next phase into this one's details.
  written().replace('details: {}', 'details:\n      a:\n        - b\n        -'),
  written().replace('details: {}', 'details:\n      a:\n        - # nothing'),
  written().replace('details: {}', 'details: { a: b #c }'),
  written().replace('details: {}', 'details:\n      a: b#c\n      d: "e" # f'),
  written().replace('details: {}', 'details:\n      a:b'),
  written().replace('details: {}', 'details:\n      a: "x\\x41\\u263A\\U0001F600\\N\\_\\0\\e\\/\\ y"'),
  written().replace('details: {}', 'details:\n      a: "bad \\q escape"'),
  written().replace('details: {}', "details:\n      a: 'it''s'\n      b: 'two\n        lines'"),
  written().replace('details: {}', 'details:\n      a: plain\n        continued\n        more\n      b: "quoted\n        continued"'),
  written().replace('details: {}', 'details:\n      a: |\n        block\n        text\n      b: >-\n        folded\n        text'),
  written().replace('details: {}', 'details:\n      a: [1, 2, ]\n      b: { c: 1, }\n      d: [ , ]'),
  written().replace('details: {}', 'details:\n      a: { b: c: d }'),
  written().replace('details: {}', 'details:\n      - a\n      b: c'),
  written().replace('details: {}', 'details:\n     a: 1\n      b: 2'),
  written().replace('details: {}', 'details:\n\ta: 1'),
  written().replace(/\n/g, '\r\n'),
  `\ufeff${written()}`,
  written().replace('details: {}', 'details: { a: "\u0007" }'),
  written().replace('details: {}', 'details: { a: "\u0085", b: "\u2028" }'),
  written().replace('details: {}', 'details: { a: -0, b: -0.0, c: 0e0 }'),
  written().replace('details: {}', 'details: { a: 1e400, b: 123456789012345678901234567890 }'),
  written().replace('details: {}', 'details: { a: @x }'),
  written().replace('details: {}', 'details: { a: `x` }'),
  written().replace('details: {}', 'details: { a: - b }'),
  written().replace('details: {}', 'details:\n      - - a\n        - b'),
  written().replace('details: {}', 'details: {}\n  - stray'),
  written().replace('phases:', 'phases: []\nphases2:'),
];

function fixtureTexts(): [string, string][] {
  return readdirSync(FIXTURES)
    .filter((f) => f.endsWith('.state.yml'))
    .map((f) => [f, readFileSync(join(FIXTURES, f), 'latin1')]);
}

/** A seeded generator: the same mutations on every run. */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PIECES = [' ', '  ', ':', ': ', '-', '- ', '\n', '"', "'", '#', ' #', '{', '}', '[', ']', ',', '0', '1', 'x', '.', 'e', 'n', 'y', 'o', 'T', '~', '\\', 'null', 'true', 'yes', '0x', '0o', '0b', '_', '+', '.inf', '.nan', '2026-01-01', '&a', '*a', '!', '?', '|', '>', '<<', '%', '\t', '---', '...', 'é', '😀'];

function mutate(text: string, next: () => number): string {
  let t = text;
  const n = 1 + Math.floor(next() * 3);
  for (let i = 0; i < n; i++) {
    // Most often inside a phase's free-form details (anything goes there, so a mutation there still gives a state).
    const from = t.indexOf('details:');
    const to = from < 0 ? -1 : t.indexOf('\n  - ', from);
    const at = from >= 0 && next() < 0.7 ? from + 9 + Math.floor(next() * ((to < 0 ? t.length : to) - from - 9)) : Math.floor(next() * (t.length + 1));
    const op = next();
    if (op < 0.35) t = t.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)]! + t.slice(at);
    else if (op < 0.6) t = t.slice(0, at) + t.slice(at + 1 + Math.floor(next() * 3));
    else if (op < 0.75) {
      // A line repeated (a duplicate key, most often).
      const lines = t.split('\n');
      const k = Math.floor(next() * lines.length);
      lines.splice(k, 0, lines[k]!);
      t = lines.join('\n');
    } else if (op < 0.82) {
      // A line broken in two, the rest indented anywhere (a plain scalar or a flow collection going on).
      const nl = ' '.repeat(Math.floor(next() * 9));
      t = `${t.slice(0, at)}\n${nl}${t.slice(at)}`;
    } else if (op < 0.9) {
      // A line indented differently.
      const lines = t.split('\n');
      const k = Math.floor(next() * lines.length);
      lines[k] = next() < 0.5 ? ` ${lines[k]}` : lines[k]!.replace(/^ {1,2}/, '');
      t = lines.join('\n');
    } else {
      // A value replaced by a scalar of another kind.
      t = t.replace(/: [^\n]*/g, (m) => (next() < 0.08 ? `: ${PIECES[Math.floor(next() * PIECES.length)]!}` : m));
    }
  }
  return t;
}

describe('the fast state read gives what the full parse gives', () => {
  it('reads states as Flightdeck writes them with the fast loader, to the same state', () => {
    for (const text of [WRITTEN[0]!, WRITTEN[1]!, WRITTEN[5]!, written({ a: 'say "x" twice', b: '', c: '0.50', d: 'a: b', e: '- x' })]) {
      // In the subset (no block scalar, no tab): the fast loader answers, and the state is the full parse's.
      expect(loadPlainYaml(text), text).toBeDefined();
      // And by the line reader of Flightdeck's own output, the fastest of the three.
      expect(ownAsYaml(text), text).toBe(true);
      expect('state' in sameBothWays(text)).toBe(true);
    }
    // An escaped quote, a multi-line note (a block scalar): read by the full parser, the same state.
    for (const text of [WRITTEN[2]!, WRITTEN[3]!]) {
      expect(loadPlainYaml(text)).toBeUndefined();
      expect('state' in sameBothWays(text)).toBe(true);
    }
    // A URL with a ? and a &, a title with a !: js-yaml's subset leaves them, the line reader reads them (plain, not first).
    expect(ownAsYaml(WRITTEN[4]!)).toBe(true);
    expect('state' in sameBothWays(WRITTEN[4]!)).toBe(true);
  });

  it('the project\'s state fixtures: the same state or the same error (kind, message, path, line)', () => {
    const fixtures = fixtureTexts();
    expect(fixtures.length).toBeGreaterThan(20);
    for (const [name, text] of fixtures) {
      const full = sameBothWays(text);
      expect('error' in full, name).toBe(true);
    }
  });

  it('hostile inputs: refused alike, or read alike', () => {
    let refused = 0;
    for (const text of HOSTILE) {
      if ('error' in sameBothWays(text)) refused++;
      ownAsYaml(text);
    }
    // Many are refused by the full parse (tags, aliases, duplicate keys, syntax), the rest read as strings or numbers; the check above held for every one.
    expect(refused).toBeGreaterThan(20);
  });

  it('hostile inputs the fast loader must leave to the full parser', () => {
    for (const text of [
      HOSTILE[5]!, // a tag
      HOSTILE[7]!, // an anchor and an alias
      HOSTILE[8]!, // an alias bomb
      HOSTILE[9]!, // a merge key
      HOSTILE[20]!, // a YAML 1.1 directive
      written().replace('details: {}', 'details: { null: a }'),
      written().replace('details: {}', 'details: { "": a }'),
      written().replace('details: {}', 'details: { __proto__: { polluted: 1 } }'),
      written().replace('details: {}', 'details: { a: 1, a: 2 }'),
      `${written()}---\n${written()}`,
    ]) {
      expect(loadPlainYaml(text), text).toBeUndefined();
    }
    // YAML 1.1 scalars and timestamps are strings, as the full parser reads them.
    const v = loadPlainYaml('a: yes\nb: on\nc: 2001-12-14\nd: 0b101\ne: 1_000\nf: 017\ng: 0o17\nh: 0x1F\ni: .NaN\nj: -.inf\nk: ~\nl: 1.50\n') as Record<string, unknown>;
    expect(v).toEqual({ a: 'yes', b: 'on', c: '2001-12-14', d: '0b101', e: '1_000', f: 17, g: 15, h: 31, i: NaN, j: -Infinity, k: null, l: 1.5 });
  });

  it('seeded mutations of written states and fixtures: the same state or the same error', () => {
    const next = rng(23);
    const bases = [...WRITTEN, ...WRITTEN, ...WRITTEN, ...WRITTEN, ...fixtureTexts().map(([, t]) => t), ...HOSTILE.slice(5, 20)];
    let states = 0;
    let fast = 0;
    let own = 0;
    for (let i = 0; i < 4000; i++) {
      const text = mutate(bases[i % bases.length]!, next);
      if ('state' in sameBothWays(text)) states++;
      if (loadPlainYaml(text) !== undefined) fast++;
      if (ownAsYaml(text)) own++;
    }
    // Not vacuous: many mutations still give a state, and many are read by the fast loader and by the line reader.
    expect(states).toBeGreaterThan(100);
    expect(fast).toBeGreaterThan(300);
    expect(own).toBeGreaterThan(100);
  }, 120_000);

  it('seeded nested mappings and sequences in a phase\'s details (empty entries, compact and odd indents): the same state', () => {
    // Built line by line rather than by characters: the mutations above never made an empty entry of an inner sequence followed by an outer one.
    const next = rng(5);
    const pick = <T,>(a: readonly T[]): T => a[Math.floor(next() * a.length)]!;
    const leaves = ['a', 'x y', '1', '-1', '0.5', 'null', '~', 'true', '"q"', "'s'", '[]', '{}', '[a, b]', '{a: 1}', '', 'a-b', '-x', '#c', ' #c', ':x', 'a:b', '0', '1e5', '+1'];
    const block = (depth: number, indent: number): string[] => {
      const seq = next() < 0.5;
      const lines: string[] = [];
      for (let i = 1 + Math.floor(next() * 3); i > 0; i--) {
        const pad = ' '.repeat(Math.max(0, indent + (next() < 0.1 ? pick([-2, -1, 1, 2]) : 0)));
        const head = seq ? `- ${next() < 0.2 ? '- ' : ''}` : `${pick(['a', 'b', 'c', 'k1', '"q"', "'s'"])}:${next() < 0.1 ? '' : ' '}`;
        if (depth < 3 && next() < 0.45) {
          const inner = block(depth + 1, indent + (next() < 0.2 ? 0 : 2));
          if (seq && next() < 0.3) lines.push(pad + head + inner[0]!.trimStart(), ...inner.slice(1));
          else lines.push(pad + head.trimEnd(), ...inner);
        } else lines.push(pad + head + pick(leaves));
        if (next() < 0.05) lines.push(pad + pick(['', '#c', '  ', '...', '---']));
      }
      return lines;
    };
    let fast = 0;
    let own = 0;
    for (let i = 0; i < 3000; i++) {
      const text = written().replace('details: {}', `details:\n${block(0, 6).join('\n')}`);
      if (ownAsYaml(text)) own++;
      // Only what the fast loader reads can differ (the rest takes the full parser both ways).
      if (loadPlainYaml(text) === undefined) continue;
      fast++;
      sameBothWays(text);
    }
    expect(fast).toBeGreaterThan(300);
    expect(own).toBeGreaterThan(300);
  }, 120_000);
  it('states written with seeded strings, numbers and nestings in their details: the line reader reads them as the yaml package does, or leaves them', () => {
    // What serializeState quotes, and how, is the writer's choice: strings that look like numbers, keys or comments, quotes of both kinds, unicode and spaces.
    const next = rng(41);
    const alphabet = ['a', 'Z', '0', '7', ' ', ':', ': ', '#', ' #', "'", '"', '-', ',', '.', '/', '~', 'é', '😀', '\u00a0', '{', '[', '&', '@', '%', 'null', 'true', '0x', 'e5', '\\'];
    const str = () => Array.from({ length: Math.floor(next() * 6) }, () => alphabet[Math.floor(next() * alphabet.length)]!).join('');
    const value = (depth: number): unknown => {
      const k = next();
      if (k < 0.45) return str();
      if (k < 0.6) return Math.round((next() - 0.3) * 10 ** Math.floor(next() * 8)) / (next() < 0.5 ? 1 : 100);
      if (k < 0.65) return next() < 0.5;
      if (k < 0.7) return null;
      if (depth > 2) return str();
      if (k < 0.85) return Array.from({ length: Math.floor(next() * 3) }, () => value(depth + 1));
      return Object.fromEntries(Array.from({ length: Math.floor(next() * 3) }, (_, i) => [next() < 0.8 ? `k${i}_x` : str() || 'e', value(depth + 1)]));
    };
    let own = 0;
    for (let i = 0; i < 1500; i++) {
      const text = written({ a: value(0), b: value(0), note: str() });
      if (ownAsYaml(text)) own++;
      else expect(loadOwnYaml(text)).toBeUndefined();
      sameBothWays(text);
    }
    // Most are read by it (the writer quotes plainly); the rest go on to js-yaml and the full parser.
    expect(own).toBeGreaterThan(400);
  }, 120_000);

  it('the line reader leaves to the others what Flightdeck does not write', () => {
    for (const text of [
      written().replace('status: in_progress', 'status: in_progress\n'), // a blank line
      written().replace('status: in_progress', '# a comment\nstatus: in_progress'),
      written().replace('status: in_progress', 'status: in_progress # done'),
      written().replace('status: in_progress', 'status: in_progress\nstatus: completed'),
      written().replace('details: {}', 'details:\n      a: 1\n      a: 2'),
      written().replace('details: {}', 'details:\n      a: plain\n        continued'),
      written().replace('details: {}', 'details:\n      a:\n      - compact'),
      written().replace('details: {}', 'details:\n      a:'),
      written().replace('details: {}', 'details:\n      - - a'),
      written().replace('details: {}', 'details:\n      a: "x\\ty"'),
      written().replace('details: {}', "details:\n      a: 'it's'"),
      written().replace('details: {}', 'details:\n      a: { b: 1 }'),
      written().replace('details: {}', 'details:\n      "a": 1'),
      written().replace('details: {}', 'details:\n      null: 1'),
      written().replace('details: {}', 'details:\n      __proto__: 1'),
      written().replace('details: {}', 'details:\n      a:  two spaces'),
      written().replace('details: {}', 'details:\n      a: b: c'),
      written().replace('details: {}', 'details:\n      a: -x'),
      written().replace(/\n/g, '\r\n'),
      written().replace(/\n$/, ''),
      '\n',
      '- a\n',
      'plain\n',
    ]) {
      expect(loadOwnYaml(text), text).toBeUndefined();
    }
    // Blocks up to 128 columns in (64 levels) are read, deeper ones left (the yaml package runs out of stack somewhere past a few hundred and says so).
    const nested = (levels: number) => written().replace('details: {}', `details:\n${Array.from({ length: levels }, (_, i) => `${' '.repeat(6 + 2 * i)}k:`).join('\n')} 1`);
    expect(ownAsYaml(nested(62))).toBe(true);
    expect(loadOwnYaml(nested(63))).toBeUndefined();
    const deep = nested(960);
    expect(loadOwnYaml(deep)).toBeUndefined();
    sameBothWays(deep);
    expect(loadOwnYaml("a: 'it''s'\nb: \"say 'x'\"\nc: a:b, c\nd: ~\ne: 0o17\n")).toEqual({ a: "it's", b: "say 'x'", c: 'a:b, c', d: null, e: 15 });
  });
});
