import { useEffect } from 'react';
import { useAppStore } from '../store';
import { Icon, type IconName } from './Icon';
import type { Toast } from '../store/toast-slice';

/** Errors stay until dismissed (the user may need to read them); the rest fade after a while. */
const AUTO_DISMISS_MS = 5_000;
const ICONS: Record<Toast['level'], IconName> = { info: 'info', success: 'check', warning: 'alert', error: 'alert' };

function ToastItem({ toast }: { toast: Toast }) {
  const dismiss = useAppStore((s) => s.dismissToast);
  useEffect(() => {
    if (toast.level === 'error') return;
    const t = setTimeout(() => dismiss(toast.id), AUTO_DISMISS_MS);
    return () => clearTimeout(t);
  }, [toast, dismiss]);
  return (
    <div className={`toast toast-${toast.level}`} role={toast.level === 'error' ? 'alert' : 'status'}>
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
