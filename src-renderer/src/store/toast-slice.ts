import type { SliceCreator } from '.';
import { BridgeError } from '../../../src-preload/client/client';

export interface Toast {
  id: number;
  level: 'info' | 'success' | 'warning' | 'error';
  title: string;
  message?: string;
  /** About the lost connection: removed as soon as the connection is back (it no longer applies). */
  connection?: boolean;
}

export interface ToastSlice {
  toasts: Toast[];
  toast(t: Omit<Toast, 'id'>): number;
  dismissToast(id: number): void;
  /** Shows a failed request as an error toast with the message main wrote for the user. */
  toastError(title: string, e: unknown): void;
  /** The connection is back: toasts that only said it was lost go. */
  clearConnectionToasts(): void;
}

let nextToastId = 1;

export const createToastSlice: SliceCreator<ToastSlice> = (set, get) => ({
  toasts: [],
  toast(t) {
    const id = nextToastId++;
    set((s) => ({ toasts: [...s.toasts.slice(-4), { ...t, id }] }));
    return id;
  },
  dismissToast(id) {
    set((s) => ({ toasts: s.toasts.filter((t) => t.id !== id) }));
  },
  toastError(title, e) {
    const message = e instanceof BridgeError || e instanceof Error ? e.message : String(e);
    // Failed because the connection dropped: a warning that clears itself on reconnect.
    if (e instanceof BridgeError && e.code === 'unavailable') get().toast({ level: 'warning', title, message, connection: true });
    else get().toast({ level: 'error', title, message });
  },
  clearConnectionToasts() {
    if (get().toasts.some((t) => t.connection)) set((s) => ({ toasts: s.toasts.filter((t) => !t.connection) }));
  },
});
