/** The worktree each session works in (migration 006); sessions in a checkout have no row. */
import type { SessionWorktreeRef } from '../../src-preload/contract';
import type { Database } from '../store/db';

interface Row {
  session_id: string;
  repo: string;
  slug: string;
  branch: string;
  base: string;
  path: string;
  archive_ref: string | null;
}

export class SessionWorktreeRepo {
  constructor(private readonly db: Database) {}

  get(sessionId: string): SessionWorktreeRef | null {
    const r = this.db.prepare('SELECT * FROM session_worktrees WHERE session_id = ?').get(sessionId) as Row | undefined;
    return r ? { slug: r.slug, branch: r.branch, base: r.base, path: r.path, repo: r.repo, archiveRef: r.archive_ref } : null;
  }

  insert(sessionId: string, w: Omit<SessionWorktreeRef, 'archiveRef'>, now = Date.now()): void {
    this.db
      .prepare('INSERT INTO session_worktrees (session_id, repo, slug, branch, base, path, archive_ref, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, NULL, ?, ?)')
      .run(sessionId, w.repo, w.slug, w.branch, w.base, w.path, now, now);
  }

  setArchiveRef(sessionId: string, ref: string | null, now = Date.now()): void {
    this.db.prepare('UPDATE session_worktrees SET archive_ref = ?, updated_at = ? WHERE session_id = ?').run(ref, now, sessionId);
  }
}
