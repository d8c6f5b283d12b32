/**
 * Checkpoints of an external executor's conversation (issue 25 §2). Claude Code keeps its own
 * conversation, so truncating Flightdeck's messages does not truncate what it resumes: each chat
 * turn it ran records where that conversation stood (a ConversationPoint), and a rewind or a fork
 * tells the next turn where to resume (a ResumePoint) — at the turn's last message (Claude Code
 * forks its conversation there, leaving the original as it was), or, when no point was recorded
 * for that turn (it ran on the built-in loop, or failed), by replaying the session's transcript
 * up to the turn as context. Pure: no I/O.
 */
import type { ConversationPoint, ResumePoint } from '../store/session-repo';

/** Points kept per session: far more turns than anyone rewinds across, and a bounded state row. */
export const MAX_POINTS = 500;

/** Claude Code's conversation and message ids are UUIDs; anything else in a stored state is not used. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isConversationId = (v: unknown): v is string => typeof v === 'string' && UUID.test(v);

const isAbsolute = (v: unknown): v is string => typeof v === 'string' && v.startsWith('/') && !v.includes('\0') && v.length < 4_096;

function parsePoint(v: unknown): ConversationPoint | null {
  if (typeof v !== 'object' || v === null) return null;
  const p = v as Record<string, unknown>;
  if (typeof p.turnId !== 'string' || !isConversationId(p.conversationId) || !isConversationId(p.messageId) || !isAbsolute(p.cwd)) return null;
  return { turnId: p.turnId, conversationId: p.conversationId, messageId: p.messageId, cwd: p.cwd };
}

export function parsePoints(v: unknown): ConversationPoint[] {
  return Array.isArray(v) ? v.map(parsePoint).filter((p): p is ConversationPoint => p !== null).slice(-MAX_POINTS) : [];
}

export function parseResumePoint(v: unknown): ResumePoint | null {
  if (typeof v !== 'object' || v === null) return null;
  const r = v as Record<string, unknown>;
  if (r.kind === 'replay' || r.kind === 'fresh') return { kind: r.kind };
  if (r.kind !== 'at') return null;
  const p = parsePoint({ ...r, turnId: '' });
  return p ? { kind: 'at', conversationId: p.conversationId, messageId: p.messageId, cwd: p.cwd } : null;
}

/** The points with turn `p.turnId`'s set (a turn records one point: its last). */
export function withPoint(points: readonly ConversationPoint[] | undefined, p: ConversationPoint): ConversationPoint[] {
  return [...(points ?? []).filter((x) => x.turnId !== p.turnId), p].slice(-MAX_POINTS);
}

/**
 * Where the conversation continues after chat turn `n` (1-based; 0 = before the first), given the
 * session's chat turns in order and its points.
 */
export function resumePointFor(points: readonly ConversationPoint[] | undefined, turns: ReadonlyArray<{ turnId: string }>, n: number): ResumePoint {
  if (n === 0) return { kind: 'fresh' };
  const turnId = turns[n - 1]?.turnId;
  const p = turnId === undefined ? undefined : points?.find((x) => x.turnId === turnId);
  return p ? { kind: 'at', conversationId: p.conversationId, messageId: p.messageId, cwd: p.cwd } : { kind: 'replay' };
}
