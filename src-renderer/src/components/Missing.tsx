import { useAppStore } from '../store';

/**
 * What a view shows when the thing its address names is not in the store: a quiet placeholder
 * while the lists are still loading (a reload straight onto #/session/…), otherwise a way back.
 */
export function Missing({ what, loaded, verb }: { what: 'Project' | 'Session' | 'Plan'; loaded: boolean; verb: string }) {
  const setView = useAppStore((s) => s.setView);
  return (
    <section className="view">
      {loaded ? (
        <div className="empty-state" data-testid="missing">
          <h2>{what} not found</h2>
          <p>It may have been {verb} from another window or from the CLI.</p>
          <button className="button" onClick={() => setView({ name: 'board' })}>
            Back to the board
          </button>
        </div>
      ) : (
        <p className="muted">Loading…</p>
      )}
    </section>
  );
}
