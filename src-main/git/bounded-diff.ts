/**
 * A diff that is bounded before it is read: review prompts, the changes view and reports show a
 * change whatever its size, never a raw "output limit" error (a committed
 * node_modules is 25,000 files). The per-file counts come first (`--numstat`, one short line a
 * file); only the files that fit the budget are diffed, and the text says what was left out.
 */
import { git, GitError } from './git';

export interface DiffLimits {
  /** Characters of diff text kept. */
  maxChars: number;
  /** Changed lines (added + deleted) diffed; the files beyond are only counted. */
  maxLines?: number;
  /** Files diffed; the rest are only counted. */
  maxFiles?: number;
}

export interface BoundedDiff {
  text: string;
  truncated: boolean;
  files: number;
  shownFiles: number;
  lines: number;
  shownLines: number;
}

/** Enough for any change a person reviews in one sitting. */
const DEFAULT_MAX_LINES = 8_000;
const DEFAULT_MAX_FILES = 500;
/** Files named in the truncation note; past this it counts. */
const MAX_LISTED_OMITTED = 20;
/** Bytes a diff of the chosen files may take before git is stopped (a minified file is one long line). */
const BYTES_PER_CHAR = 4;

interface NumstatEntry {
  path: string;
  lines: number;
  binary: boolean;
}

function parseNumstat(out: string): NumstatEntry[] {
  const entries: NumstatEntry[] = [];
  for (const rec of out.split('\0')) {
    const m = /^(-|\d+)\t(-|\d+)\t(.*)$/s.exec(rec.replace(/^\n/, ''));
    if (!m) continue;
    const binary = m[1] === '-';
    entries.push({ path: m[3]!, lines: binary ? 0 : Number(m[1]) + Number(m[2]), binary });
  }
  return entries;
}

/** The marker a cut diff ends with, in the same words everywhere. */
export function truncationNote(d: Pick<BoundedDiff, 'files' | 'shownFiles' | 'lines' | 'shownLines'>, omitted: readonly string[] = []): string {
  const listed = omitted.slice(0, MAX_LISTED_OMITTED).map((p) => `  ${p}`);
  const more = omitted.length > MAX_LISTED_OMITTED ? [`  … and ${omitted.length - MAX_LISTED_OMITTED} more`] : [];
  return [`… diff truncated: ${d.shownFiles} of ${d.files} files, ${d.shownLines} of ${d.lines} changed lines shown`, ...(omitted.length ? ['not shown:', ...listed, ...more] : [])].join('\n');
}

/**
 * `git diff <revs> -- <pathspecs>` in `cwd`, bounded by `limits`. Renames are shown as a delete
 * and an add, so every file is counted once.
 */
export async function boundedDiff(cwd: string, revs: readonly string[], pathspecs: readonly string[], limits: DiffLimits): Promise<BoundedDiff> {
  const maxLines = limits.maxLines ?? DEFAULT_MAX_LINES;
  const maxFiles = limits.maxFiles ?? DEFAULT_MAX_FILES;
  const entries = parseNumstat(await git(['diff', '--numstat', '-z', '--no-renames', ...revs, '--', ...pathspecs], { cwd }));
  const total = entries.reduce((n, e) => n + e.lines, 0);
  const shown: NumstatEntry[] = [];
  const omitted: string[] = [];
  let shownLines = 0;
  for (const e of entries) {
    if (shown.length < maxFiles && shownLines + e.lines <= maxLines) {
      shown.push(e);
      shownLines += e.lines;
    } else {
      omitted.push(`${e.path} (${e.binary ? 'binary' : `${e.lines} lines`})`);
    }
  }
  const meta = { files: entries.length, shownFiles: shown.length, lines: total, shownLines };
  let text = '';
  let cut = omitted.length > 0;
  if (shown.length > 0) {
    const specs = omitted.length === 0 ? [...pathspecs] : shown.map((e) => `:(literal,top)${e.path}`);
    try {
      text = await git(['diff', '--no-renames', ...revs, '--', ...specs], { cwd, maxOutputBytes: limits.maxChars * BYTES_PER_CHAR });
    } catch (e) {
      // Past the byte budget (a generated file on one line): the counts and names still say what changed.
      if (!(e instanceof GitError) || e.stoppedFor !== 'overflow') throw e;
      return { text: truncationNote({ ...meta, shownFiles: 0, shownLines: 0 }, entries.map((x) => `${x.path} (${x.binary ? 'binary' : `${x.lines} lines`})`)), truncated: true, ...meta, shownFiles: 0, shownLines: 0 };
    }
  }
  if (text.length > limits.maxChars) {
    text = text.slice(0, limits.maxChars);
    cut = true;
  }
  if (!cut) return { text, truncated: false, ...meta };
  return { text: `${text}${text.endsWith('\n') || text === '' ? '' : '\n'}${truncationNote(meta, omitted)}\n`, truncated: true, ...meta };
}
