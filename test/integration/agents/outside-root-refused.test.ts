import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { harness, type Harness } from './harness';

let h: Harness;
afterEach(async () => h?.cleanup());

describe('a file outside the session root is refused before anyone is asked', () => {
  it('default mode: no approval, a deny decision with the reason, the model told why, nothing written', async () => {
    h = await harness([
      {
        blocks: [
          { type: 'tool_use', name: 'write', input: { path: '../escaped.txt', content: 'x' } },
          { type: 'tool_use', name: 'patch', input: { path: '/etc/hostname', edits: [{ search: 'a', replace: 'b' }] } },
        ],
      },
      { blocks: [{ type: 'text', text: 'understood' }] },
    ]);
    const id = h.session({ mode: 'default' });
    await h.app.agents.run(id, 'write outside');
    expect(h.events(id, 'approval.requested')).toHaveLength(0);
    const decisions = h.events(id, 'tool.decision');
    expect(decisions.map((d) => [d.tool, d.decision, d.risk])).toEqual([
      ['write', 'deny', 'high'],
      ['patch', 'deny', 'high'],
    ]);
    for (const d of decisions) expect(d.reason).toContain('outside the session root');
    const results = h.events(id, 'tool.result');
    for (const r of results) expect(r.content).toMatch(/^Not run — .*outside the session root/);
    expect(existsSync(join(h.repo, '..', 'escaped.txt'))).toBe(false);
    expect(h.app.agents.getSession(id).status).toBe('idle');
  });
});
