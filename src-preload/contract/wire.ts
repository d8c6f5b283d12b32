import { z } from 'zod';
import { BridgeErrorShape } from './errors';

/** What a request answers on any transport: a value, or a typed error (never a stack). */
export const Result = z.discriminatedUnion('ok', [
  z.object({ ok: z.literal(true), value: z.unknown() }),
  z.object({ ok: z.literal(false), error: BridgeErrorShape }),
]);
export type Result = z.infer<typeof Result>;

/** A subscription key narrows a keyed topic to one run, terminal, session... */
export const SubscriptionKey = z.string().min(1).max(200);

/** Client → host frames of the browser-mode WebSocket. */
export const ClientFrame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('invoke'), id: z.number().int().nonnegative(), channel: z.string().max(200), input: z.unknown() }),
  z.object({ type: z.literal('subscribe'), topic: z.string().max(200), key: SubscriptionKey.optional() }),
  z.object({ type: z.literal('unsubscribe'), topic: z.string().max(200), key: SubscriptionKey.optional() }),
]);
export type ClientFrame = z.infer<typeof ClientFrame>;

/** Host → client frames. */
export const HostFrame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('result'), id: z.number().int(), result: Result }),
  z.object({ type: z.literal('event'), topic: z.string(), key: z.string().optional(), payload: z.unknown() }),
  /** A frame the host refused that has no request id to answer to (a subscription past the limit). */
  z.object({ type: z.literal('refused'), topic: z.string().optional(), key: z.string().optional(), error: BridgeErrorShape }),
  /**
   * The host offers a direct terminal output socket (DIRECT_SOCKET_PATH with this ticket): the
   * pty host then writes this connection's terminal output to it instead of this socket.
   */
  z.object({ type: z.literal('direct'), ticket: z.string().min(1).max(100) }),
  /**
   * The direct socket closed; its output continues on this socket from here. Views attach again
   * (what the direct socket had not delivered is replayed from the scrollback).
   */
  z.object({ type: z.literal('directLost') }),
  /**
   * From here on terminal `key`'s output comes on the direct socket: sent in the terminal's turn
   * on this socket, after all of its output this socket carried. Its direct frames that arrive
   * before this are held until it comes, so a view switched mid-stream sees no gap.
   */
  z.object({ type: z.literal('directRouted'), key: z.string().min(1).max(200) }),
]);

export { DIRECT_SOCKET_PATH } from './host-frames';
export type HostFrame = z.infer<typeof HostFrame>;

/**
 * The largest frame the host accepts from a client: pasted text and file paths fit easily, and
 * so do the images of one input (MAX_INPUT_IMAGE_BYTES, a third larger as base64).
 */
export const MAX_CLIENT_FRAME_BYTES = 8 * 1024 * 1024;
