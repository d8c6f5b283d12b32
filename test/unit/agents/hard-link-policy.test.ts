import { describe, expect, it } from 'vitest';
import { decideTool, hardLinkRule, type PolicyInput } from '../../../src-main/agents/policy/policy';
import { headlessVerdict } from '../../../src-main/coder/core/hook-policy';

/** Issue 8 item 3: a change to a file with more than one name (hard link) asks first, in every mode that allows edits. */
const base = (over: Partial<PolicyInput>): PolicyInput => ({
  tool: 'write',
  input: { path: 'a.txt', content: 'x' },
  mode: 'default',
  preset: 'trusted',
  disabledTools: [],
  hardFloor: true,
  sessionRules: [],
  ...over,
});

describe('hard-linked write targets', () => {
  for (const mode of ['default', 'auto-edit', 'yolo'] as const) {
    for (const tool of ['write', 'patch']) {
      it(`${tool} in ${mode} mode asks with the reason`, () => {
        const d = decideTool(base({ mode, tool, targetLinks: 3 }));
        expect(d).toMatchObject({ decision: 'ask', source: 'policy', risk: 'high', sessionRule: `${tool} hard-linked a.txt` });
        expect(d.reason).toMatch(/^a\.txt has 3 hard links: .*outside the session root/);
      });
    }
  }

  it('one link: unchanged behaviour', () => {
    expect(decideTool(base({ mode: 'auto-edit', targetLinks: 1 })).decision).toBe('allow');
    expect(decideTool(base({ mode: 'auto-edit' })).decision).toBe('allow');
  });

  it('plan mode, the read-only preset and a switched-off tool still deny first', () => {
    expect(decideTool(base({ mode: 'plan', targetLinks: 2 })).decision).toBe('deny');
    expect(decideTool(base({ preset: 'read-only', targetLinks: 2 })).decision).toBe('deny');
    expect(decideTool(base({ disabledTools: ['write'], targetLinks: 2 })).decision).toBe('deny');
  });

  it('only the rule for that file and tool allows it without asking; the plain tool rule does not', () => {
    expect(decideTool(base({ targetLinks: 2, sessionRules: ['write'] })).decision).toBe('ask');
    expect(decideTool(base({ targetLinks: 2, sessionRules: [hardLinkRule('write', { path: 'b.txt' })] })).decision).toBe('ask');
    expect(decideTool(base({ targetLinks: 2, sessionRules: [hardLinkRule('write', { path: 'a.txt' })] }))).toMatchObject({ decision: 'allow', source: 'session_rule' });
  });

  it('headless Claude Code runs (no one to ask) refuse it', () => {
    const v = headlessVerdict('workspace-write', 'write', { path: 'a.txt', content: 'x' }, { targetLinks: 2 });
    expect(v.allow).toBe(false);
    expect(v.reason).toMatch(/hard links.*No one can approve it/);
    expect(headlessVerdict('workspace-write', 'write', { path: 'a.txt', content: 'x' }, { targetLinks: 1 }).allow).toBe(true);
  });
});
