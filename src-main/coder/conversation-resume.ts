/**
 * How a Claude Code turn continues after a rewind or a fork (issue 25 §2; the points and resume
 * points are agents/orchestrator/conversation-points.ts):
 *
 * - at a point: `--resume <conversation> --resume-session-at <message> --fork-session` (2.1.197:
 *   the history up to that message, as a new conversation; the original stays). Claude Code
 *   files a conversation under the folder it ran in, so a fork in another worktree names the
 *   conversation's file instead of its id (`--resume` takes either).
 * - by replay: a new conversation whose first prompt carries Flightdeck's own transcript up to
 *   the turn, as context. Used when the turn left no point, when the conversation or its message
 *   is gone (the CLI refuses the resume), and for a fork whose conversation file is not on this
 *   machine (a session placed in a container).
 */
import { lstatSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { StoredMessage } from '../agents/store/message-repo';
import { isConversationId } from '../agents/orchestrator/conversation-points';

/** The transcript replayed as context: enough for the agent to pick the work up, bounded for the prompt. */
export const REPLAY_MAX_CHARS = 120_000;
/** One tool result or message in the replay: the gist, not a whole file dump. */
const REPLAY_ITEM_CHARS = 4_000;

const clip = (t: string, n: number) => (t.length > n ? `${t.slice(0, n)}… [${t.length - n} more characters]` : t);

function renderMessage(m: StoredMessage): string[] {
  const out: string[] = [];
  const who = m.role === 'user' ? (m.kind === 'command' ? 'User ran' : 'User') : m.role === 'assistant' ? (m.kind === 'summary' ? 'Summary of earlier turns' : 'Assistant') : 'Tool';
  for (const b of m.blocks) {
    if (b.type === 'text' && b.text.trim() !== '') out.push(`${who}: ${clip(b.text.trim(), REPLAY_ITEM_CHARS)}`);
    else if (b.type === 'tool_use') out.push(`Assistant called ${b.name} ${clip(JSON.stringify(b.input), REPLAY_ITEM_CHARS)}`);
    else if (b.type === 'tool_result') out.push(`${b.is_error ? 'Tool error' : 'Tool result'}: ${clip(b.content, REPLAY_ITEM_CHARS)}`);
    else if (b.type === 'image') out.push(`${who}: [an image]`);
  }
  return out;
}

/**
 * The first prompt of a conversation that replays `history` (Flightdeck's messages before this
 * turn, oldest first) as context, then the user's new message. The newest part is kept when the
 * transcript is longer than REPLAY_MAX_CHARS.
 */
export function replayPrompt(history: readonly StoredMessage[], task: string): string {
  const lines = history.filter((m) => m.kind !== 'note').flatMap(renderMessage);
  if (lines.length === 0) return task;
  let kept: string[] = [];
  let size = 0;
  for (let i = lines.length - 1; i >= 0; i--) {
    size += lines[i]!.length + 1;
    if (size > REPLAY_MAX_CHARS) break;
    kept = [lines[i]!, ...kept];
  }
  const cut = kept.length < lines.length ? `[${lines.length - kept.length} earlier lines left out]\n` : '';
  return [
    'This conversation continues an earlier one with this user (it was rewound or forked to this point). Its transcript so far, for context only: do not redo its work, and do not act on it unless the new message asks for it.',
    '<earlier-conversation>',
    cut + kept.join('\n'),
    '</earlier-conversation>',
    '',
    "The user's new message:",
    task,
  ].join('\n');
}

/**
 * The file of a Claude Code conversation under its config folder (`CLAUDE_CONFIG_DIR`, else
 * `~/.claude`): `projects/<folder>/<id>.jsonl`, looked up by id across folders; null when it is
 * not on this machine. Only a regular file is named (never a link planted in its place).
 */
export function conversationFile(env: Readonly<Record<string, string | undefined>>, conversationId: string): string | null {
  if (!isConversationId(conversationId)) return null;
  const base = env.CLAUDE_CONFIG_DIR || (env.HOME ? join(env.HOME, '.claude') : null);
  if (!base) return null;
  const projects = join(base, 'projects');
  let folders: string[];
  try {
    folders = readdirSync(projects);
  } catch {
    // No conversations on this machine (never ran here, or another HOME): replay instead.
    return null;
  }
  for (const f of folders) {
    const file = join(projects, f, `${conversationId}.jsonl`);
    try {
      if (lstatSync(file).isFile()) return file;
    } catch {
      // Not in this folder: look in the next one.
    }
  }
  return null;
}
