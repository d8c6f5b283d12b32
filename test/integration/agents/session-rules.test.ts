/**
 * Issue 26: rules "approve for this session" remembered are listed and can be forgotten through
 * the contract; a call allowed by a rule names that rule in its decision, and once the rule is
 * removed the same call asks again.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, nextApproval, waitFor, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

const ctx = { origin: 'test' as const, connectionId: 't' };
const bash = (command: string) => ({ blocks: [{ type: 'tool_use' as const, name: 'bash', input: { command } }] });

describe('remembered rules through the contract', () => {
  it('lists the rule, names it when it allows, forgets it on remove, and the call asks again', async () => {
    h = await harness([bash('tee one.txt <<< one'), bash('tee two.txt <<< two'), { blocks: [{ type: 'text', text: 'ok' }] }, bash('tee three.txt <<< three'), { blocks: [{ type: 'text', text: 'ok' }] }]);
    const id = h.session();
    const list = async () => ((await h.app.router.dispatch('agents.rules.list', { sessionId: id }, ctx)) as { ok: true; value: string[] }).value;
    expect(await list()).toEqual([]);

    const first = h.app.agents.run(id, 'tee twice');
    const approval = await nextApproval(h, id);
    expect(approval.sessionRule).toBe('tee *');
    h.app.agents.gate.answer(approval.id, 'approve_session');
    await first;
    expect(await list()).toEqual(['tee *']);
    const decisions = h.events(id, 'tool.decision');
    expect(decisions.map((d) => d.source)).toEqual(['policy', 'session_rule']);
    expect(decisions[1]!.reason).toBe('Approved for this session by the rule "tee *".');
    expect(existsSync(join(h.repo, 'two.txt'))).toBe(true);

    expect(await h.app.router.dispatch('agents.rules.remove', { sessionId: id, rule: 'tee *' }, ctx)).toMatchObject({ ok: true, value: { removed: true } });
    expect(await h.app.router.dispatch('agents.rules.remove', { sessionId: id, rule: 'tee *' }, ctx)).toMatchObject({ ok: true, value: { removed: false } });
    expect(await list()).toEqual([]);

    const second = h.app.agents.run(id, 'tee again');
    const again = await nextApproval(h, id);
    expect(again.summary).toBe('tee three.txt <<< three');
    h.app.agents.gate.answer(again.id, 'deny');
    await second;
    await waitFor(() => h.app.agents.getSession(id).status === 'idle', 'the turn to end');
    expect(existsSync(join(h.repo, 'three.txt'))).toBe(false);
  });

  it('rejects an unknown session and malformed input', async () => {
    h = await harness();
    expect(await h.app.router.dispatch('agents.rules.list', { sessionId: 'ses-000000000000' }, ctx)).toMatchObject({ ok: false, error: { code: 'not_found' } });
    expect(await h.app.router.dispatch('agents.rules.remove', { sessionId: 'ses-000000000000', rule: '' }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await h.app.router.dispatch('agents.rules.remove', { sessionId: 'nope', rule: 'x' }, ctx)).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
  });
});
