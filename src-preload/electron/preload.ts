import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { events, requests } from '../contract';
import type { Result } from '../contract/wire';
import { IPC } from './ipc-names';

/**
 * The Electron half of the bridge. The renderer gets one named function per contract channel
 * and a subscribe function limited to contract topics — never ipcRenderer itself.
 */
type Listener = (payload: unknown) => void;
const listeners = new Map<string, Set<Listener>>();
const subKey = (topic: string, key: string | undefined) => `${topic}\u0000${key ?? ''}`;

ipcRenderer.on(IPC.event, (_e: IpcRendererEvent, topic: string, key: string | undefined, payload: unknown) => {
  for (const l of listeners.get(subKey(topic, key)) ?? []) l(payload);
});

const api: Record<string, (input: unknown) => Promise<Result>> = {};
for (const channel of Object.keys(requests)) {
  api[channel] = (input: unknown) => ipcRenderer.invoke(IPC.request, channel, input) as Promise<Result>;
}

contextBridge.exposeInMainWorld('flightdeck', {
  requests: api,
  subscribe(topic: string, key: string | undefined, listener: Listener): () => void {
    if (!Object.prototype.hasOwnProperty.call(events, topic)) throw new Error(`unknown topic ${topic}`);
    const k = subKey(topic, key);
    let set = listeners.get(k);
    if (!set) {
      set = new Set();
      listeners.set(k, set);
      ipcRenderer.send(IPC.subscribe, topic, key);
    }
    set.add(listener);
    return () => {
      const s = listeners.get(k);
      if (!s) return;
      s.delete(listener);
      if (s.size === 0) {
        listeners.delete(k);
        ipcRenderer.send(IPC.unsubscribe, topic, key);
      }
    };
  },
});
