import { lstatSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { FileTooLargeError, readFileInside, UnsafePathError } from '../../platform/contained-path';
import { createTwoFilesPatch } from 'diff';
import { isBinary } from '../../changes/diff';
import { boundedDiff } from '../../git/bounded-diff';
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
  // Bounded before it is read: a committed or staged dependency tree must not fail with a raw buffer error.
  const tracked = await boundedDiff(root, hasHead ? ['--no-color', 'HEAD'] : ['--no-color', '--cached'], [], { maxChars: MAX_DIFF_CHARS });
  parts.push(tracked.text);
  let shownChars = tracked.text.length;
  const untracked = (await git(['ls-files', '--others', '--exclude-standard', '-z'], { cwd: root })).split('\0').filter(Boolean);
  for (const [i, rel] of untracked.entries()) {
    if (shownChars > MAX_DIFF_CHARS) {
      parts.push(`… diff truncated: ${untracked.length - i} more new files not shown\n`);
      break;
    }
    const abs = join(root, rel);
    const st = lstatSync(abs, { throwIfNoEntry: false });
    if (!st) continue;
    // A link is shown as git shows one, by where it points: what it points at is never read
    // (an agent or a container may point it at ~/.aws/credentials; /review sends this to a model).
    if (st.isSymbolicLink()) {
      parts.push(`new symbolic link ${rel} -> ${readlinkSync(abs)}\n`);
      continue;
    }
    let buf: Buffer;
    try {
      buf = readFileInside(root, rel, { maxBytes: MAX_UNTRACKED_BYTES });
    } catch (e) {
      if (e instanceof FileTooLargeError) {
        parts.push(`new file ${rel} (${st.size} bytes, not shown)\n`);
        continue;
      }
      // A FIFO or device, or a folder on the way made a link meanwhile: named, never read.
      if (e instanceof UnsafePathError) {
        parts.push(`new file ${rel} (not shown: ${e.message})\n`);
        continue;
      }
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw e;
    }
    if (isBinary(buf)) {
      parts.push(`new binary file ${rel}\n`);
      continue;
    }
    const patch = createTwoFilesPatch('/dev/null', `b/${rel}`, '', buf.toString('utf8')).replace(/^=+\n/m, '');
    parts.push(patch);
    shownChars += patch.length;
  }
  let diff = parts.join('');
  const truncated = diff.length > MAX_DIFF_CHARS;
  if (truncated) diff = diff.slice(0, MAX_DIFF_CHARS) + `\n… [diff cut at ${MAX_DIFF_CHARS} characters]`;
  return { status, diff, truncated };
}
