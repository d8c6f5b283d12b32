import type { Database } from '../db';

/**
 * Workspace trust: one row per repository (its real path) the user trusted, with the
 * fingerprint of its executable and read-from-disk parts at that moment and the parts themselves
 * (JSON), so a later change can be shown as a difference. No row means untrusted: that is the
 * default for every repository, including the projects of a database from before this migration
 * (their config was used unasked until now; the user reviews it once).
 */
export function m008WorkspaceTrust(db: Database): void {
  db.exec(`
    CREATE TABLE workspace_trust (
      root         TEXT PRIMARY KEY,
      fingerprint  TEXT NOT NULL,
      items        TEXT NOT NULL,
      trusted_at   INTEGER NOT NULL
    );
  `);
}
