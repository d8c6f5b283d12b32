import { decodeTerminalDataFrame, encodeTerminalInputFrame, type TerminalDataBytes } from '../contract/terminal-frames';
import { DIRECT_SOCKET_PATH, readHostFrame } from '../contract/host-frames';
import type { ClientFrame, Result } from '../contract/wire';
import { ListenerRegistry } from './listeners';
import type { Transport, TransportStatus } from './transport';

/** Reconnect delays: quick first retry for a host restart, capped so a dead host costs little. */
const RECONNECT_BASE_MS = 250;
const RECONNECT_MAX_MS = 5_000;
/**
 * Direct frames held for one terminal until the main socket says it switched (`directRouted`).
 * Flow control keeps a terminal's output in flight under 4 MB plus a batch; past this the held
 * frames are dropped (the view sees the gap and replays it from the scrollback).
 */
const DIRECT_HELD_MAX_BYTES = 8 * 1024 * 1024;
/**
 * Keystrokes and small pastes go on the direct socket; a larger piece of a paste goes as
 * `terminals.write`, whose answer comes once the main process has written it to the pty host,
 * so a long paste is sent piece by piece at the pace the host takes it, and a failed piece is
 * reported, instead of megabytes waiting in this socket's send buffer.
 */
const DIRECT_INPUT_MAX_CHARS = 4 * 1024;

interface Pending {
  resolve(result: Result): void;
}

/**
 * Browser-mode transport: the contract over one WebSocket. Requests in flight when the socket
 * drops fail with `unavailable`; subscriptions are replayed on reconnect.
 *
 * When the host offers it (a `direct` frame with a ticket), terminal output arrives on a
 * second WebSocket written by the pty host itself (see
 * src-main/terminals/pty-host/direct-sockets.ts); its frames are dispatched exactly like the
 * main socket's, and views drop by offset whatever both carried. If it drops, the host says so
 * on the main socket (`directLost`), views resync, and the output continues on the main socket
 * until the host offers a direct socket again.
 *
 * A terminal's direct frames are dispatched only once the main socket has said the terminal
 * switched (`directRouted`, sent after all of its output the main socket carried): a view
 * attached before the direct socket opened is switched mid-stream, and the direct socket would
 * otherwise overtake the main socket's backlog (the view saw a gap, attached again and dropped
 * what both paths then carried).
 *
 * Keystrokes for a terminal switched to the direct socket go on it too (`typeInto`), straight
 * to the pty host: the echo's round trip no longer waits for the main process twice. Callers
 * send a terminal's input in order and the next piece only once the previous one was answered
 * (TerminalView's chain), and `terminals.write` is answered once main has written the input to
 * the pty host's channel, so a keystroke sent on the main socket before the switch is in that
 * channel before any sent on the direct socket.
 */
/**
 * A socket to the host that the page opened before this transport existed (browser mode: the
 * inline script in src-renderer/index.html, while the app's scripts loaded), with the messages
 * it received meanwhile, in order.
 */
export interface EarlySocket {
  socket: WebSocket;
  messages: MessageEvent[];
}

