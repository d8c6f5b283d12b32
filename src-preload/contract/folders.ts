import { z } from 'zod';
import { request } from './define';

export const FolderSuggestion = z.object({
  /** The folder's name (last path segment). */
  name: z.string(),
  /** Its full path as the user would type it (under the home folder). */
  path: z.string(),
});
export type FolderSuggestion = z.infer<typeof FolderSuggestion>;

export const folderRequests = {
  'folders.suggest': request(
    z
      .object({
        /** What the user typed so far: a folder (ending in /) or a folder plus the start of a name; ~ is the home folder. */
        typed: z
          .string()
          .max(4096, 'the path is too long')
          .refine((p) => !p.includes('\0'), 'the path contains a NUL byte'),
      })
      .strict(),
    z.object({
      /** The folder whose subfolders are listed; null when nothing can be listed (see `problem`). */
      folder: z.string().nullable(),
      suggestions: z.array(FolderSuggestion),
      /** More folders matched than are listed. */
      truncated: z.boolean(),
      problem: z.string().nullable(),
    }),
    "Folders under the user's home that complete a typed path (folders only, never files; nothing outside the home folder).",
  ),
} as const;
