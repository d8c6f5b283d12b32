/**
 * From the stored conversation to the Messages API's alternating user/assistant list. Pure.
 * - `tool` messages become user turns of tool_result blocks;
 * - consecutive same-role messages merge (compatible endpoints reject repeats), tool results
 *   first, as the API requires right after a tool_use turn;
 * - a tool_use left without a result (a turn interrupted by a crash) gets a synthetic result,
 *   so the next call is valid and the model knows what happened.
 */
import type { StoredBlock } from '../store/blocks';
import type { StoredMessage } from '../store/message-repo';
import type { ApiMessage, ToolSpec } from '../provider/types';

export const INTERRUPTED_TOOL_RESULT = 'Not run or not finished: the turn was interrupted (cancelled or the app stopped) before this tool call completed. Check the state before retrying.';

export function toApiMessages(messages: readonly StoredMessage[]): ApiMessage[] {
  const out: ApiMessage[] = [];
  for (const m of messages) {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const blocks = m.role === 'assistant' ? m.blocks.filter((b) => b.type !== 'tool_result') : m.blocks;
    if (blocks.length === 0) continue;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content = role === 'user' ? orderUser([...last.content, ...blocks]) : [...last.content, ...blocks];
    else out.push({ role, content: [...blocks] });
  }
  // Pair every tool_use with a result in the next user turn.
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role !== 'assistant') continue;
    const uses = m.content.filter((b): b is Extract<StoredBlock, { type: 'tool_use' }> => b.type === 'tool_use');
    if (uses.length === 0) continue;
    let next = out[i + 1];
    if (!next || next.role !== 'user') {
      next = { role: 'user', content: [] };
      out.splice(i + 1, 0, next);
    }
    const answered = new Set(next.content.filter((b) => b.type === 'tool_result').map((b) => (b as { tool_use_id: string }).tool_use_id));
    const missing = uses.filter((u) => !answered.has(u.id)).map((u): StoredBlock => ({ type: 'tool_result', tool_use_id: u.id, content: INTERRUPTED_TOOL_RESULT, is_error: true }));
    const known = new Set(uses.map((u) => u.id));
    // Results for tool_uses the previous turn does not have (compacted away) would be rejected.
    next.content = orderUser([...missing, ...next.content.filter((b) => b.type !== 'tool_result' || known.has(b.tool_use_id))]);
    if (next.content.length === 0) next.content = [{ type: 'text', text: '(continue)' }];
  }
  // Orphan results in user turns not following a tool_use turn are dropped the same way.
  for (let i = 0; i < out.length; i++) {
    const m = out[i]!;
    if (m.role !== 'user') continue;
    const prev = out[i - 1];
    if (prev && prev.role === 'assistant' && prev.content.some((b) => b.type === 'tool_use')) continue;
    const kept = m.content.filter((b) => b.type !== 'tool_result');
    m.content = kept.length > 0 ? kept : [{ type: 'text', text: '(continue)' }];
  }
  // The API wants the conversation to open with a user turn.
  if (out[0]?.role === 'assistant') out.unshift({ role: 'user', content: [{ type: 'text', text: '(conversation resumed)' }] });
  // Thinking blocks without a signature (from an endpoint that does not sign) cannot be sent back.
  for (const m of out) m.content = m.content.filter((b) => b.type !== 'thinking' || (b.signature ?? '') !== '');
  return out.filter((m) => m.content.length > 0);
}

function orderUser(blocks: StoredBlock[]): StoredBlock[] {
  return [...blocks.filter((b) => b.type === 'tool_result'), ...blocks.filter((b) => b.type !== 'tool_result')];
}

/**
 * About four characters per token for English and code: the usual rule of thumb, close enough
 * to decide when to compact (the model's window has a margin for it).
 */
export const CHARS_PER_TOKEN = 4;

/**
 * What one image costs in context: Anthropic scales images to about 1.15 megapixels, about
 * 1,600 tokens; its base64 length would count it a thousand times too high.
 */
export const IMAGE_TOKENS = 1_600;

export function estimateTokens(system: string, messages: readonly ApiMessage[], tools: readonly ToolSpec[]): number {
  let chars = system.length + JSON.stringify(tools).length;
  let images = 0;
  for (const m of messages) {
    const n = m.content.filter((b) => b.type === 'image').length;
    images += n;
    chars += JSON.stringify(n === 0 ? m.content : m.content.filter((b) => b.type !== 'image')).length;
  }
  return Math.ceil(chars / CHARS_PER_TOKEN) + images * IMAGE_TOKENS;
}
