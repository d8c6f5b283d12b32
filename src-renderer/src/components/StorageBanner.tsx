import { useState } from 'react';
import { useAppStore } from '../store';

/**
 * What the user must know about the database: a full disk (work waits in memory) or damage
 * found at start, with the offer to restore the latest automatic backup.
 */
export function StorageBanner() {
  const storage = useAppStore((s) => s.storage);
  const restoreDatabase = useAppStore((s) => s.restoreDatabase);
  const [restoring, setRestoring] = useState(false);
  if (!storage) return null;
  const latest = storage.backups[0];
  return (
    <>
      {storage.writes !== 'ok' && (
        <div className="banner banner-error" role="alert" data-testid="disk-banner">
          <strong>{storage.writesMessage}</strong>
          {storage.unsaved > 0 && <> ({storage.unsaved} unsaved {storage.unsaved === 1 ? 'change' : 'changes'} waiting)</>}
        </div>
      )}
      {storage.integrity === 'damaged' && (
        <div className="banner banner-error" role="alert" data-testid="damaged-db-banner">
          <strong>The database is damaged.</strong> <code>{storage.dbPath}</code> failed its check at start
          {storage.integrityProblems[0] ? <> ({storage.integrityProblems[0]})</> : null}. It was left as it is.{' '}
          {latest ? (
            <button
              type="button"
              className="button"
              disabled={restoring}
              onClick={() => {
                setRestoring(true);
                void restoreDatabase().then((ok) => {
                  // Every list on screen came from the replaced data: start the page again from the restored one.
                  if (ok) location.reload();
                  else setRestoring(false);
                });
              }}
            >
              {restoring ? 'Restoring…' : `Restore the backup of ${new Date(latest.takenAt).toLocaleString()}`}
            </button>
          ) : (
            <>There is no automatic backup yet; move the file away to start with an empty database.</>
          )}
        </div>
      )}
    </>
  );
}
