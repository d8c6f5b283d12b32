import { SandboxMode, type AgentMode, type PolicyPreset, type SessionStatus, type TodoItem, type ToolName, type TurnOutcome } from '../../../src-preload/contract';
import type { Database } from '../../store/db';
import { parseQueue, type QueuedInputRecord } from '../input-queue';
import { parsePoints, parseResumePoint } from '../orchestrator/conversation-points';

/** A per-turn record of what write/patch changed, so /undo can put the files back (see undo.ts). */
export interface UndoSnapshot {
  turnId: string;
  at: number;
  /**
   * blob: the pre-image, a git blob id, or null when the file did not exist before the turn.
   * post: what the turn left (blob id, or null when it left no file); absent when never
   * recorded (older snapshots, a turn stopped mid-write), which /undo treats as a conflict.
   */
  files: Array<{ path: string; blob: string | null; post?: string | null }>;
  /** Folders the turn's writes created (root-relative); /undo removes them when empty. */
  dirs?: string[];
}

/** What one /undo replaced, so /redo can put it back (see undo.ts). */
export interface RedoRecord {
  turnId: string;
  at: number;
  /** The snapshot /undo consumed; /redo puts it back on the undo list. */
  snapshot: UndoSnapshot;
  /** saved: the content /undo replaced (blob id, null = there was no file); wrote: what /undo left. */
  replaced: Array<{ path: string; saved: string | null; wrote: string | null }>;
  /** Empty folders /undo removed. */
  dirs: string[];
}

/** What one /rewind changed, so `/rewind undo` can take it back (see orchestrator/rewind.ts). */
export interface RewindRecord {
  /** The chat turn rewound to (1-based; 0 = before the first turn). */
  toTurn: number;
  at: number;
  /** The conversation's highest ord right after the rewind: a message past it means a turn ran since. */
  maxOrd: number;
  /** Messages the rewind hid and the summarized ones it showed again. */
  hidden: string[];
  revived: string[];
  /** The file changes it reverted, as an /undo does (null when no file changed). */
  files: RedoRecord | null;
  /** The undo and redo lists before the rewind. */
  undo: UndoSnapshot[];
  redo: RedoRecord[];
  /** Where an external executor's next turn resumed before the rewind (absent: nowhere set). */
  resumeAt?: ResumePoint | null;
}

/**
 * Where an external executor (Claude Code) stood after a chat turn: its conversation, the id of
 * the turn's last message in it, and the folder it ran in (Claude Code files conversations per
 * folder). A rewind or a fork resumes the conversation at that message.
 */
export interface ConversationPoint {
  turnId: string;
  conversationId: string;
  messageId: string;
  cwd: string;
}

/**
 * How the next turn of an external executor continues after a rewind or a fork: at a point of a
 * conversation (forked there, the original untouched), by replaying the session's own transcript
 * as context (no point recorded for that turn), or from nothing (rewound before the first turn).
 */
export type ResumePoint = { kind: 'at'; conversationId: string; messageId: string; cwd: string } | { kind: 'replay' } | { kind: 'fresh' };

/** The trusted content of a file that decides what auto-verify runs (see verify-guard.ts). */
export interface VerifyBaseline {
  /** sha256 of the content; null when the file did not exist. */
  sha256: string | null;
  /** The text, for the approval's diff; null when absent, binary or too large to keep. */
  text: string | null;
}

/** Engine state that survives restarts (kept as one JSON column: it is always read whole). */
export interface SessionState {
  /** Pre-images per turn, newest last, bounded (see MAX_UNDO_SNAPSHOTS). */
  undo: UndoSnapshot[];
  /** /undo steps that /redo can take back, newest last; cleared when a turn changes files again. */
  redo?: RedoRecord[];
  /** Files deciding what auto-verify runs that the agent changed, with their trusted content. */
  verifyGuard?: Record<string, VerifyBaseline>;
  /**
   * The turn that is running, set when it starts and cleared when it ends. After a crash it
   * names the turn that was interrupted even when that turn left no message yet (a `!` command
   * adds its message only when the command ends).
   */
  turnInFlight?: string;
  /** How the session's commands are confined; absent = DEFAULT_SANDBOX_MODE. A session setting kept here so no migration is needed. */
  sandbox?: SandboxMode;
  /** Hidden from the default session lists (kept here so no migration is needed). */
  archived?: boolean;
  /** The role a feature or autopilot run gave the session (its tools and, for the Coder, its guard). */
  role?: AgentRole;
  /**
   * Standing instructions the capability that created the session gives its agent (a Planner's
   * brief, the mailbox's behaviour rules): part of the system prompt of every turn, with either
   * executor. Never set from the renderer.
   */
  instructions?: string;
  /** Inputs waiting for the running turn to end, oldest first (see input-queue.ts). */
  queue?: QueuedInputRecord[];
  /** Why the waiting inputs are held instead of sent when the turn ends (the user interrupted it); absent: they go. */
  queueHeld?: string;
  /** Rewinds `/rewind undo` can take back, newest last. */
  rewinds?: RewindRecord[];
  /** Each chat turn's place in an external executor's conversation, oldest first, bounded (see conversation-points.ts). */
  points?: ConversationPoint[];
  /** Set by a rewind or a fork: where the external executor's next turn resumes; cleared once it did. */
  resumeAt?: ResumePoint;
}

