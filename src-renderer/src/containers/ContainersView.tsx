import { useCallback, useEffect, useState } from 'react';
import type { ContainerEngineEntry, ContainerStats, ManagedContainer } from '../../../src-preload/contract/containers';
import { formatBytes } from '../../../src-preload/contract/units';
import { statsText } from './stats-text';
import { useAppStore, useClient } from '../store';
import { Icon } from '../components/Icon';
import { useOpenContainerTerminal } from './ContainerTerminalButtons';
import { ContainerLogsDialog } from './ContainerLogsDialog';
import { AddEngineForm, useRemoveEngine } from './AddEngineForm';
import { ImagesSection } from './ImagesSection';
import { PlaceSessionForm } from './PlaceSessionForm';
import { ConfirmDialog } from '../components/ConfirmDialog';
import { usePageVisible } from '../lib/use-page-visible';

/** How often a running container's CPU and memory are sampled while the view is open. */
const STATS_INTERVAL_MS = 3_000;

/** Room between the view's sections and table cells (the view has no stylesheet of its own). */
const SECTION = { marginBottom: 24 } as const;
const CELL = { padding: '4px 12px 4px 0', verticalAlign: 'middle' } as const;

/** How a remote workspace's state reads in a container's row. */
const SYNC_LABEL: Record<NonNullable<ManagedContainer['workspaceSync']>['state'], string> = {
  in_sync: 'in sync',
  remote_ahead: 'container ahead',
  local_ahead: 'local branch ahead',
  diverged: 'diverged',
  error: 'sync failed',
};

/**
 * Docker engines and Flightdeck's containers: each engine with what it offers (or why it cannot
 * be reached, with a Retry), the app's containers with status and live CPU / memory, a shell in
 * one, stop and remove; placing a session in a container; the engines' images (ImagesSection).
 */
