/**
 * Issue 20 §2.9: six model calls started together all saw the same spend and went past the daily
 * maximum. Each allowed call now reserves its estimated cost until its cost is recorded, so
 * parallel calls stop where sequential ones would. Real app, real SQLite, the scripted model
 * server holding each call open so that they overlap.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { makeRepo } from '../../support/temp';
import { runHarness, type RunHarness } from '../features/run/support';

// 1,000 input and 100 output tokens at the test profile's $3 / $15 per million: $0.0045 a call.
const USAGE = { input_tokens: 1000, output_tokens: 100 };
const CALL_USD = 0.0045;

let h: RunHarness | null = null;
afterEach(async () => {
  await h?.cleanup();
  h = null;
});

describe('daily budget and parallel calls', () => {
  it('six parallel calls: only as many start as the maximum leaves room for; the others are refused naming the reserved spend', async () => {
    const plain = makeRepo('fd-budget-parallel-');
    try {
      h = await runHarness([
        { match: { userPattern: 'warm-up' }, blocks: [{ type: 'text', text: 'ok' }], usage: USAGE },
        // Held open long enough that all six are in flight together.
        { match: { userPattern: 'parallel' }, blocks: [{ type: 'text', text: 'done' }], usage: USAGE, fault: { kind: 'stall', ms: 1_500 }, times: 6 },
      ]);
      const project = await h.app.projects.add(plain.path);
      // Room for three calls after the warm-up: $0.0045 spent, maximum $0.016.
      h.app.budgets.update({ globalDaily: { warnUsd: null, maxUsd: 0.016 } });
      const first = h.app.agents.createSession({ projectId: project.id }).id;
      expect((await h.app.agents.run(first, 'warm-up')).outcome).toBe('completed');
      const sessions = Array.from({ length: 6 }, () => h!.app.agents.createSession({ projectId: project.id }).id);
      const results = await Promise.all(sessions.map((sid) => h!.app.agents.run(sid, 'parallel call')));
      const done = results.filter((r) => r.outcome === 'completed');
      const refused = results.filter((r) => r.outcome === 'failed');
      // 0.0045 spent: 0.0045 + 0.0045·k reserved stays under 0.016 for k = 0, 1, 2 — three calls go.
      expect(done).toHaveLength(3);
      expect(refused).toHaveLength(3);
      expect(refused[0]!.message).toMatch(/^Model call refused: \$0\.0045 spent and \$0\.0135 reserved by model calls in progress, today's overall budget is \$0\.0160\./);
      expect(h.server.mainRequests()).toHaveLength(4);
      // Spent at most one call past the maximum, as a sequential run would; not six calls' worth.
      expect(h.app.budgets.spentToday()).toBeCloseTo(CALL_USD * 4, 6);
      // Settled: the reservations went with the recorded costs; the maximum is reached, the next call is refused on spend alone.
      const after = await h.app.agents.run(first, 'parallel again');
      expect(after.outcome).toBe('failed');
      expect(after.message).toMatch(/^Model call refused: \$0\.0180 spent, today's overall budget/);
    } finally {
      plain.cleanup();
    }
  }, 120_000);
});
