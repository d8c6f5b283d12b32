import { contextBridge, ipcRenderer, type IpcRendererEvent } from 'electron';
import { events, requests } from '../contract';
import type { Result } from '../contract/wire';
import { IPC } from './ipc-names';
import { ListenerRegistry, type Listener } from '../client/listeners';

/**
 * The Electron half of the bridge. The renderer gets one named function per contract channel
 * and a subscribe function limited to contract topics — never ipcRenderer itself.
 */
const listeners = new ListenerRegistry(
  (topic, key) => ipcRenderer.send(IPC.subscribe, topic, key),
  (topic, key) => ipcRenderer.send(IPC.unsubscribe, topic, key),
);

ipcRenderer.on(IPC.event, (_e: IpcRendererEvent, topic: string, key: string | undefined, payload: unknown) => {
  listeners.dispatch(topic, key, payload);
});

const api: Record<string, (input: unknown) => Promise<Result>> = {};
for (const channel of Object.keys(requests)) {
  api[channel] = (input: unknown) => ipcRenderer.invoke(IPC.request, channel, input) as Promise<Result>;
}

contextBridge.exposeInMainWorld('flightdeck', {
  requests: api,
  subscribe(topic: string, key: string | undefined, listener: Listener): () => void {
    if (!Object.prototype.hasOwnProperty.call(events, topic)) throw new Error(`unknown topic ${topic}`);
    return listeners.add(topic, key, listener);
  },
});
