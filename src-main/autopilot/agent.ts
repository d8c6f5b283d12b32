/**
 * The executor adapter (risk R1 of the autopilot design): the runner talks to "an agent session
 * that takes a prompt and reports what it did", never to a backend. Both executors — the built-in
 * loop and Claude Code — sit behind the app's SessionDriver (src-main/agents/session-driver.ts);
 * this wraps it with what a run needs: one session reused across prompts (the agent keeps its
 * context between plan, execute and fix), restarted on demand (risk R2, context growth).
 */
import { realpathSync } from 'node:fs';
import { AppError, type AutopilotExecutor } from '../../src-preload/contract';

/** The part of the SessionDriver the runner uses (structural, so tests can drive it with the real one only). */
export interface TurnReportLike {
  sessionId: string;
  outcome: string;
  text: string;
  toolCalls: ReadonlyArray<{ tool: string; isError: boolean }>;
  costUsd: number;
  durationMs: number;
  message: string | null;
}

export interface DriverLike {
  createSession(o: { root: string; projectId?: string; role: 'coder'; executor: AutopilotExecutor; profile?: string; mode?: 'yolo'; title?: string }): { id: string; root: string };
  runTurn(sessionId: string, input: string, o?: { signal?: AbortSignal }): Promise<TurnReportLike>;
  cancel(sessionId: string): void;
}

export interface AgentOptions {
  root: string;
  projectId: string | null;
  executor: AutopilotExecutor;
  profile: string | null;
  title: string;
}

/** Reply text kept in the run log: enough to see what the agent said, not its whole essay. */
const REPLY_SUMMARY_CHARS = 2_000;

export function summarizeReply(text: string): string {
  const t = text.trim();
  return t.length > REPLY_SUMMARY_CHARS ? `${t.slice(0, REPLY_SUMMARY_CHARS)} …` : t;
}

export class AutopilotAgent {
  constructor(
    private readonly driver: DriverLike,
    private readonly o: AgentOptions,
    private session: string | null,
    /** Told whenever the run's session changes (persisted so a resumed run keeps its context). */
    private readonly onSession: (id: string | null) => void,
  ) {}

  get sessionId(): string | null {
    return this.session;
  }

  /** One prompt as one turn of the run's session (created on first use). */
  async prompt(text: string, signal: AbortSignal): Promise<TurnReportLike> {
    if (!this.session) {
      // yolo: nobody is there to answer an approval in the middle of a run; the hard floor
      // still refuses destructive commands, and commands stay inside the session's sandbox.
      const s = this.driver.createSession({
        root: this.o.root,
        ...(this.o.projectId ? { projectId: this.o.projectId } : {}),
        role: 'coder',
        executor: this.o.executor,
        ...(this.o.profile ? { profile: this.o.profile } : {}),
        mode: 'yolo',
        title: this.o.title,
      });
      // The run's changes belong in its worktree: a session rooted anywhere else (the project's
      // main checkout) would edit the user's files, so it is refused before the first prompt.
      if (realpathSync(s.root) !== realpathSync(this.o.root)) {
        throw new AppError('internal', `The agent session for this run was created in ${s.root} instead of the run's worktree ${this.o.root}; nothing was sent to it.`);
      }
      this.session = s.id;
      this.onSession(s.id);
    }
    return this.driver.runTurn(this.session, text, { signal });
  }

  /** The next prompt starts a fresh session: the plan (in every prompt's snapshot) is its memory. */
  restart(): void {
    this.session = null;
    this.onSession(null);
  }

  cancel(): void {
    if (this.session) this.driver.cancel(this.session);
  }
}
