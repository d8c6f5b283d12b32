import { useCallback, useEffect, useRef, useState } from 'react';
import type { InboxEntry } from '../../../src-preload/contract';
import { useAppStore, useClient } from '../store';
import type { View } from '../store/app-slice';
import { relativeTime } from '../lib/format';
import { notificationsEnabled } from '../components/ApprovalNotifications';
import './inbox.css';

/** Where an entry leads: its feature (when the project is registered here), its session, or the board. */
export function entryView(e: InboxEntry): View {
  if (e.target?.kind === 'feature' && e.target.projectId) return { name: 'feature', projectId: e.target.projectId, slug: e.target.slug };
  if (e.target?.kind === 'session') return { name: 'session', sessionId: e.target.sessionId };
  return { name: 'board' };
}

function alreadyInFront(view: View, e: InboxEntry): boolean {
  const v = entryView(e);
  if (v.name === 'feature' && view.name === 'feature') return v.projectId === view.projectId && v.slug === view.slug;
  if (v.name === 'session' && view.name === 'session') return v.sessionId === view.sessionId;
  return false;
}

/**
 * The status bar's inbox: a count of unread entries and the list. New entries also become a
 * browser notification when the user turned notifications on (the same switch as approvals)
 * and the page is hidden or shows something else; clicking one opens what it is about. The
 * desktop app's notifications come from main, and their clicks arrive as `inbox.open`.
 */
export function Inbox() {
  const client = useClient();
  const setView = useAppStore((s) => s.setView);
  const view = useAppStore((s) => s.view);
  const viewRef = useRef(view);
  useEffect(() => {
    viewRef.current = view;
  }, [view]);
  const runtime = useAppStore((s) => s.info?.runtime);
  const [entries, setEntries] = useState<InboxEntry[]>([]);
  const [unread, setUnread] = useState(0);
  const [open, setOpen] = useState(false);
  const panelRef = useRef<HTMLDivElement>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);

  const reload = useCallback(() => {
    client.invoke('inbox.list', {}).then(
      (r) => {
        setEntries(r.entries);
        setUnread(r.unread);
      },
      () => {
        // Not connected yet: the next inbox.changed (or reconnect) reloads.
      },
    );
  }, [client]);

  const openEntry = useCallback(
    (e: InboxEntry) => {
      setView(entryView(e));
      setOpen(false);
      void client.invoke('inbox.markRead', { ids: [e.id] }).catch(() => {
        // Marking read is cosmetic; the entry stays unread and can be marked again.
      });
    },
    [client, setView],
  );

  useEffect(() => {
    reload();
    const offs = [
      client.on('inbox.changed', ({ unread: n }) => {
        setUnread(n);
        reload();
      }),
      client.on('inbox.open', (e) => openEntry(e)),
      client.on('inbox.added', (e) => {
        if (runtime === 'electron' || typeof Notification === 'undefined' || !notificationsEnabled()) return;
        if (!document.hidden && alreadyInFront(viewRef.current, e)) return;
        const n = new Notification(e.title, { body: e.body, tag: e.id });
        n.onclick = () => {
          window.focus();
          openEntry(e);
          n.close();
        };
      }),
    ];
    return () => offs.forEach((off) => off());
  }, [client, reload, openEntry, runtime]);

  useEffect(() => {
    if (!open) return;
    const onDown = (ev: MouseEvent) => {
      if (!panelRef.current?.contains(ev.target as Node) && !buttonRef.current?.contains(ev.target as Node)) setOpen(false);
    };
    const onKey = (ev: KeyboardEvent) => {
      if (ev.key === 'Escape') {
        setOpen(false);
        buttonRef.current?.focus();
      }
    };
    document.addEventListener('mousedown', onDown);
    document.addEventListener('keydown', onKey);
    panelRef.current?.querySelector<HTMLElement>('button')?.focus();
    return () => {
      document.removeEventListener('mousedown', onDown);
      document.removeEventListener('keydown', onKey);
    };
  }, [open]);

  return (
    <span className="inbox">
      <button ref={buttonRef} className="link inbox-button" aria-haspopup="dialog" aria-expanded={open} data-testid="inbox-button" onClick={() => setOpen((o) => !o)} title="Finished, failed and waiting features">
        Inbox{unread > 0 && <span className="inbox-count" data-testid="inbox-count">{unread}</span>}
      </button>
      {open && (
        <div ref={panelRef} className="inbox-panel" role="dialog" aria-label="Inbox" data-testid="inbox-panel">
          <header className="inbox-head">
            <strong>Inbox</strong>
            <span className="spacer" />
            <button className="link small" disabled={unread === 0} onClick={() => void client.invoke('inbox.markRead', {})}>
              Mark all read
            </button>
          </header>
          {entries.length === 0 ? (
            <p className="muted small inbox-empty">Nothing yet. Finished, failed and waiting features show up here.</p>
          ) : (
            <ul className="inbox-list">
              {entries.slice(0, 100).map((e) => (
                <li key={e.id}>
                  <button className={`inbox-entry kind-${e.kind} ${e.read ? 'read' : 'unread'}`} data-testid="inbox-entry" onClick={() => openEntry(e)}>
                    <span className="inbox-title">{e.title}</span>
                    <span className="inbox-body small muted">{e.body}</span>
                    <span className="inbox-time small muted">{relativeTime(e.ts)}</span>
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </span>
  );
}