export function createWebSocketTransport(url: string, early: EarlySocket | null = null): Transport {
  let socket: WebSocket | null = null;
  // Taken over by the first connection if it is this transport's and still connecting or open.
  let adoptable: EarlySocket | null = null;
  if (early && early.socket.url === url && early.socket.readyState <= WebSocket.OPEN) adoptable = early;
  else early?.socket.close();
  let nextId = 1;
  let attempt = 0;
  let status: TransportStatus = 'connecting';
  const pending = new Map<number, Pending>();
  const queue: ClientFrame[] = [];
  const statusListeners = new Set<(s: TransportStatus) => void>();
  const resyncListeners = new Set<() => void>();
  let direct: WebSocket | null = null;
  let directFailures = 0;
  let directTimer: ReturnType<typeof setTimeout> | null = null;
  /** Terminals the main socket said switched to the current direct socket. */
  const directRouted = new Set<string>();
  /** Direct frames of terminals not switched yet, in order. */
  const directHeld = new Map<string, { frames: TerminalDataBytes[]; bytes: number }>();
  const listeners = new ListenerRegistry(
    (topic, key) => send({ type: 'subscribe', topic, ...(key ? { key } : {}) }),
    (topic, key) => send({ type: 'unsubscribe', topic, ...(key ? { key } : {}) }),
  );

  function setStatus(s: TransportStatus) {
    status = s;
    for (const l of statusListeners) l(s);
  }

  function send(frame: ClientFrame) {
    if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(frame));
    else if (frame.type !== 'unsubscribe') queue.push(frame);
  }

  /** A WebSocket refused at the upgrade looks like any other failure: ask the host over HTTP. */
  async function refusedToken(): Promise<boolean> {
    try {
      const page = url.replace(/^ws/, 'http').replace(/\/ws$/, '/');
      const res = await fetch(page, { method: 'HEAD', credentials: 'same-origin' });
      return res.status === 401;
    } catch {
      // Host down: that is "closed", not "unauthorized".
      return false;
    }
  }

  function onTerminalFrame(data: ArrayBuffer): void {
    const f = decodeTerminalDataFrame(data);
    if (f) listeners.dispatch('terminals.data', f.key, f.payload);
  }

  function onDirectFrame(data: ArrayBuffer): void {
    const f = decodeTerminalDataFrame(data);
    if (!f) return;
    if (directRouted.has(f.key)) return listeners.dispatch('terminals.data', f.key, f.payload);
    const held = directHeld.get(f.key) ?? { frames: [], bytes: 0 };
    if (held.bytes + data.byteLength > DIRECT_HELD_MAX_BYTES) {
      held.frames = [];
      held.bytes = 0;
    }
    held.frames.push(f.payload);
    held.bytes += data.byteLength;
    directHeld.set(f.key, held);
  }

  /** The main socket carried all of terminal `key`'s output before its switch: the direct frames go on now. */
  function onDirectRouted(key: string): void {
    directRouted.add(key);
    const held = directHeld.get(key);
    directHeld.delete(key);
    for (const payload of held?.frames ?? []) listeners.dispatch('terminals.data', key, payload);
  }

  /** Opens the direct output socket a `direct` frame offered, after a back-off if the last ones failed. */
  function openDirect(ticket: string, main: WebSocket): void {
    if (direct || directTimer) return;
    const delay = directFailures === 0 ? 0 : Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** (directFailures - 1));
    directTimer = setTimeout(() => {
      directTimer = null;
      if (socket !== main || main.readyState !== WebSocket.OPEN || direct) return;
      const u = new URL(url);
      u.pathname = DIRECT_SOCKET_PATH;
      u.searchParams.set('ticket', ticket);
      const d = new WebSocket(u.toString());
      d.binaryType = 'arraybuffer';
      direct = d;
      let opened = false;
      d.onopen = () => {
        opened = true;
        directFailures = 0;
      };
      d.onmessage = (msg) => {
        if (typeof msg.data !== 'string') onDirectFrame(msg.data as ArrayBuffer);
      };
      d.onclose = () => {
        if (direct === d) direct = null;
        // Views resync on the host's `directLost`, sent once it no longer skips this connection's output.
        if (!opened) directFailures++;
      };
    }, delay);
  }

  function closeDirect(): void {
    if (directTimer) clearTimeout(directTimer);
    directTimer = null;
    direct?.close();
    direct = null;
    // The next direct socket carries a terminal only once routed to it, and says so again.
    directRouted.clear();
    directHeld.clear();
  }

  function connect() {
    if (status !== 'unauthorized') setStatus('connecting');
    const taken = adoptable;
    adoptable = null;
    const ws = taken?.socket ?? new WebSocket(url);
    // Terminal output arrives as binary frames (terminal-frames.ts); ArrayBuffer decodes synchronously.
    ws.binaryType = 'arraybuffer';
    socket = ws;
    let opened = false;
    const onOpen = () => {
      opened = true;
      attempt = 0;
      setStatus('open');
      for (const { topic, key } of listeners.pairs()) {
        ws.send(JSON.stringify({ type: 'subscribe', topic, ...(key ? { key } : {}) } satisfies ClientFrame));
      }
      for (const frame of queue.splice(0)) {
        if (frame.type !== 'subscribe') ws.send(JSON.stringify(frame));
      }
    };
    ws.onopen = onOpen;
    const onMessage = (msg: MessageEvent) => {
      if (typeof msg.data !== 'string') return onTerminalFrame(msg.data as ArrayBuffer);
      const frame = readHostFrame(JSON.parse(String(msg.data)));
      if (!frame) return;
      if (frame.type === 'result') {
        pending.get(frame.id)?.resolve(frame.result);
        pending.delete(frame.id);
      } else if (frame.type === 'event') {
        listeners.dispatch(frame.topic, frame.key, frame.payload);
      } else if (frame.type === 'direct') {
        openDirect(frame.ticket, ws);
      } else if (frame.type === 'directLost') {
        closeDirect();
        for (const l of resyncListeners) l();
      } else if (frame.type === 'directRouted') {
        onDirectRouted(frame.key);
      } else {
        // Only a client far outside the app's own use gets here (see src-main/bridge/limits.ts).
        console.warn(`Flightdeck refused a subscription to ${frame.topic ?? 'a topic'}: ${frame.error.message}`);
      }
    };
    ws.onmessage = onMessage;
    ws.onclose = () => {
      if (socket !== ws) return;
      // The host drops it with the connection anyway; the next connection gets a new ticket.
      closeDirect();
      if (status !== 'unauthorized') setStatus('closed');
      for (const [id, p] of pending) {
        p.resolve({ ok: false, error: { code: 'unavailable', message: 'The connection to Flightdeck was lost before it answered (it may have been done; a message sent again is not sent twice). Reconnecting…' } });
        pending.delete(id);
      }
      // A request the caller was told failed must never run later: drop queued invokes.
      for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.type === 'invoke') queue.splice(i, 1);
      const delay = Math.min(RECONNECT_MAX_MS, RECONNECT_BASE_MS * 2 ** attempt++);
      setTimeout(connect, delay);
      if (!opened && typeof fetch === 'function') {
        void refusedToken().then((refused) => {
          if (refused && socket === ws) setStatus('unauthorized');
        });
      }
    };
    if (taken) {
      // Its open event may have come and gone: what it would have done, now, then what arrived
      // since (in this same task: nothing can come between).
      if (ws.readyState === WebSocket.OPEN) onOpen();
      for (const m of taken.messages.splice(0)) {
        // As in an event handler: one bad message must not stop the app's start (or the rest).
        try {
          onMessage(m);
        } catch (e) {
          console.error(e);
        }
      }
    }
  }

  connect();

  return {
    invoke(channel, input) {
      const id = nextId++;
      return new Promise<Result>((resolve) => {
        pending.set(id, { resolve });
        send({ type: 'invoke', id, channel, input });
      });
    },
    subscribe: (topic, key, listener) => listeners.add(topic, key, listener),
    onStatus(listener) {
      statusListeners.add(listener);
      listener(status);
      return () => statusListeners.delete(listener);
    },
    onResync(listener) {
      resyncListeners.add(listener);
      return () => resyncListeners.delete(listener);
    },
    typeInto(id, data) {
      const d = direct;
      if (!d || d.readyState !== WebSocket.OPEN || !directRouted.has(id)) return false;
      if (data.length === 0 || data.length > DIRECT_INPUT_MAX_CHARS) return false;
      d.send(encodeTerminalInputFrame(id, data));
      return true;
    },
  };
}
