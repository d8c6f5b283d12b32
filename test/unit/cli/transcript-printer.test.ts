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

describe('chat transcript: what a command printed', () => {
  it('reaches the terminal as text and colours only (no clipboard write, no link, no title)', () => {
    const lines: string[] = [];
    const p = new TranscriptPrinter((l) => lines.push(l));
    p.print({ sessionId: 'ses-abcdef123456', seq: 1, ts: 0, turnId: null, data: { type: 'tool.output', toolUseId: 't1', chunk: 'ok\u001b]52;c;Y3VybA==\u0007\u001b[32m done\u001b[0m\n' } } as AgentEvent);
    p.print({ sessionId: 'ses-abcdef123456', seq: 2, ts: 0, turnId: null, data: { type: 'text.delta', text: 'see \u001b]8;;https://evil.example/\u001b\\the docs\u001b]8;;\u001b\\\n' } } as AgentEvent);
    expect(lines).toEqual(['  │ ok\u001b[32m done\u001b[0m', 'see the docs']);
  });
});
