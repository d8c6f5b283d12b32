import { AppError, isChannel, requests, type Channel, type OutputOf, type ParsedInputOf } from '../../src-preload/contract';
import type { Result } from '../../src-preload/contract/wire';
import type { Logger } from '../platform/logger';
import { deepFreeze, isReusableAnswer, reusableAnswer } from './reusable';

/** Who is calling: one Electron window or one WebSocket connection. */
export interface CallContext {
  readonly origin: 'electron' | 'browser' | 'cli' | 'test';
  readonly connectionId: string;
}

export type Handler<C extends Channel> = (input: ParsedInputOf<C>, ctx: CallContext) => Promise<OutputOf<C>> | OutputOf<C>;

/**
 * Transport-agnostic dispatch: validates the channel and the payload against the contract
 * before any handler runs, validates what the handler returns (zod strips unknown fields, so
 * nothing outside the schema — a secret, a stack — can leak), and turns failures into
 * `{ code, message, details }`.
 */
export class Router {
  private readonly handlers = new Map<Channel, Handler<Channel>>();
  /**
   * Reusable answers already checked (see reusable.ts), with the channel that checked them and
   * what the check made of them: checked once, not at each call. Any other answer is checked
   * every time.
   */
  private readonly checked = new WeakMap<object, { channel: Channel; value: unknown }>();

  /**
   * Maps failures a handler did not anticipate to typed ones before they cross (a write on a
   * full disk becomes `disk_full`): set once by the composition root, so no handler needs to.
   */
  translateError: ((e: unknown) => unknown) | null = null;

  constructor(private readonly log: Logger) {}

  handle<C extends Channel>(channel: C, handler: Handler<C>): void {
    if (this.handlers.has(channel)) throw new Error(`handler for ${channel} registered twice`);
    this.handlers.set(channel, handler as unknown as Handler<Channel>);
  }

  /** Channels with a handler, for tests that check the wiring against the contract. */
  handled(): string[] {
    return [...this.handlers.keys()];
  }

  /** Channels of the contract nobody handles: a wiring bug, checked at start and in tests. */
  unhandled(): Channel[] {
    return (Object.keys(requests) as Channel[]).filter((c) => !this.handlers.has(c));
  }

  async dispatch(channel: unknown, payload: unknown, ctx: CallContext): Promise<Result> {
    if (!isChannel(channel)) {
      return { ok: false, error: { code: 'unknown_channel', message: `Unknown channel ${String(channel).slice(0, 100)}` } };
    }
    const spec = requests[channel];
    const parsed = spec.input.safeParse(payload ?? {});
    if (!parsed.success) {
      return {
        ok: false,
        error: {
          code: 'invalid_input',
          message: parsed.error.issues.map((i) => (i.path.length ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; '),
          details: { channel },
        },
      };
    }
    const handler = this.handlers.get(channel);
    if (!handler) return { ok: false, error: { code: 'unavailable', message: `${channel} is not available here` } };
    try {
      const value: unknown = await handler(parsed.data as never, ctx);
      const reusable = isReusableAnswer(value);
      const seen = reusable ? this.checked.get(value) : undefined;
      if (seen?.channel === channel) return { ok: true, value: seen.value };
      const out = spec.output.safeParse(value);
      if (!out.success) {
        this.log.error('handler returned a value outside the contract', { channel, issues: out.error.issues.slice(0, 5) });
        return { ok: false, error: { code: 'internal', message: `Internal error in ${channel}` } };
      }
      // What the check made is handed to every caller from now on: none may change it.
      if (reusable && typeof out.data === 'object' && out.data !== null) this.checked.set(value, { channel, value: reusableAnswer(deepFreeze(out.data)) });
      return { ok: true, value: out.data };
    } catch (thrown) {
      const e = this.translateError ? this.translateError(thrown) : thrown;
      if (e instanceof AppError) return { ok: false, error: e.toShape() };
      this.log.error('handler failed', { channel, error: e });
      const name = e instanceof Error ? e.name : 'Error';
      const message = e instanceof Error ? e.message : String(e);
      return { ok: false, error: { code: 'internal', message: `${name}: ${message}` } };
    }
  }
}
