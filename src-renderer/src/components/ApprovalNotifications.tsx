import { useEffect, useRef, useState } from 'react';
import { useAppStore } from '../store';
import { afterIdle } from '../lib/after-idle';
import { newApprovals, shouldNotify } from '../lib/approval-notify';

/** Remembered per browser: the permission is the browser's, and so is the choice to use it. */
const STORAGE_KEY = 'flightdeck.notifyApprovals';

const supported = () => typeof window !== 'undefined' && 'Notification' in window;

function readEnabled(): boolean {
  try {
    return localStorage.getItem(STORAGE_KEY) === '1';
  } catch {
    // Storage blocked (privacy mode): notifications stay off, as if never turned on.
    return false;
  }
}

/** Whether the user turned browser notifications on here and the browser allows them (the inbox uses the same switch). */
export function notificationsEnabled(): boolean {
  return supported() && Notification.permission === 'granted' && readEnabled();
}

function writeEnabled(on: boolean): void {
  try {
    localStorage.setItem(STORAGE_KEY, on ? '1' : '0');
  } catch {
    // Storage blocked: the choice holds for this page only.
  }
}

/**
 * Browser mode: a status-bar switch for notifications when an approval is waiting, and the
 * notifications themselves. Permission is asked when the user turns them on, never on load;
 * clicking a notification opens its session with the approval in front.
 */
export function ApprovalNotifications() {
  const info = useAppStore((s) => s.info);
  const approvals = useAppStore((s) => s.approvals);
  const sessionsLoaded = useAppStore((s) => s.sessionsLoaded);
  const [enabled, setEnabled] = useState(readEnabled);
  // Read once the page is idle, not while it renders: the first read of Notification.permission
  // asks the browser process and waits for it, up to 15 ms while the page loads (null: not read yet).
  const [permission, setPermission] = useState<NotificationPermission | 'unsupported' | null>(() => (supported() ? null : 'unsupported'));
  useEffect(() => (supported() ? afterIdle(() => setPermission(Notification.permission)) : undefined), []);
  const seen = useRef<Set<string> | null>(null);
  const sessions = useAppStore((s) => s.sessions);
  const view = useAppStore((s) => s.view);
  const setView = useAppStore((s) => s.setView);
  const reviewApproval = useAppStore((s) => s.reviewApproval);

  useEffect(() => {
    if (!sessionsLoaded) return;
    // The approvals already waiting at load were seen in the list; only new ones notify.
    if (seen.current === null) {
      seen.current = new Set(approvals.map((a) => a.id));
      return;
    }
    for (const a of newApprovals(seen.current, approvals)) {
      const openSessionId = view.name === 'session' ? view.sessionId : null;
      if (!supported() || !shouldNotify({ enabled, permission: Notification.permission, hidden: document.hidden, openSessionId, approvalSessionId: a.sessionId })) continue;
      const title = sessions.find((s) => s.id === a.sessionId)?.title ?? 'A session';
      const n = new Notification('Approval waiting', { body: `${title}: ${a.summary}`, tag: a.id });
      n.onclick = () => {
        window.focus();
        setView({ name: 'session', sessionId: a.sessionId });
        reviewApproval({ approvalId: a.id });
        n.close();
      };
    }
    // Re-run on view changes too: newApprovals only hands out approvals not seen before.
  }, [approvals, sessionsLoaded, enabled, sessions, view, setView, reviewApproval]);

  if (!info || info.runtime === 'electron' || permission === 'unsupported' || permission === null) return null;
  const on = enabled && permission === 'granted';
  return (
    <button
      className="link statusbar-notify"
      data-testid="notify-toggle"
      title={permission === 'denied' ? 'The browser blocks notifications for this page; allow them in its site settings' : on ? 'Stop notifying' : 'Show a browser notification when an approval is waiting or a feature finishes, fails or needs you'}
      disabled={permission === 'denied'}
      onClick={async () => {
        if (on) {
          setEnabled(false);
          writeEnabled(false);
          return;
        }
        const p = permission === 'granted' ? 'granted' : await Notification.requestPermission();
        setPermission(p);
        setEnabled(p === 'granted');
        writeEnabled(p === 'granted');
      }}
    >
      {permission === 'denied' ? 'Notifications blocked' : on ? 'Notifications on' : 'Turn on notifications'}
    </button>
  );
}
