/**
 * The detector's view of a project on disk: the root's entries and those of its test folders
 * (where Python test files live), each read without waiting on a FIFO an agent planted.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readFileNoWait } from '../platform/read-no-wait';
import type { ProjectFiles } from './detect';

/** Folders whose entries the detector needs to tell pytest from unittest. */
const TEST_DIRS = ['test', 'tests'];
/** Files read from one project: a detector reads a handful, never a tree. */
const MAX_FILE_CHARS = 256 * 1024;

function entries(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    // A folder that is absent or unreadable holds nothing to detect.
    return [];
  }
}

export function projectFilesOnDisk(root: string): ProjectFiles {
  const top = entries(root);
  const paths = [...top];
  for (const d of TEST_DIRS) if (top.includes(d)) paths.push(...entries(join(root, d)).map((e) => `${d}/${e}`));
  return {
    paths,
    read: (p) => {
      try {
        const text = readFileNoWait(join(root, p), 'utf8');
        return text.length > MAX_FILE_CHARS ? text.slice(0, MAX_FILE_CHARS) : text;
      } catch {
        // Absent, a folder or a FIFO: nothing the detector can use.
        return null;
      }
    },
  };
}
