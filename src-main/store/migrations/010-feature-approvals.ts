import type { Database } from '../db';

/**
 * How a feature's run was approved to drive its agent (executor, approval mode, placement), kept
 * outside the feature's worktree: its state.yml is writable by the agent working there, so the
 * runner trusts this record over the file (docs/security.md, "A feature's agent settings").
 */
export function m010FeatureApprovals(db: Database): void {
  db.exec(`
    CREATE TABLE feature_approvals (
      repo_root   TEXT NOT NULL,
      slug        TEXT NOT NULL,
      executor    TEXT NOT NULL,
      mode        TEXT NOT NULL,
      -- JSON of the RunPlacement; NULL: none chosen (on the host unless the project's config says otherwise).
      placement   TEXT,
      approved_at INTEGER NOT NULL,
      PRIMARY KEY (repo_root, slug)
    );
  `);
}
