/**
 * Parsing a YAML file the user (or an agent) edits and validating it with a zod schema, so
 * that every problem names the file, the key path and the line: YAML syntax errors through the
 * `yaml` package's own positions, schema problems by walking the parsed document to the node
 * at the issue's path and turning its source offset into a line with a LineCounter.
 * Pure: takes text, returns a value or a FeatureError; reading and writing live elsewhere.
 */
import { isMap, isNode, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document, type Node } from 'yaml';
import type { z } from 'zod';
import { FeatureError, type FeatureErrorKind } from './errors';

type PathKey = PropertyKey;

/** `agent.max_turns`, `checks[2]`: the path as the user reads it in the file. */
export function formatKeyPath(path: readonly PathKey[]): string {
  let out = '';
  for (const k of path) {
    if (typeof k === 'number') out += `[${k}]`;
    else out += out === '' ? String(k) : `.${String(k)}`;
  }
  return out === '' ? '(top level)' : out;
}

function keyMatches(key: unknown, want: PathKey): boolean {
  const k = isScalar(key) ? key.value : key;
  return String(k) === String(want);
}

/** The node at `path` (or the deepest one that exists), plus the key node of the last map step. */
function locate(doc: Document, path: readonly PathKey[]): { node: Node | null; keyNode: Node | null } {
  let node: unknown = doc.contents;
  let keyNode: Node | null = null;
  for (const step of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => keyMatches(p.key, step));
      if (!pair) break;
      keyNode = isNode(pair.key) ? pair.key : null;
      node = pair.value;
    } else if (isSeq(node) && typeof step === 'number') {
      const item: unknown = node.items[step];
      if (item === undefined) break;
      keyNode = null;
      node = item;
    } else {
      break;
    }
  }
  return { node: isNode(node) ? node : null, keyNode };
}

function valueAt(root: unknown, path: readonly PathKey[]): unknown {
  let v: unknown = root;
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

function lineOf(offset: number | undefined, lc: LineCounter): number | undefined {
  return offset === undefined ? undefined : lc.linePos(offset).line;
}

/** The line of the key `key` inside the map at `path` (an unknown key), else of the map itself. */
function lineOfKey(doc: Document, path: readonly PathKey[], key: string, lc: LineCounter): number | undefined {
  const { node } = locate(doc, path);
  if (isMap(node)) {
    const pair = node.items.find((p) => isPair(p) && keyMatches(p.key, key));
    if (pair && isNode(pair.key)) return lineOf(pair.key.range?.[0], lc);
    return lineOf(node.range?.[0], lc);
  }
  return lineOf(node?.range?.[0], lc) ?? 1;
}

function lineOfPath(doc: Document, path: readonly PathKey[], lc: LineCounter): number {
  const { node, keyNode } = locate(doc, path);
  // A missing key is reported at the map that should hold it; a present one at its key (the
  // value of `key:` with nothing after it has no useful position of its own).
  return lineOf(keyNode?.range?.[0], lc) ?? lineOf(node?.range?.[0], lc) ?? 1;
}

export interface ParseOptions<S extends z.ZodType> {
  kind: FeatureErrorKind;
  schema: S;
  /** The file named in messages. */
  path: string;
  /** What an empty document means (the config: all defaults); undefined: an empty file is an error. */
  emptyAs?: unknown;
}

/**
 * Parses and validates; throws a FeatureError (kind `yaml` for syntax, else `opts.kind`) with
 * path and line. Reports the first problem in file order, with the count of the others.
 */
export function parseYamlFile<S extends z.ZodType>(text: string, opts: ParseOptions<S>): z.output<S> {
  const lc = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lc, prettyErrors: true, uniqueKeys: true, strict: true });
  const syntax = [...doc.errors];
  if (syntax.length > 0) {
    const first = syntax[0]!;
    const line = first.linePos?.[0]?.line ?? lineOf(first.pos[0], lc);
    // The first line without the parser's own position (the message gets ours) or API advice.
    const msg = first.message
      .split('\n')[0]!
      .replace(/ at line \d+, column \d+:?$/, '')
      .replace(/; please use YAML\.parseAllDocuments\(\)$/, ' (only one is allowed)');
    throw new FeatureError('yaml', `invalid YAML: ${msg}`, { path: opts.path, line });
  }
  let value: unknown;
  try {
    // maxAliasCount guards against alias bombs ("billion laughs") in a file an agent can write.
    value = doc.toJS({ maxAliasCount: 100 });
  } catch (e) {
    throw new FeatureError('yaml', `invalid YAML: ${e instanceof Error ? e.message : String(e)}`, { path: opts.path, line: 1 });
  }
  if (value === null || value === undefined) {
    if (opts.emptyAs === undefined) throw new FeatureError(opts.kind, 'the file is empty', { path: opts.path, line: 1 });
    value = opts.emptyAs;
  }
  const parsed = opts.schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const located = parsed.error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const key = issue.keys[0] ?? '';
      const where = formatKeyPath([...issue.path, key]);
      const more = issue.keys.length > 1 ? ` (also: ${issue.keys.slice(1).join(', ')})` : '';
      return { line: lineOfKey(doc, issue.path, key, lc) ?? 1, text: `unknown key "${where}"${more}` };
    }
    // zod says "expected object, received undefined" for an absent key: say it is missing.
    if (issue.code === 'invalid_type' && valueAt(value, issue.path) === undefined) {
      return { line: lineOfPath(doc, issue.path, lc), text: `missing key "${formatKeyPath(issue.path)}"` };
    }
    return { line: lineOfPath(doc, issue.path, lc), text: `${formatKeyPath(issue.path)}: ${issue.message}` };
  });
  located.sort((a, b) => a.line - b.line);
  const first = located[0]!;
  const others = located.length > 1 ? ` (and ${located.length - 1} more problem${located.length > 2 ? 's' : ''})` : '';
  throw new FeatureError(opts.kind, `${first.text}${others}`, { path: opts.path, line: first.line });
}
