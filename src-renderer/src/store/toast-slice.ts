import type { SliceCreator } from '.';
import { BridgeError } from '../../../src-preload/client/client';

export interface Toast {
  id: number;
  level: 'info' | 'success' | 'warning' | 'error';
  title: string;
  message?: string;
}

export interface ToastSlice {
  toasts: Toast[];
  toast(t: Omit<Toast, 'id'>): number;
  dismissToast(id: number): void;
  /** Shows a failed request as an error toast with the message main wrote for the user. */
  toastError(title: string, e: unknown): void;
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
    get().toast({ level: 'error', title, message });
  },
});
