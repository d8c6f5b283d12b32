import type { Prices, TokenUsage } from '../../../src-preload/contract';

const PER_MILLION = 1_000_000;

/**
 * USD for one call. Anthropic reports cache reads and writes separately from `input_tokens`
 * (which counts only uncached input), so each bucket has its own price and none is counted twice.
 */
export function priceUsage(usage: TokenUsage, prices: Prices): number {
  const usd =
    (usage.inputTokens * prices.inputPerMTok +
      usage.outputTokens * prices.outputPerMTok +
      usage.cacheReadTokens * prices.cacheReadPerMTok +
      usage.cacheWriteTokens * prices.cacheWritePerMTok) /
    PER_MILLION;
  // Round to a millionth of a cent: sums of many calls stay exact enough and JSON stays short.
  return Math.round(usd * 1e8) / 1e8;
}
