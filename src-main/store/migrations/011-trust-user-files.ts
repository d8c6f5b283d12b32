import type { Database } from '../db';

/**
 * Files of a trusted repository's parts that the user wrote through Flightdeck's own editor (the
 * mailbox Context tab): `value` is the trust item as written (path, size, SHA-256). While a
 * checkout's file still holds exactly that, its difference from what was trusted is the user's
 * own and does not make the repository untrusted (trust-service.ts).
 */
export function m011TrustUserFiles(db: Database): void {
  db.exec(`
    CREATE TABLE trust_user_files (
      root       TEXT NOT NULL,
      checkout   TEXT NOT NULL,
      key        TEXT NOT NULL,
      value      TEXT NOT NULL,
      written_at INTEGER NOT NULL,
      PRIMARY KEY (root, checkout, key)
    );
  `);
}
