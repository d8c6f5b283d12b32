import { describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { TranscriptPrinter } from '../../../src-main/cli/commands/chat-support';

const decision = (decision: 'allow' | 'ask' | 'deny', source: string, reason: string): AgentEvent =>
  ({ sessionId: 'ses-abcdef123456', seq: 1, ts: 0, turnId: null, data: { type: 'tool.decision', toolUseId: 't1', tool: 'bash', decision, source, reason, risk: 'medium' } }) as AgentEvent;

describe('chat transcript: tool decisions', () => {
  it('names the remembered rule that let a call run unasked; other allows stay quiet', () => {
    const lines: string[] = [];
    const p = new TranscriptPrinter((l) => lines.push(l));
    p.print(decision('allow', 'session_rule', 'Approved for this session by the rule "npm test *".'));
    p.print(decision('allow', 'policy', 'A read-only command.'));
    p.print(decision('ask', 'policy', 'balanced preset: commands that are not read-only ask.'));
    expect(lines).toEqual(['  ✔ bash: Approved for this session by the rule "npm test *".', '  ? bash: balanced preset: commands that are not read-only ask.']);
  });
});