/** The features' agent roles: the Planner reads, the Coder reads, writes and runs commands under a guard. */
export const AGENT_ROLES = ['planner', 'coder'] as const;
export type AgentRole = (typeof AGENT_ROLES)[number];

/** The waiting inputs of a stored state, checked (a hand-edited database must not start a malformed turn). */
function queueFields(state: Partial<SessionState>): Pick<SessionState, 'queue' | 'queueHeld'> {
  const queue = parseQueue(state.queue);
  if (queue.length === 0) return {};
  return { queue, ...(typeof state.queueHeld === 'string' && state.queueHeld !== '' ? { queueHeld: state.queueHeld } : {}) };
}

/** The state with no turn in flight (a turn ended or was marked interrupted). */
export function withoutTurnInFlight(state: SessionState): SessionState {
  const { turnInFlight: _ended, ...rest } = state;
  return rest;
}

export interface LastTurn {
  turnId: string;
  outcome: TurnOutcome;
  message: string | null;
  endedAt: number;
}

export interface SessionRecord {
  id: string;
  title: string;
  root: string;
  projectId: string | null;
  mode: AgentMode;
  profile: string;
  model: string;
  policyPreset: PolicyPreset;
  disabledTools: ToolName[];
  status: SessionStatus;
  todos: TodoItem[];
  state: SessionState;
  turnCount: number;
  lastTurn: LastTurn | null;
  ownerPid: number | null;
  ownerId: string | null;
  createdAt: number;
  updatedAt: number;
}

interface Row {
  id: string;
  title: string;
  root: string;
  project_id: string | null;
  mode: AgentMode;
  profile: string;
  model: string;
  policy_preset: PolicyPreset;
  disabled_tools: string;
  status: SessionStatus;
  todos: string;
  state: string;
  turn_count: number;
  last_turn: string | null;
  owner_pid: number | null;
  owner_id: string | null;
  created_at: number;
  updated_at: number;
}

function parseJson<T>(text: string | null, fallback: T): T {
  if (text === null) return fallback;
  try {
    return JSON.parse(text) as T;
  } catch {
    // A hand-edited or truncated value: the default keeps the session usable.
    return fallback;
  }
}

/** The conversation points of a stored state, checked (a hand-edited database must not name a file to resume). */
function conversationFields(state: Partial<SessionState>): Pick<SessionState, 'points' | 'resumeAt'> {
  const points = parsePoints(state.points);
  const resumeAt = parseResumePoint(state.resumeAt);
  return { ...(points.length > 0 ? { points } : {}), ...(resumeAt ? { resumeAt } : {}) };
}

