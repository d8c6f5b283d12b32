import type { Prices, TokenUsage } from '../../../src-preload/contract';
import type { StoredBlock } from '../store/blocks';

/** Everything needed to call one Anthropic-compatible endpoint. The key never leaves main. */
export interface ResolvedProfile {
  name: string;
  baseUrl: string;
  apiKey: string | null;
  model: string;
  maxTokens: number;
  contextWindow: number;
  prices: Prices;
}

export interface ToolSpec {
  name: string;
  description: string;
  input_schema: Record<string, unknown>;
}

export interface ApiMessage {
  role: 'user' | 'assistant';
  content: StoredBlock[];
}

export interface ModelRequest {
  system: string;
  messages: ApiMessage[];
  tools: ToolSpec[];
  /** Overrides the profile's max tokens (compaction summaries need less). */
  maxTokens?: number;
}

/** What streams out of one model call, normalized (indices are content block indices). */
export type StreamEvent =
  | { type: 'text'; index: number; text: string }
  | { type: 'thinking'; index: number; text: string }
  | { type: 'tool_start'; index: number; id: string; name: string }
  | { type: 'tool_input'; index: number; id: string; partialJson: string };

export interface ModelResponse {
  blocks: StoredBlock[];
  stopReason: string | null;
  usage: TokenUsage;
  model: string;
}

export interface RetryNotice {
  attempt: number;
  maxRetries: number;
  delayMs: number;
  reason: string;
  status: number | null;
}

export interface CallOptions {
  signal: AbortSignal;
  onStream?: (e: StreamEvent) => void;
  onRetry?: (r: RetryNotice) => void;
}

/** A model endpoint. The Anthropic implementation is the only one; tests use it against the scripted server. */
export interface ModelProvider {
  call(request: ModelRequest, opts: CallOptions): Promise<ModelResponse>;
}
