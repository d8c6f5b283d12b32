/**
 * Metric deltas: some backends report cumulative figures (Claude Code's session cost, a
 * session's running totals), while a phase's record wants what each interaction added. The
 * tracker turns a series of cumulative readings into per-interaction deltas; the phase record
 * accumulates them across review and verify rounds, and the totals are always the sum of the
 * phases (state.ts `withTotals`). Pure.
 */
import type { PhaseRecord } from '../state';

export interface Usage {
  turns: number;
  costUsd: number;
  inputTokens: number;
  outputTokens: number;
}

export const ZERO_USAGE: Usage = Object.freeze({ turns: 0, costUsd: 0, inputTokens: 0, outputTokens: 0 });

// Cost sums of many small floats drift in the last digits; state.yml shows cents, so micro-dollars are exact enough.
const USD_DIGITS = 1e6;
export function roundUsd(v: number): number {
  return Math.round(v * USD_DIGITS) / USD_DIGITS;
}

function sub(a: number, b: number): number {
  return Math.max(0, a - b);
}

/**
 * Cumulative → delta. A reading lower than the previous one means the counter started over (a
 * new session after a lost one): that reading is all new.
 */
export class CumulativeTracker {
  private last: Usage = ZERO_USAGE;

  constructor(start: Usage = ZERO_USAGE) {
    this.last = { ...start };
  }

  delta(cumulative: Usage): Usage {
    const reset = cumulative.costUsd < this.last.costUsd || cumulative.turns < this.last.turns || cumulative.inputTokens < this.last.inputTokens || cumulative.outputTokens < this.last.outputTokens;
    const base = reset ? ZERO_USAGE : this.last;
    const d: Usage = {
      turns: sub(cumulative.turns, base.turns),
      costUsd: roundUsd(sub(cumulative.costUsd, base.costUsd)),
      inputTokens: sub(cumulative.inputTokens, base.inputTokens),
      outputTokens: sub(cumulative.outputTokens, base.outputTokens),
    };
    this.last = { ...cumulative };
    return d;
  }
}

/** The phase record with one interaction's delta and elapsed time added. */
export function addToPhase(p: PhaseRecord, d: Usage, elapsedSecs: number): PhaseRecord {
  return {
    ...p,
    turns: p.turns + d.turns,
    cost_usd: roundUsd(p.cost_usd + d.costUsd),
    cost: { input_tokens: p.cost.input_tokens + d.inputTokens, output_tokens: p.cost.output_tokens + d.outputTokens },
    duration_secs: Math.round((p.duration_secs + Math.max(0, elapsedSecs)) * 10) / 10,
  };
}

export function usageOfPhase(p: PhaseRecord): Usage {
  return { turns: p.turns, costUsd: p.cost_usd, inputTokens: p.cost.input_tokens, outputTokens: p.cost.output_tokens };
}