function fromRow(r: Row): SessionRecord {
  const state = parseJson<Partial<SessionState>>(r.state, {});
  return {
    id: r.id,
    title: r.title,
    root: r.root,
    projectId: r.project_id,
    mode: r.mode,
    profile: r.profile,
    model: r.model,
    policyPreset: r.policy_preset,
    disabledTools: parseJson<ToolName[]>(r.disabled_tools, []),
    status: r.status,
    todos: parseJson<TodoItem[]>(r.todos, []),
    state: { undo: Array.isArray(state.undo) ? state.undo : [], ...(Array.isArray(state.redo) ? { redo: state.redo } : {}), ...(Array.isArray(state.rewinds) ? { rewinds: state.rewinds } : {}), ...(state.verifyGuard && typeof state.verifyGuard === 'object' ? { verifyGuard: state.verifyGuard } : {}), ...(typeof state.turnInFlight === 'string' ? { turnInFlight: state.turnInFlight } : {}), ...(SandboxMode.safeParse(state.sandbox).success ? { sandbox: state.sandbox } : {}), ...(state.archived === true ? { archived: true } : {}), ...(state.role === 'planner' || state.role === 'coder' ? { role: state.role } : {}), ...(typeof state.instructions === 'string' && state.instructions !== '' ? { instructions: state.instructions } : {}), ...queueFields(state), ...conversationFields(state) },
    turnCount: r.turn_count,
    lastTurn: parseJson<LastTurn | null>(r.last_turn, null),
    ownerPid: r.owner_pid,
    ownerId: r.owner_id,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

export type SessionPatch = Partial<Omit<SessionRecord, 'id' | 'createdAt' | 'updatedAt'>>;

const COLUMN: Record<keyof SessionPatch, string> = {
  title: 'title',
  root: 'root',
  projectId: 'project_id',
  mode: 'mode',
  profile: 'profile',
  model: 'model',
  policyPreset: 'policy_preset',
  disabledTools: 'disabled_tools',
  status: 'status',
  todos: 'todos',
  state: 'state',
  turnCount: 'turn_count',
  lastTurn: 'last_turn',
  ownerPid: 'owner_pid',
  ownerId: 'owner_id',
};
const JSON_FIELDS = new Set<keyof SessionPatch>(['disabledTools', 'todos', 'state', 'lastTurn']);

export class SessionRepo {
  constructor(private readonly db: Database) {}

  insert(s: SessionRecord): void {
    this.db
      .prepare(
        `INSERT INTO agent_sessions (id, title, root, project_id, mode, profile, model, policy_preset, disabled_tools, status, todos, state, turn_count, last_turn, owner_pid, owner_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        s.id, s.title, s.root, s.projectId, s.mode, s.profile, s.model, s.policyPreset, JSON.stringify(s.disabledTools), s.status,
        JSON.stringify(s.todos), JSON.stringify(s.state), s.turnCount, s.lastTurn ? JSON.stringify(s.lastTurn) : null, s.ownerPid, s.ownerId,
        s.createdAt, s.updatedAt,
      );
  }

  get(id: string): SessionRecord | null {
    const r = this.db.prepare('SELECT * FROM agent_sessions WHERE id = ?').get(id) as Row | undefined;
    return r ? fromRow(r) : null;
  }

  list(projectId?: string): SessionRecord[] {
    const rows = projectId
      ? (this.db.prepare('SELECT * FROM agent_sessions WHERE project_id = ? ORDER BY updated_at DESC').all(projectId) as Row[])
      : (this.db.prepare('SELECT * FROM agent_sessions ORDER BY updated_at DESC').all() as Row[]);
    return rows.map(fromRow);
  }

  /** Sessions whose last known status says a turn was in flight. */
  inFlight(): SessionRecord[] {
    return (this.db.prepare("SELECT * FROM agent_sessions WHERE status IN ('running', 'awaiting_approval')").all() as Row[]).map(fromRow);
  }

  update(id: string, patch: SessionPatch, now = Date.now()): SessionRecord {
    const sets: string[] = [];
    const values: unknown[] = [];
    for (const [k, v] of Object.entries(patch) as Array<[keyof SessionPatch, unknown]>) {
      if (v === undefined) continue;
      sets.push(`${COLUMN[k]} = ?`);
      values.push(JSON_FIELDS.has(k) ? (v === null ? null : JSON.stringify(v)) : v);
    }
    sets.push('updated_at = ?');
    values.push(now, id);
    this.db.prepare(`UPDATE agent_sessions SET ${sets.join(', ')} WHERE id = ?`).run(...values);
    const s = this.get(id);
    if (!s) throw new Error(`session ${id} vanished during an update`);
    return s;
  }

  /** Removes the session and everything recorded under it, in one transaction. */
  remove(id: string): boolean {
    return this.db.transaction(() => {
      const n = this.db.prepare('DELETE FROM agent_sessions WHERE id = ?').run(id).changes;
      this.db.prepare('DELETE FROM agent_approvals WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM agent_session_rules WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM agent_costs WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM events WHERE run_id = ?').run(id);
      return n > 0;
    })();
  }
}
