import { existsSync, statSync } from 'node:fs';
import { NotRegularFileError, readFileNoWait } from '../../platform/read-no-wait';
import { join } from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { isBinary } from '../../changes/diff';
import { git } from '../../git/git';

/** A diff longer than this is cut: enough to read and to review, bounded for the model. */
export const MAX_DIFF_CHARS = 200_000;
/** Untracked files larger than this are listed, not diffed. */
const MAX_UNTRACKED_BYTES = 256 * 1024;

/**
 * Uncommitted changes of the work tree at `root`: tracked changes against HEAD (or the index
 * before the first commit) plus new untracked files as additions. Read-only: nothing is staged.
 */
export async function workingDiff(root: string): Promise<{ status: string; diff: string; truncated: boolean }> {
  const status = (await git(['status', '--short'], { cwd: root })).trimEnd();
  let hasHead = true;
  try {
    await git(['rev-parse', '--verify', '--quiet', 'HEAD'], { cwd: root });
  } catch {
    hasHead = false;
  }
  const parts: string[] = [];
  parts.push(hasHead ? await git(['diff', 'HEAD', '--no-color', '--no-ext-diff'], { cwd: root }) : await git(['diff', '--cached', '--no-color', '--no-ext-diff'], { cwd: root }));
  const untracked = (await git(['ls-files', '--others', '--exclude-standard', '-z'], { cwd: root })).split('\0').filter(Boolean);
  for (const rel of untracked) {
    const abs = join(root, rel);
    if (!existsSync(abs)) continue;
    const size = statSync(abs).size;
    if (size > MAX_UNTRACKED_BYTES) {
      parts.push(`new file ${rel} (${size} bytes, not shown)\n`);
      continue;
    }
    let buf: Buffer;
    try {
      buf = readFileNoWait(abs);
    } catch (e) {
      // A FIFO or device (git does not list them, but one may replace a file meanwhile) is named, never read.
      if (e instanceof NotRegularFileError) {
        parts.push(`new file ${rel} (${e.kind}, not shown)\n`);
        continue;
      }
      throw e;
    }
    if (isBinary(buf)) {
      parts.push(`new binary file ${rel}\n`);
      continue;
    }
    parts.push(createTwoFilesPatch('/dev/null', `b/${rel}`, '', buf.toString('utf8')).replace(/^=+\n/m, ''));
  }
  let diff = parts.join('');
  const truncated = diff.length > MAX_DIFF_CHARS;
  if (truncated) diff = diff.slice(0, MAX_DIFF_CHARS) + `\n… [diff cut at ${MAX_DIFF_CHARS} characters]`;
  return { status, diff, truncated };
}
