import type { Database } from '../db';

/**
 * What each feature_index row was read from: the state file's identity (device, inode, size,
 * modification and change times, as src-main/features/scanner.ts's identityOf writes it) and the
 * SHA-256 of its bytes, followed by '@' and the app version that parsed it (feature-repo.ts: a
 * row another version wrote is read again, by this version's parser). A restarted app trusts a row whose file still has that identity without
 * reading it, and one whose file was only touched (same bytes) without parsing it again: the
 * first list after a restart costs a stat per feature instead of a YAML parse. Null for rows
 * indexed before this migration, for a file changed too recently to have an identity, and for a
 * row kept from an earlier good read while its file is broken: those are read as before.
 */
export function m014FeatureIndexFiles(db: Database): void {
  db.exec(`
    ALTER TABLE feature_index ADD COLUMN state_identity TEXT;
    ALTER TABLE feature_index ADD COLUMN state_sha256 TEXT;
  `);
}
