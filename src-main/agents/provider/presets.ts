import type { Prices, ProviderPresetId } from '../../../src-preload/contract';

export interface ProviderPreset {
  id: Exclude<ProviderPresetId, 'custom'>;
  label: string;
  baseUrl: string;
  model: string;
  maxTokens: number;
  contextWindow: number;
  /**
   * List prices in USD per million tokens when this preset was written. They are defaults
   * for cost accounting only; users edit them per profile when the vendor changes them.
   */
  prices: Prices;
}

/** Built-in profiles: Anthropic and the Anthropic-compatible endpoints of GLM, MiniMax and DeepSeek. */
export const PRESETS: readonly ProviderPreset[] = [
  {
    id: 'anthropic',
    label: 'Anthropic',
    baseUrl: 'https://api.anthropic.com',
    model: 'claude-sonnet-5',
    // 16k leaves room for long edits without letting one answer run away with the budget.
    maxTokens: 16_384,
    contextWindow: 200_000,
    prices: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 },
  },
  {
    id: 'glm',
    label: 'GLM (Zhipu)',
    baseUrl: 'https://open.bigmodel.cn/api/anthropic',
    model: 'glm-4.7',
    maxTokens: 16_384,
    contextWindow: 200_000,
    prices: { inputPerMTok: 0.6, outputPerMTok: 2.2, cacheReadPerMTok: 0.11, cacheWritePerMTok: 0 },
  },
  {
    id: 'minimax',
    label: 'MiniMax',
    baseUrl: 'https://api.minimax.io/anthropic',
    model: 'MiniMax-M2',
    maxTokens: 16_384,
    contextWindow: 204_800,
    prices: { inputPerMTok: 0.3, outputPerMTok: 1.2, cacheReadPerMTok: 0.03, cacheWritePerMTok: 0.375 },
  },
  {
    id: 'deepseek',
    label: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com/anthropic',
    model: 'deepseek-chat',
    // DeepSeek's chat model caps output at 8k tokens.
    maxTokens: 8_192,
    contextWindow: 128_000,
    prices: { inputPerMTok: 0.28, outputPerMTok: 0.42, cacheReadPerMTok: 0.028, cacheWritePerMTok: 0 },
  },
];

/**
 * Whether a profile's model takes image blocks. Claude models do; GLM's Anthropic endpoint only
 * with its vision models (names such as glm-4.5v); MiniMax's and DeepSeek's Anthropic endpoints
 * document text only. A custom endpoint is the user's choice: its answer says if it cannot.
 */
export function acceptsImages(preset: ProviderPresetId, model: string): boolean {
  switch (preset) {
    case 'anthropic':
    case 'custom':
      return true;
    case 'glm':
      return /^glm-[\d.]+v\b/i.test(model);
    case 'minimax':
    case 'deepseek':
      return false;
  }
}

export function presetById(id: string): ProviderPreset | undefined {
  return PRESETS.find((p) => p.id === id);
}
