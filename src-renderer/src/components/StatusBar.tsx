import { useAppStore } from '../store';
import { plural, shortPath } from '../lib/format';
import { ApprovalNotifications } from './ApprovalNotifications';
import { Inbox } from '../inbox/Inbox';

export function StatusBar() {
  const connection = useAppStore((s) => s.connection);
  const info = useAppStore((s) => s.info);
  const count = useAppStore((s) => s.projects.length);
  const label =
    connection === 'open' ? 'Connected' : connection === 'connecting' ? 'Connecting…' : connection === 'unauthorized' ? 'Access expired — reopen the printed address' : 'Disconnected — retrying';
  return (
    <footer className="statusbar" data-testid="statusbar">
      <span className={`conn conn-${connection}`}>
        <span className="status-dot" /> {label}
      </span>
      <span>{plural(count, 'project')}</span>
      <span className="spacer" />
      <Inbox />
      <ApprovalNotifications />
      {info && (
        <>
          <span className="statusbar-data" title={info.dataDir}>
            Data: {shortPath(info.dataDir)}
          </span>
          <span>{info.runtime === 'electron' ? 'Desktop' : 'Browser mode'}</span>
          <span>v{info.version}</span>
        </>
      )}
    </footer>
  );
}
