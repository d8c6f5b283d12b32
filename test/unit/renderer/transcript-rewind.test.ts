import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventData } from '../../../src-preload/contract/agents';
import { applyEvents, editedPaths, emptyTranscript, isChatTurn, type TranscriptItem } from '../../../src-renderer/src/agents/transcript';

const SID = 'ses-abcdef12';
let seq = 0;
const ev = (turn: string, data: AgentEventData): AgentEvent => ({ sessionId: SID, seq: ++seq, ts: 1000 + seq, turnId: turn, data });

/** A chat turn that writes `path` and ends. */
function chatTurn(n: number, path: string): AgentEvent[] {
  const t = `turn-chat${n}`;
  return [
    ev(t, { type: 'turn.started', input: `ask ${n}`, kind: 'chat', mode: 'auto-edit', model: 'm' }),
    ev(t, { type: 'tool.started', toolUseId: `tu${n}`, tool: 'write', step: 1 } as AgentEventData),
    ev(t, { type: 'tool.input.delta', step: 1, index: 0, toolUseId: `tu${n}`, partialJson: JSON.stringify({ path, content: 'x' }) }),
    ev(t, { type: 'tool.result', toolUseId: `tu${n}`, tool: 'write', isError: false, content: 'ok', exitCode: null, durationMs: 1 }),
    ev(t, { type: 'turn.ended', outcome: 'completed', message: null, steps: 1 }),
  ];
}
function slashTurn(n: number, input: string, toTurn: number | null): AgentEvent[] {
  const t = `turn-slash${n}`;
  return [
    ev(t, { type: 'turn.started', input, kind: 'slash', mode: 'auto-edit', model: 'm' }),
    ev(t, { type: 'rewound', toTurn }),
    ev(t, { type: 'command.result', kind: 'slash', name: 'rewind', ok: true, text: 'Rewound', exitCode: null }),
    ev(t, { type: 'turn.ended', outcome: 'completed', message: null, steps: 0 }),
  ];
}
const chats = (items: readonly TranscriptItem[]) => items.filter(isChatTurn).map((i) => i.text);

describe('transcript fold: /rewind', () => {
  it('folds the later chat turns into one item, keeps the /rewind turn after it, and unfolds on /rewind undo', () => {
    seq = 0;
    const base = applyEvents(emptyTranscript, [...chatTurn(1, 'a.txt'), ...chatTurn(2, 'b.txt'), ...chatTurn(3, 'c.txt')]);
    expect(editedPaths(base.items)).toEqual(['a.txt', 'b.txt', 'c.txt']);
    // Claude Code's cards carry its own input (file_path, absolute inside the session's folder).
    const cc = applyEvents(emptyTranscript, [...chatTurn(7, 'x'), ...chatTurn(8, 'y')].map((e) => (e.data.type === 'tool.input.delta' ? { ...e, data: { ...e.data, partialJson: JSON.stringify({ file_path: e.data.toolUseId === 'tu7' ? '/repo/src/a.ts' : '/elsewhere/b.ts', content: 'x' }) } } : e)));
    expect(editedPaths(cc.items, '/repo')).toEqual(['src/a.ts', '/elsewhere/b.ts']);

    const rewound = applyEvents(base, slashTurn(4, '/rewind 1', 1));
    expect(chats(rewound.items)).toEqual(['ask 1']);
    const folded = rewound.items.find((i) => i.kind === 'rewound') as Extract<TranscriptItem, { kind: 'rewound' }>;
    expect(folded).toMatchObject({ toTurn: 1, fromTurn: 2, toLast: 3 });
    expect(chats(folded.items)).toEqual(['ask 2', 'ask 3']);
    // The /rewind turn itself stays visible after the folded turns.
    const after = rewound.items.slice(rewound.items.indexOf(folded) + 1);
    expect(after[0]).toMatchObject({ kind: 'user', text: '/rewind 1' });
    expect(after.some((i) => i.kind === 'command')).toBe(true);

    // A new chat turn after the rewind is turn 2 again.
    const next = applyEvents(rewound, chatTurn(5, 'd.txt'));
    expect(chats(next.items)).toEqual(['ask 1', 'ask 5']);

    // Undo (before any new turn): the folded turns come back where they were.
    const undone = applyEvents(rewound, slashTurn(6, '/rewind undo', null));
    expect(chats(undone.items)).toEqual(['ask 1', 'ask 2', 'ask 3']);
    expect(undone.items.some((i) => i.kind === 'rewound')).toBe(false);
  });

  it('a rewind to 0 folds every turn; a second rewind counts only the turns left', () => {
    seq = 0;
    let t = applyEvents(emptyTranscript, [...chatTurn(1, 'a.txt'), ...chatTurn(2, 'b.txt')]);
    t = applyEvents(t, slashTurn(3, '/rewind 1', 1));
    t = applyEvents(t, [...chatTurn(4, 'x.txt'), ...chatTurn(5, 'y.txt')]);
    expect(chats(t.items)).toEqual(['ask 1', 'ask 4', 'ask 5']);
    t = applyEvents(t, slashTurn(6, '/rewind 2', 2));
    expect(chats(t.items)).toEqual(['ask 1', 'ask 4']);
    t = applyEvents(t, slashTurn(7, '/rewind 0', 0));
    expect(chats(t.items)).toEqual([]);
  });
});
