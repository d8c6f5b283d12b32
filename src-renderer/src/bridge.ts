import { createClient, type Client } from '../../src-preload/client/client';
import { createElectronTransport, type PreloadApi } from '../../src-preload/client/electron-transport';
import { createWebSocketTransport, type EarlySocket } from '../../src-preload/client/ws-transport';

declare global {
  interface Window {
    flightdeck?: PreloadApi;
    /** The socket index.html's inline script opened while the app's scripts loaded. */
    __flightdeckEarlySocket?: EarlySocket;
  }
}

/** The same renderer runs in Electron (preload API) and in a browser (WebSocket to the host). */
export function connect(): Client {
  if (window.flightdeck) return createClient(createElectronTransport(window.flightdeck));
  const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
  const early = window.__flightdeckEarlySocket ?? null;
  delete window.__flightdeckEarlySocket;
  return createClient(createWebSocketTransport(`${scheme}://${location.host}/ws`, early));
}
