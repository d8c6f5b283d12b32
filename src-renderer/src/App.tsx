import { useEffect } from 'react';
import { useAppStore, useClient } from './store';
import { Sidebar } from './components/Sidebar';
import { StatusBar } from './components/StatusBar';
import { Toasts } from './components/Toasts';
import { useTheme } from './lib/use-theme';
import { BoardView } from './views/BoardView';
import { SettingsView } from './views/SettingsView';
import { ProjectView } from './views/ProjectView';

export function App() {
  const client = useClient();
  const view = useAppStore((s) => s.view);
  const loadApp = useAppStore((s) => s.loadApp);
  const loadProjects = useAppStore((s) => s.loadProjects);
  const refreshProjects = useAppStore((s) => s.refreshProjects);
  const setProjects = useAppStore((s) => s.setProjects);
  const applySettings = useAppStore((s) => s.applySettings);
  const setConnection = useAppStore((s) => s.setConnection);
  const toast = useAppStore((s) => s.toast);
  const toastError = useAppStore((s) => s.toastError);

  useTheme();

  useEffect(() => {
    loadApp().catch((e: unknown) => toastError('Could not reach Flightdeck', e));
    void loadProjects();
    const offs = [
      client.on('projects.changed', ({ projects }) => setProjects(projects)),
      client.on('settings.changed', applySettings),
      client.on('app.notice', (n) => toast({ level: n.level, title: n.title, ...(n.message ? { message: n.message } : {}) })),
    ];
    const offStatus = client.transport.onStatus?.((s) => {
      setConnection(s);
      if (s === 'open') void loadProjects();
    });
    if (!client.transport.onStatus) setConnection('open');
    // Git state goes stale while the user works in other windows: refresh when we come back.
    const onFocus = () => void refreshProjects();
    window.addEventListener('focus', onFocus);
    return () => {
      offs.forEach((off) => off());
      offStatus?.();
      window.removeEventListener('focus', onFocus);
    };
  }, [client, loadApp, loadProjects, refreshProjects, setProjects, applySettings, setConnection, toast, toastError]);

  return (
    <div className="app">
      <Sidebar />
      <main className="main" data-testid="main">
        {view.name === 'board' && <BoardView />}
        {view.name === 'settings' && <SettingsView />}
        {view.name === 'project' && <ProjectView projectId={view.projectId} />}
      </main>
      <StatusBar />
      <Toasts />
    </div>
  );
}
