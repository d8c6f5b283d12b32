/**
 * Which files at the top of a main checkout git ignores, answered from git's own files where they
 * settle it, so a new worktree's copy (`worktree.copy`: `.env`, `.envrc`) starts no
 * `git check-ignore` in the usual case. Only ever says "ignored" when git would; anything it
 * cannot be sure of is left for git to answer (a wrong "unsure" costs one git, nothing else).
 *
 * A name at the top is ignored for sure when
 * - the repository's own `.gitignore` at the top or `info/exclude` has a line that is exactly
 *   the name (or `/name`) and no line of either negates anything (`!…`): git takes the first
 *   of these files that matches, and a negation is the only thing that could undo a match (a
 *   byte-order mark at the start of a file is skipped, as git skips it);
 * - and the index does not track it (git never calls a tracked file ignored): no entry of the
 *   index has that path. Only index versions 2 and 3 store every path in full; a version 4 index
 *   (paths compressed against the previous one), a split index (entries in another file) or a
 *   sparse one (folders standing for their paths) leaves it to git.
 * Names below the top are git's (a `.gitignore` in their folder would come first).
 */
import { lstatSync } from 'node:fs';
import { join } from 'node:path';
import { locateRepository } from '../git/repo-location';
import { readFileNoWait } from '../platform/read-no-wait';

/** An ignore file larger than this is left to git to read. */
const IGNORE_FILE_MAX_BYTES = 256 * 1024;
/** A rule line that is a name and nothing else (git reads anything else as a pattern, a comment or an escape). */
const PLAIN_NAME = /^[A-Za-z0-9._-]+$/;
/** An index larger than this is left to git (read whole for the look below). */
const INDEX_MAX_BYTES = 64 * 1024 * 1024;

/** The contents of a plain file; null when absent; undefined when it is anything git should judge. */
function plainFile(file: string, maxBytes: number): Buffer | null | undefined {
  try {
    const st = lstatSync(file, { throwIfNoEntry: false });
    if (!st) return null;
    if (!st.isFile() || st.size > maxBytes) return undefined;
    return readFileNoWait(file);
  } catch {
    // Unreadable, or a folder on the way that is not one: git decides.
    return undefined;
  }
}

/** Bytes of an index entry before its path: times, device, inode, mode, ids, size, a SHA-1 and the flags. */
const ENTRY_FIXED_BYTES = 62;
/** A version 3 entry with this flag has two more flag bytes. */
const ENTRY_EXTENDED = 0x4000;
/** The SHA-1 that ends the index (a SHA-256 repository's index does not parse here: git decides). */
const INDEX_HASH_BYTES = 20;

/**
 * The tracked paths at the top of the main checkout (no `/` in them), read from the index: an
 * empty set when there is no index; null when the index is not one this reads in full (not
 * version 2 or 3, a split index, anything that does not parse exactly to its end), for git to
 * judge. Every entry is walked, and the extensions after them are read by their headers (a path
 * that happens to contain "link" is not taken for the split-index extension).
 */
function trackedAtTop(gitDir: string): Set<string> | null {
  const bytes = plainFile(join(gitDir, 'index'), INDEX_MAX_BYTES);
  if (bytes === null) return new Set();
  if (!bytes || bytes.length < 12 + INDEX_HASH_BYTES || bytes.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = bytes.readUInt32BE(4);
  if (version !== 2 && version !== 3) return null;
  const end = bytes.length - INDEX_HASH_BYTES;
  const top = new Set<string>();
  let at = 12;
  for (let n = bytes.readUInt32BE(8); n > 0; n--) {
    if (at + ENTRY_FIXED_BYTES > end) return null;
    const extended = version === 3 && (bytes.readUInt16BE(at + 60) & ENTRY_EXTENDED) !== 0;
    const pathAt = at + ENTRY_FIXED_BYTES + (extended ? 2 : 0);
    const nul = bytes.indexOf(0, pathAt);
    if (nul < 0 || nul >= end) return null;
    const path = bytes.toString('utf8', pathAt, nul);
    if (!path.includes('/')) top.add(path);
    // Padded with 1 to 8 NULs to a multiple of 8 bytes from the entry's start.
    at += (nul - at + 8) & ~7;
  }
  while (at + 8 <= end) {
    // The split-index extension keeps entries in a sharedindex file; sparse directory entries hide paths.
    const sig = bytes.toString('latin1', at, at + 4);
    if (sig === 'link' || sig === 'sdir') return null;
    at += 8 + bytes.readUInt32BE(at + 4);
  }
  return at === end ? top : null;
}

/**
 * The lines of the main checkout's top `.gitignore` and of `info/exclude` (in `commonDir`), when
 * they alone can say a top-level name is ignored: null when either is anything but a plain file
 * of at most IGNORE_FILE_MAX_BYTES, or when a line negates (`!…`), which could undo a match.
 * Git skips a byte-order mark at the start of an ignore file, so a `\ufeff!…` line is a negation
 * here too. Absent files give no lines.
 */
export function topIgnoreLines(root: string, commonDir: string): string[] | null {
  const lines: string[] = [];
  for (const file of [join(root, '.gitignore'), join(commonDir, 'info', 'exclude')]) {
    const bytes = plainFile(file, IGNORE_FILE_MAX_BYTES);
    if (bytes === undefined) return null;
    if (bytes === null) continue; // No such file: it ignores nothing.
    for (const line of bytes.toString('utf8').replace(/^\ufeff/, '').split('\n')) {
      if (line.startsWith('!')) return null;
      lines.push(line);
    }
  }
  return lines;
}

/**
 * The names among `paths` (relative to `root`, a main checkout) git ignores for sure, and the
 * rest, for git to answer.
 */
export function ignoredByFiles(root: string, paths: readonly string[]): { ignored: Set<string>; unsure: string[] } {
  const ignored = new Set<string>();
  const top = paths.filter((p) => PLAIN_NAME.test(p) && p !== '.' && p !== '..' && p !== '.git');
  let loc;
  try {
    loc = locateRepository(root);
  } catch {
    // A layout git's records do not confirm: git decides.
    loc = null;
  }
  // A linked worktree's or a subfolder's rules are not only these files: git decides.
  if (top.length === 0 || !loc || loc.workTree !== root || loc.gitDir !== loc.commonDir) return { ignored, unsure: [...paths] };
  const lines = topIgnoreLines(root, loc.commonDir);
  if (!lines) return { ignored, unsure: [...paths] };
  const named = new Set<string>();
  for (const line of lines) {
    // Only a plain name is taken at its word: no comment, wildcard, escape, trailing space or CR.
    const name = line.startsWith('/') ? line.slice(1) : line;
    if (PLAIN_NAME.test(name) && name !== '.' && name !== '..') named.add(name);
  }
  const tracked = named.size > 0 ? trackedAtTop(loc.gitDir) : null;
  if (!tracked) return { ignored, unsure: [...paths] };
  for (const p of top) {
    if (named.has(p) && !tracked.has(p)) ignored.add(p);
  }
  return { ignored, unsure: paths.filter((p) => !ignored.has(p)) };
}
