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

  /** Records (or re-records) the worktree a session works in. */
  put(sessionId: string, w: SessionWorktreeRef, now = Date.now()): void {
    this.db
      .prepare('INSERT OR REPLACE INTO session_worktrees (session_id, repo, slug, branch, base, path, archive_ref, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
      .run(sessionId, w.repo, w.slug, w.branch, w.base, w.path, w.archiveRef, now, now);
  }

  /** The newest record of a worktree folder (several sessions can work in one: `/new` keeps the folder). */
  findByPath(path: string): SessionWorktreeRef | null {
    const r = this.db.prepare('SELECT * FROM session_worktrees WHERE path = ? ORDER BY created_at DESC LIMIT 1').get(path) as Row | undefined;
    return r ? { slug: r.slug, branch: r.branch, base: r.base, path: r.path, repo: r.repo, archiveRef: r.archive_ref } : null;
  }

  /** Every session in the worktree sees it discarded (a ref) or back (null); returns their ids. */
  setArchiveRef(w: { repo: string; path: string }, ref: string | null, now = Date.now()): string[] {
    const ids = (this.db.prepare('SELECT session_id FROM session_worktrees WHERE repo = ? AND path = ?').all(w.repo, w.path) as Array<{ session_id: string }>).map((r) => r.session_id);
    this.db.prepare('UPDATE session_worktrees SET archive_ref = ?, updated_at = ? WHERE repo = ? AND path = ?').run(ref, now, w.repo, w.path);
    return ids;
  }
}
