/**
 * Limits consulted before every model call, whatever asks for it (a chat turn, a feature run, a
 * compaction): the daily budgets, a feature run's own budget, a phase's turn limit. A guard
 * answers with the refusal message, or null to let the call go. The built-in loop asks before
 * each provider request (orchestrator/model-call.ts); the Claude Code executor, whose calls
 * happen inside the CLI, asks before it starts and after every call it reports, ending the run
 * before the next one.
 */
export type CallGuard = (sessionId: string) => string | null;

export class CallGuards {
  private readonly guards = new Set<CallGuard>();

  /** Adds a guard; the returned function removes it. */
  add(guard: CallGuard): () => void {
    this.guards.add(guard);
    return () => this.guards.delete(guard);
  }

  /** The first refusal of any guard, or null. */
  check(sessionId: string): string | null {
    for (const g of this.guards) {
      const refused = g(sessionId);
      if (refused) return refused;
    }
    return null;
  }
}
