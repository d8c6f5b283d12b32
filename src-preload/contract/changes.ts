import { z } from 'zod';
import { event, request } from './define';
import { SessionId as SessionRef } from './agents';

/** A path relative to the session root, as the changes view lists it. */
export const ChangedPath = z
  .string()
  .min(1, 'a path is required')
  .max(4096, 'the path is too long')
  .refine((p) => !p.includes('\0'), 'the path contains a NUL byte');

/** One hunk, as the unified diff library structures it: lines start with ' ', '-', '+' or '\'. */
export const ChangeHunk = z.object({
  oldStart: z.number().int().nonnegative(),
  oldLines: z.number().int().nonnegative(),
  newStart: z.number().int().nonnegative(),
  newLines: z.number().int().nonnegative(),
  lines: z.array(z.string().max(1_000_000)).min(1).max(100_000),
});
export type ChangeHunk = z.infer<typeof ChangeHunk>;

export const FileChange = z.object({
  path: ChangedPath,
  status: z.enum(['added', 'modified', 'deleted']),
  /** Binary content has no hunks; the whole file can still be reverted. */
  binary: z.boolean(),
  /** Too large to diff; the whole file can still be reverted. */
  tooLarge: z.boolean(),
  added: z.number().int().nonnegative(),
  removed: z.number().int().nonnegative(),
  /** The file's unified diff in git's format (`diff --git` header); empty for binary or too large files. */
  diff: z.string(),
  /** The same hunks, structured, in the order of `diff`: what a hunk revert sends back. */
  hunks: z.array(ChangeHunk),
  /** A new file git does not track (not ignored): a commit does not take it unless the user ticks it. */
  untracked: z.boolean().optional(),
});
export type FileChange = z.infer<typeof FileChange>;

export const ChangeScope = z.enum(['session', 'all']);
export type ChangeScope = z.infer<typeof ChangeScope>;

export const ChangeSet = z.object({
  root: z.string(),
  /** false when the session root is not in a git work tree (nothing to diff or commit against). */
  gitRepo: z.boolean(),
  /** The branch the root has checked out; null when detached or not a repository. */
  branch: z.string().nullable(),
  files: z.array(FileChange),
  /** Why the list is empty or partial, in words; null when all is well. */
  problem: z.string().nullable(),
});
export type ChangeSet = z.infer<typeof ChangeSet>;

export const RevertResult = z.object({
  path: z.string(),
  /** The content the revert replaced, stored as a git blob (`git cat-file -p <blob>` brings it back); null when there was no file. */
  savedBlob: z.string().nullable(),
  message: z.string(),
});
export type RevertResult = z.infer<typeof RevertResult>;

export const changeRequests = {
  'changes.list': request(
    z.object({ sessionId: SessionRef, scope: ChangeScope.default('session') }).strict(),
    ChangeSet,
    "The files a session changed (scope 'session': those its write/patch tools recorded; 'all': every uncommitted change under its root), each diffed against HEAD.",
  ),
  'changes.revertFile': request(
    z.object({ sessionId: SessionRef, path: ChangedPath }).strict(),
    RevertResult,
    'Put one file back as HEAD has it (deleted when HEAD has none); its current content is saved as a git blob first.',
  ),
  'changes.revertHunk': request(
    z.object({ sessionId: SessionRef, path: ChangedPath, hunk: ChangeHunk }).strict(),
    RevertResult,
    'Take one hunk out of a file (the reverse hunk applied to its current content); refused when the file changed so it no longer applies.',
  ),
  'changes.commit': request(
    z
      .object({
        sessionId: SessionRef,
        paths: z.array(ChangedPath).min(1, 'choose at least one file').max(10_000),
        message: z.string().trim().min(1, 'a commit message is required').max(20_000),
      })
      .strict(),
    z.object({ commit: z.string(), files: z.number().int().nonnegative(), message: z.string() }),
    'git add the given files and commit exactly them with the message.',
  ),
} as const;

export const changeEvents = {
  'changes.changed': event(z.object({ sessionId: z.string() }), 'A revert or commit changed the files of a session (views re-read the list).'),
} as const;
