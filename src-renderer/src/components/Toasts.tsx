import { useEffect, useState } from 'react';
import { useAppStore } from '../store';
import { Icon, type IconName } from './Icon';
import type { Toast } from '../store/toast-slice';

/** Notes fade after a while; errors stay longer (there is more to read), then go too: a toast that stays hides what is under it. */
const AUTO_DISMISS_MS = 5_000;
const ERROR_DISMISS_MS = 12_000;
const ICONS: Record<Toast['level'], IconName> = { info: 'info', success: 'check', warning: 'alert', error: 'alert' };

function ToastItem({ toast }: { toast: Toast }) {
  const dismiss = useAppStore((s) => s.dismissToast);
  // Being read (pointer over it, or focus in it): it stays until the reader moves on.
  const [held, setHeld] = useState(false);
  useEffect(() => {
    if (held) return;
    const t = setTimeout(() => dismiss(toast.id), toast.level === 'error' ? ERROR_DISMISS_MS : AUTO_DISMISS_MS);
    return () => clearTimeout(t);
  }, [toast, dismiss, held]);
  return (
    <div
      className={`toast toast-${toast.level}`}
      role={toast.level === 'error' ? 'alert' : 'status'}
      data-testid="toast"
      onMouseEnter={() => setHeld(true)}
      onMouseLeave={() => setHeld(false)}
      onFocus={() => setHeld(true)}
      onBlur={() => setHeld(false)}
    >
      <Icon name={ICONS[toast.level]} size={18} />
      <div className="toast-body">
        <strong>{toast.title}</strong>
        {toast.message && <p>{toast.message}</p>}
      </div>
      <button className="icon-button" aria-label="Dismiss" onClick={() => dismiss(toast.id)}>
        <Icon name="x" />
      </button>
    </div>
  );
}

export function Toasts() {
  const toasts = useAppStore((s) => s.toasts);
  return (
    <div className="toasts" aria-live="polite">
      {toasts.map((t) => (
        <ToastItem key={t.id} toast={t} />
      ))}
    </div>
  );
}
