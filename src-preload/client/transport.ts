import type { Result } from '../contract/wire';

/**
 * The only thing the renderer's client needs from a transport. Electron's preload and the
 * browser-mode WebSocket both provide it, so renderer code is identical on both.
 */
export interface Transport {
  invoke(channel: string, input: unknown): Promise<Result>;
  /** Returns the unsubscribe function. */
  subscribe(topic: string, key: string | undefined, listener: (payload: unknown) => void): () => void;
  /** Connection state, for the status bar. Electron is always 'open'. */
  onStatus?(listener: (status: TransportStatus) => void): () => void;
  /**
   * Terminal output may have been lost on the way while the connection stayed up (browser
   * mode's direct output socket dropped): terminal views attach again, which replays what they
   * are missing from the scrollback.
   */
  onResync?(listener: () => void): () => void;
  /**
   * Sends keystrokes for a terminal on a faster way than `terminals.write` if there is one
   * (browser mode: the direct socket, straight to the pty host, once that terminal's output
   * comes over it); false when there is none and the caller should use `terminals.write`.
   * Fire and forget, like a keystroke written to a socket.
   */
  typeInto?(id: string, data: string): boolean;
}

/** `unauthorized`: the host is up but refuses this page's token (it restarted with a new one). */
export type TransportStatus = 'connecting' | 'open' | 'closed' | 'unauthorized';
