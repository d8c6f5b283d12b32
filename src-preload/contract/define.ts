import type { z } from 'zod';

/** A request channel: what the renderer sends and what main answers. */
export interface RequestSpec<I extends z.ZodType = z.ZodType, O extends z.ZodType = z.ZodType> {
  readonly input: I;
  readonly output: O;
  /** One line for people reading the contract and for `--help` style listings. */
  readonly summary: string;
}

export function request<I extends z.ZodType, O extends z.ZodType>(
  input: I,
  output: O,
  summary: string,
): RequestSpec<I, O> {
  return { input, output, summary };
}

/** An event topic: what main pushes. `keyed` topics are filtered per subscriber key (a run, a terminal). */
export interface EventSpec<P extends z.ZodType = z.ZodType> {
  readonly payload: P;
  readonly keyed: boolean;
  readonly summary: string;
}

export function event<P extends z.ZodType>(payload: P, summary: string, opts: { keyed?: boolean } = {}): EventSpec<P> {
  return { payload, keyed: opts.keyed ?? false, summary };
}
