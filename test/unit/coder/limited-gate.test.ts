import { describe, expect, it } from 'vitest';
import type { ApprovalHook, ToolApprovalRequest } from '../../../src-main/coder/approval-hook';
import { limitedGate } from '../../../src-main/coder/session-turn';

const request = (toolUseId: string): ToolApprovalRequest => ({ claudeTool: 'Write', tool: 'write', input: {}, claudeInput: {}, toolUseId, summary: 'write a', cd: '/w', sandbox: 'workspace-write', claudeSessionId: null });

/** The stream as the turn sees it: tool uses counted, and a limit set when a call's usage is counted. */
function stream() {
  let refusal: string | null = null;
  const shown = new Set<string>();
  const waiting = new Map<string, () => void>();
  return {
    limits: {
      refusal: () => refusal,
      seen: (id: string) => (shown.has(id) ? Promise.resolve() : new Promise<void>((r) => waiting.set(id, r))),
    },
    show(id: string, limit: string | null = null) {
      refusal = limit ?? refusal;
      shown.add(id);
      waiting.get(id)?.();
    },
  };
}

/** As the hook server asks (approval-hook.ts): admit first, then, if nothing stood, decide. */
async function ask(g: ApprovalHook, r: ToolApprovalRequest, signal: AbortSignal) {
  return (await g.admit?.(r, signal)) ?? g.decide(r, signal);
}

const allowAll: ApprovalHook = { decide: async () => ({ allow: true, reason: 'allowed' }) };
const settle = () => new Promise((r) => setTimeout(r, 10));

describe("a Claude Code tool's approval behind the turn's limits", () => {
  it('waits until the call that proposed the tool was counted, then asks the gate', async () => {
    const s = stream();
    let answer: unknown = null;
    void ask(limitedGate(allowAll, s.limits), request('toolu_1'), new AbortController().signal).then((v) => (answer = v));
    await settle();
    expect(answer).toBeNull();
    s.show('toolu_1');
    await settle();
    expect(answer).toEqual({ allow: true, reason: 'allowed' });
  });

  it('past a limit (counted with that call) the tool is not answered until the run stopped the CLI, then refused', async () => {
    const s = stream();
    const stop = new AbortController();
    let answer: unknown = null;
    let asked = false;
    const gate: ApprovalHook = { decide: async () => ((asked = true), { allow: true, reason: 'allowed' }) };
    void ask(limitedGate(gate, s.limits), request('toolu_2'), stop.signal).then((v) => (answer = v));
    s.show('toolu_2', 'The phase "library" reached its limit of 1 turns');
    await settle();
    // Held: an answer (even a refusal) would let the CLI make its next call.
    expect(answer).toBeNull();
    expect(asked).toBe(false);
    stop.abort();
    await settle();
    expect(answer).toEqual({ allow: false, reason: 'The phase "library" reached its limit of 1 turns' });
    expect(asked).toBe(false);
  });
});