export function ContainersView() {
  const client = useClient();
  const toastError = useAppStore((s) => s.toastError);
  const sessions = useAppStore((s) => s.sessions);
  const [engines, setEngines] = useState<ContainerEngineEntry[] | null>(null);
  const [containers, setContainers] = useState<ManagedContainer[]>([]);
  const [stats, setStats] = useState<Record<string, ContainerStats>>({});
  const [generation, setGeneration] = useState(0);
  /** The container whose removal waits for the user's yes. */
  const [removing, setRemoving] = useState<ManagedContainer | null>(null);
  const reload = useCallback(() => setGeneration((g) => g + 1), []);

  useEffect(() => {
    let live = true;
    client.invoke('containers.engines.list', {}).then((e) => live && setEngines(e), (e: unknown) => live && toastError('Could not list the Docker engines', e));
    client.invoke('containers.list', {}).then((c) => live && setContainers(c), (e: unknown) => live && toastError('Could not list the containers', e));
    return () => {
      live = false;
    };
  }, [client, generation, toastError]);

  // Live figures for running containers, sampled while the view is open and can be seen.
  const visible = usePageVisible();
  useEffect(() => {
    const running = containers.filter((c) => c.state === 'running');
    if (running.length === 0 || !visible) return;
    let live = true;
    const sample = () => {
      for (const c of running) {
        client.invoke('containers.stats', { sessionId: c.sessionId }).then(
          (s) => live && setStats((prev) => ({ ...prev, [c.id]: s })),
          // A sample that fails (the container just ended, the engine is away): the row shows its status instead.
          () => undefined,
        );
      }
    };
    sample();
    const t = setInterval(sample, STATS_INTERVAL_MS);
    return () => {
      live = false;
      clearInterval(t);
    };
  }, [client, containers, visible]);

  // A remote workspace's sync state changes after each of its commands: the row follows.
  useEffect(
    () =>
      client.on('containers.workspace.syncState', (u) => {
        setContainers((cs) => cs.map((c) => (c.sessionId === u.sessionId ? { ...c, workspaceSync: u.state } : c)));
      }),
    [client],
  );

  const syncWorkspace = async (c: ManagedContainer) => {
    try {
      const state = await client.invoke('containers.workspace.sync', { sessionId: c.sessionId });
      setContainers((cs) => cs.map((x) => (x.id === c.id ? { ...x, workspaceSync: state } : x)));
    } catch (e) {
      toastError(`Could not sync the workspace of ${c.name}`, e);
    }
  };

  const act = async (what: 'stop' | 'remove', c: ManagedContainer) => {
    try {
      await client.invoke(what === 'stop' ? 'containers.stop' : 'containers.remove', { sessionId: c.sessionId });
    } catch (e) {
      toastError(`Could not ${what} ${c.name}`, e);
    }
    reload();
  };

  const openTerminal = useOpenContainerTerminal();
  const setKeep = async (c: ManagedContainer, keep: boolean) => {
    // The box follows the click at once; a refusal puts it back and says why.
    const mark = (k: boolean) => setContainers((cs) => cs.map((x) => (x.id === c.id ? { ...x, keep: k } : x)));
    mark(keep);
    try {
      await client.invoke('containers.keep.set', { sessionId: c.sessionId, keep });
    } catch (e) {
      mark(!keep);
      toastError(`Could not change whether ${c.name} is kept`, e);
    }
  };
  const [logsOf, setLogsOf] = useState<ManagedContainer | null>(null);

  const removeEngine = useRemoveEngine(reload);


  return (
    <div className="view containers-view" data-testid="containers-view">
      <header className="view-header">
        <h1>Containers</h1>
        <button className="button" onClick={reload} data-testid="containers-refresh">
          <Icon name="refresh" /> Refresh
        </button>
      </header>

      <section style={SECTION}>
        <h2>Engines</h2>
        {engines === null && <p>Looking for Docker engines…</p>}
        {engines?.length === 0 && <p>No Docker engine found. Install Docker (or Podman) and start it, or set DOCKER_HOST.</p>}
        <ul className="plain-list" data-testid="engine-list">
          {engines?.map((e) => (
            <li key={e.spec.name} data-testid={`engine-${e.spec.name}`} style={{ marginBottom: 6 }}>
              <strong>{e.spec.name}</strong> <code>{e.spec.host}</code>{' '}
              {e.info ? (
                <span>
                  {e.info.product} {e.info.version} · {e.info.os} · {e.info.cpus} CPUs · {formatBytes(e.info.memoryBytes)} · NVIDIA runtime: {e.info.nvidia ? 'yes' : 'no'}
                  {e.info.local ? '' : ' · remote'}
                </span>
              ) : (
                <span className="error-text" role="alert">
                  {e.error?.message}{' '}
                  <button className="link" onClick={reload} data-testid="engine-retry">
                    Retry
                  </button>
                </span>
              )}
              {e.spec.source === 'user' && (
                <>
                  {' '}
                  <button className="link" onClick={() => void removeEngine(e.spec.name)} aria-label={`Remove the engine ${e.spec.name}`}>
                    Remove
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>
        <AddEngineForm onAdded={reload} />
      </section>

      <section style={SECTION}>
        <h2>Flightdeck containers</h2>
        {containers.length === 0 && <p>No containers. Place a session in one below; it starts at the session's next command.</p>}
        <table className="table" data-testid="container-list">
          {containers.length > 0 && (
            <thead>
              <tr>
                {['Container', 'Engine', 'State', 'Session', 'Workspace', 'Use', ''].map((h, i) => (
                  <th key={i} style={CELL} scope="col">
                    {h}
                  </th>
                ))}
              </tr>
            </thead>
          )}
          <tbody>
            {containers.map((c) => {
              const s = stats[c.id];
              return (
                <tr key={c.id} data-testid={`container-${c.sessionId}`}>
                  <td style={CELL}>{c.name}</td>
                  <td style={CELL}>{c.engine}</td>
                  <td style={CELL}>{c.state}</td>
                  <td style={CELL}>{sessions.find((x) => x.id === c.sessionId)?.title ?? c.sessionId}</td>
                  <td style={CELL} data-testid="container-workspace-sync" title={c.workspaceSync?.message ?? undefined}>
                    {c.workspaceSync ? `Workspace: ${SYNC_LABEL[c.workspaceSync.state]}${c.workspaceSync.message ? ` — ${c.workspaceSync.message}` : ''}` : engines?.find((e) => e.spec.name === c.engine)?.info?.local === false ? 'Workspace: not synced yet' : ''}
                  </td>
                  <td style={CELL} data-testid="container-stats">{s ? statsText(s) : c.status}</td>
                  <td style={CELL}>
                    <div className="row-actions">
                      {c.state === 'running' && (
                        <>
                          {(c.workspaceSync || engines?.find((e) => e.spec.name === c.engine)?.info?.local === false) && (
                            <button className="button" onClick={() => void syncWorkspace(c)} data-testid="container-sync">
                              Sync commits
                            </button>
                          )}
                          <button className="button" onClick={() => void openTerminal(c.sessionId, 'console', c.name)} title="The agent's commands and their output as they run (read-only)" data-testid="container-console">
                            <Icon name="terminal" /> Console
                          </button>
                          <button className="button" onClick={() => void openTerminal(c.sessionId, 'shell', c.name)} data-testid="container-shell">
                            <Icon name="terminal" /> Shell
                          </button>
                          <button className="button" onClick={() => void act('stop', c)} data-testid="container-stop">
                            <Icon name="stop" /> Stop
                          </button>
                        </>
                      )}
                      <label className="container-keep" title="Keep this container running when Flightdeck quits; the next start re-attaches it to its session">
                        <input type="checkbox" checked={c.keep} onChange={(e) => void setKeep(c, e.target.checked)} data-testid="container-keep" /> Keep after quit
                      </label>
                      <button className="button" onClick={() => setLogsOf(c)} data-testid="container-logs">
                        Logs
                      </button>
                      <button className="button" onClick={() => setRemoving(c)} aria-label={`Remove ${c.name}`} data-testid="container-remove">
                        <Icon name="trash" /> Remove
                      </button>
                    </div>
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </section>

      <section style={SECTION}>
        <h2>Place a session in a container</h2>
        <PlaceSessionForm engines={engines} onPlaced={reload} />
      </section>

      <ImagesSection engines={engines} />
      {removing && (
        <ConfirmDialog
          title={`Remove ${removing.name}?`}
          confirmLabel="Remove container"
          onCancel={() => setRemoving(null)}
          onConfirm={() => {
            const c = removing;
            setRemoving(null);
            void act('remove', c);
          }}
        >
          <p>
            The container of <strong>{sessions.find((x) => x.id === removing.sessionId)?.title ?? removing.sessionId}</strong> is stopped and removed, with anything written inside it outside the mounted folder. The session keeps its placement: a new container starts at its next command.
          </p>
        </ConfirmDialog>
      )}
      {logsOf && <ContainerLogsDialog container={logsOf} onClose={() => setLogsOf(null)} />}
    </div>
  );
}
