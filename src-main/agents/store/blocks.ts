import type { ImageAttachment, ImageMediaType, MessageBlock } from '../../../src-preload/contract';

/**
 * Content blocks as stored and as sent to the Messages API (snake_case, Anthropic's shapes),
 * so a conversation is replayed to the model exactly as it happened, signatures included.
 */
export type StoredBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; thinking: string; signature?: string }
  | { type: 'redacted_thinking'; data: string }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown> }
  | { type: 'tool_result'; tool_use_id: string; content: string; is_error?: boolean }
  | { type: 'image'; source: { type: 'base64'; media_type: ImageMediaType; data: string } };

export type MessageRole = 'user' | 'assistant' | 'tool';
export type MessageKind = 'chat' | 'command' | 'summary' | 'verify' | 'note';

/** The contract's view of a block: what the UI shows (redacted thinking has nothing to show). */
export function toContractBlocks(blocks: readonly StoredBlock[]): MessageBlock[] {
  const out: MessageBlock[] = [];
  for (const b of blocks) {
    if (b.type === 'text') out.push({ type: 'text', text: b.text });
    else if (b.type === 'thinking') out.push({ type: 'thinking', thinking: b.thinking });
    else if (b.type === 'tool_use') out.push({ type: 'tool_use', id: b.id, name: b.name, input: b.input });
    else if (b.type === 'tool_result') out.push({ type: 'tool_result', toolUseId: b.tool_use_id, content: b.content, isError: b.is_error === true });
  }
  return out;
}

/** An attached image as the Messages API takes it. */
export function imageBlock(img: ImageAttachment): StoredBlock {
  return { type: 'image', source: { type: 'base64', media_type: img.mediaType, data: img.data } };
}

export function textOf(blocks: readonly StoredBlock[]): string {
  return blocks
    .filter((b): b is { type: 'text'; text: string } => b.type === 'text')
    .map((b) => b.text)
    .join('');
}
