import type { Channel, InputOf, OutputOf, PayloadOf, Topic } from '../contract';
import type { BridgeErrorShape, ErrorCode } from '../contract/errors';
import type { Transport } from './transport';

/** A failed request as the renderer sees it. */
export class BridgeError extends Error {
  override readonly name = 'BridgeError';
  readonly code: ErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(shape: BridgeErrorShape) {
    super(shape.message);
    this.code = shape.code;
    this.details = shape.details;
  }
}

export interface Client {
  invoke<C extends Channel>(channel: C, input: InputOf<C>): Promise<OutputOf<C>>;
  on<T extends Topic>(topic: T, listener: (payload: PayloadOf<T>) => void, key?: string): () => void;
  /**
   * Keystrokes for a terminal (at most TERMINAL_MAX_INPUT_CHARS): on the transport's direct way
   * when it has one for this terminal, else `terminals.write`. Send a terminal's input in order,
   * each piece once the previous one has settled.
   */
  typeInto(id: string, data: string): Promise<void>;
  readonly transport: Transport;
}

/**
 * The typed client. Main validates inputs and outputs against the contract, so the client
 * trusts the shapes it gets back and only unwraps them.
 */
export function createClient(transport: Transport): Client {
  const invoke: Client['invoke'] = async (channel, input) => {
    const result = await transport.invoke(channel, input);
    if (!result.ok) throw new BridgeError(result.error);
    return result.value as never;
  };
  return {
    transport,
    invoke,
    on(topic, listener, key) {
      return transport.subscribe(topic, key, listener as (p: unknown) => void);
    },
    async typeInto(id, data) {
      if (transport.typeInto?.(id, data)) return;
      await invoke('terminals.write', { id, data });
    },
  };
}
