/**
 * The issue each feature was planned from, for the board's cards: `.flightdeck/<slug>/issue.yml`
 * beside its state file, kept per file identity so a list of a thousand features costs one
 * lstat each, not a read and parse.
 */
import { lstat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { FeatureIssueRef } from '../../src-preload/contract/issues';
import { readFileInsideAsync } from '../platform/contained-path';
import { ISSUE_FILE, MAX_ISSUE_RECORD_BYTES, parseIssueRecord } from './issue-input';

/**
 * The issue record `file`, read as a regular file inside `root` (no link on the way) of record
 * size; null when there is none or it is not one. The worktree it sits in is the agent's.
 */
export async function readIssueRecord(root: string, file: string): Promise<FeatureIssueRef | null> {
  try {
    return parseIssueRecord((await readFileInsideAsync(root, file, { maxBytes: MAX_ISSUE_RECORD_BYTES, what: 'an issue record' })).toString('utf8'));
  } catch {
    // Absent (a feature planned without an issue), a link, a folder, or too large: no issue.
    return null;
  }
}

export class IssueLinks {
  private readonly kept = new Map<string, { id: string; ref: FeatureIssueRef | null }>();

  /** The record beside `statePath`; null when there is none or it is not a record. */
  async of(statePath: string | null): Promise<FeatureIssueRef | null> {
    if (!statePath) return null;
    const dir = dirname(statePath);
    const file = join(dir, ISSUE_FILE);
    let id: string;
    try {
      const st = await lstat(file);
      if (!st.isFile() || st.size > MAX_ISSUE_RECORD_BYTES) return null;
      id = `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
    } catch {
      // No record: the feature was not planned from an issue.
      this.kept.delete(file);
      return null;
    }
    const hit = this.kept.get(file);
    if (hit && hit.id === id) return hit.ref;
    const ref = await readIssueRecord(dir, file);
    this.kept.set(file, { id, ref });
    return ref;
  }
}
