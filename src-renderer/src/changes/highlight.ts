/**
 * Syntax highlighting for diffs: refractor (Prism grammars as a syntax tree, no HTML strings)
 * behind react-diff-view's tokenizer. Pure apart from the grammar registry.
 */
import { refractor } from 'refractor';
import { tokenize, type HunkData, type HunkTokens } from 'react-diff-view';

/** File extensions whose Prism grammar name differs from the extension. */
const LANGUAGE_BY_EXTENSION: Record<string, string> = {
  ts: 'typescript', tsx: 'tsx', js: 'javascript', jsx: 'jsx', mjs: 'javascript', cjs: 'javascript',
  py: 'python', rb: 'ruby', rs: 'rust', go: 'go', java: 'java', kt: 'kotlin', c: 'c', h: 'c',
  cc: 'cpp', cpp: 'cpp', hpp: 'cpp', cs: 'csharp', php: 'php', swift: 'swift', sh: 'bash', bash: 'bash',
  json: 'json', yml: 'yaml', yaml: 'yaml', md: 'markdown', css: 'css', scss: 'scss', less: 'less',
  html: 'markup', xml: 'markup', svg: 'markup', sql: 'sql', toml: 'ini', ini: 'ini', lua: 'lua',
};

/** The grammar for a path, or null when refractor has none (the diff is then shown plain). */
export function languageOf(path: string): string | null {
  const name = path.split('/').pop() ?? '';
  if (name === 'Makefile') return refractor.registered('makefile') ? 'makefile' : null;
  if (name === 'Dockerfile') return refractor.registered('docker') ? 'docker' : null;
  const ext = name.includes('.') ? name.split('.').pop()!.toLowerCase() : '';
  const lang = LANGUAGE_BY_EXTENSION[ext] ?? ext;
  return lang && refractor.registered(lang) ? lang : null;
}

/**
 * react-diff-view was written against refractor 3, whose highlight() returned the node list;
 * refractor 5 returns a root node. This adapter hands over its children.
 */
const refractorAdapter = {
  highlight: (text: string, language: string) => refractor.highlight(text, language).children,
};

/** Highlighted tokens for the hunks, or null (plain) when the language is unknown or the grammar fails. */
export function highlightHunks(hunks: HunkData[], path: string): HunkTokens | null {
  const language = languageOf(path);
  if (!language || hunks.length === 0) return null;
  try {
    // The adapter's node types are refractor 5's; react-diff-view only reads type/value/children/properties.
    return tokenize(hunks, { highlight: true, refractor: refractorAdapter as never, language });
  } catch {
    // A grammar that throws on odd input must not hide the diff: it is shown without colours.
    return null;
  }
}
