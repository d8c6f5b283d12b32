import type { Result } from '../contract/wire';
import type { Transport } from './transport';

/** What the Electron preload exposes on `window.flightdeck`. */
export interface PreloadApi {
  requests: Record<string, (input: unknown) => Promise<Result>>;
  subscribe(topic: string, key: string | undefined, listener: (payload: unknown) => void): () => void;
}

export function createElectronTransport(api: PreloadApi): Transport {
  return {
    invoke(channel, input) {
      const fn = api.requests[channel];
      if (!fn) return Promise.resolve({ ok: false, error: { code: 'unknown_channel', message: `Unknown channel ${channel}` } });
      return fn(input);
    },
    subscribe: (topic, key, listener) => api.subscribe(topic, key, listener),
  };
}
