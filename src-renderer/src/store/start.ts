import type { Client } from '../../../src-preload/client/client';
import type { AppStore } from './index';

/**
 * Subscribes the store to the host's events and sends the app's first reads, as the page starts:
 * before React's first render, not from an effect after it. The reads are then on the wire as
 * soon as the connection opens (the transport queues them until then, behind the subscriptions),
 * and the host answers while React renders the shell; from an effect they waited for that render
 * (6–65 ms of a later board load; docs/performance-board.md). The board's list goes first,
 * then the settings (the theme).
 *
 * Reads again whenever the connection comes back after it was lost. Returns what stops it all.
 */
export function startApp(store: AppStore, client: Client): () => void {
  const s = () => store.getState();
  const offs = [
    client.on('projects.changed', ({ projects }) => s().setProjects(projects)),
    client.on('settings.changed', (settings) => s().applySettings(settings)),
    client.on('app.notice', (n) => s().toast({ level: n.level, title: n.title, ...(n.message ? { message: n.message } : {}) })),
    client.on('agents.sessions.changed', ({ session, removedId }) => s().upsertSession(session, removedId)),
    client.on('agents.approvals.changed', ({ approval }) => s().upsertApproval(approval)),
    client.on('agents.profiles.changed', ({ profiles }) => s().setProfiles(profiles)),
    client.on('agents.settings.changed', (settings) => s().setAgentSettings(settings)),
    client.on('app.storage.changed', (storage) => s().setStorage(storage)),
    client.on('features.plan.changed', ({ draft }) => s().upsertDraft(draft)),
    client.on('features.changed', () => void s().loadFeatures()),
    client.on('featureRuns.changed', ({ runs }) => s().setFeatureRuns(runs)),
    client.on('featureRuns.event', (e) => s().applyFeatureRunEvent(e)),
  ];
  const readAll = () => {
    void s().loadFeatures();
    // The settings next: the theme and the terminals' font size apply before the board paints.
    s()
      .loadApp()
      .catch((e: unknown) => s().toastError('Could not reach Flightdeck', e));
    void s().loadFeatureRuns();
    void s().loadProjects();
    void s().loadAgents();
    void s().loadDrafts();
  };
  readAll();
  // The first reads above wait for the connection; read again only after it was lost and came
  // back (the settings too: they may have changed meanwhile, or the first try may have failed).
  let lost = false;
  const offStatus = client.transport.onStatus?.((status) => {
    s().setConnection(status);
    if (status === 'closed' || status === 'unauthorized') lost = true;
    else if (status === 'open' && lost) {
      lost = false;
      readAll();
    }
  });
  if (!client.transport.onStatus) s().setConnection('open');
  return () => {
    offs.forEach((off) => off());
    offStatus?.();
  };
}
