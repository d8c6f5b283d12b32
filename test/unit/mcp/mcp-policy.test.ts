/** An MCP tool set to always allow or deny in Settings: deny wins in every mode, allow never opens plan mode or the read-only preset. */
import { describe, expect, it } from 'vitest';
import { decideTool, type PolicyInput } from '../../../src-main/agents/policy/policy';

const base: PolicyInput = { tool: 'mcp__gh__create_issue', input: {}, mode: 'default', preset: 'balanced', disabledTools: [], hardFloor: true, sessionRules: [] };

describe('fixed MCP tool policies', () => {
  it('asks by default, remembered per tool by "approve for this session"', () => {
    expect(decideTool(base)).toMatchObject({ decision: 'ask', sessionRule: 'mcp__gh__create_issue' });
    expect(decideTool({ ...base, sessionRules: ['mcp__gh__create_issue'] })).toMatchObject({ decision: 'allow', source: 'session_rule' });
  });

  it('deny refuses in every mode, yolo and a session rule included', () => {
    for (const mode of ['default', 'auto-edit', 'yolo', 'plan'] as const) {
      expect(decideTool({ ...base, mode, fixedPolicy: 'deny', sessionRules: ['mcp__gh__create_issue'] })).toMatchObject({ decision: 'deny', reason: 'mcp__gh__create_issue is set to Deny (Settings → MCP servers).' });
    }
  });

  it('allow runs unasked, but not in plan mode or with the read-only preset', () => {
    expect(decideTool({ ...base, fixedPolicy: 'allow' })).toMatchObject({ decision: 'allow', source: 'policy' });
    expect(decideTool({ ...base, fixedPolicy: 'allow', mode: 'plan' })).toMatchObject({ decision: 'deny' });
    expect(decideTool({ ...base, fixedPolicy: 'allow', preset: 'read-only' })).toMatchObject({ decision: 'deny' });
  });
});
