import { describe, expect, it } from 'vitest';
import { findMatches, itemText } from '../../../src-renderer/src/agents/transcript-find';
import type { TranscriptItem } from '../../../src-renderer/src/agents/transcript';

const items: TranscriptItem[] = [
  { kind: 'user', id: 'u1', turnId: null, text: 'Look at the Parser', inputKind: 'chat', ts: 0 },
  { kind: 'assistant', id: 'a1', text: 'The parser keeps its state in one place.' },
  {
    kind: 'tool',
    id: 't1',
    tool: 'bash',
    inputJson: '{"command":"grep -rn value src"}',
    decision: null,
    approval: null,
    output: '',
    outputTruncated: false,
    terminalId: null,
    result: { isError: false, content: 'src/a.ts:1: value', exitCode: 0, durationMs: 3, stderr: 'warning: deprecated' },
  },
  { kind: 'command', id: 'c1', name: 'model', cmdKind: 'slash', ok: true, text: '', exitCode: null, view: { type: 'table', intro: null, columns: ['name'], rows: [{ cells: ['claude-opus'] }], notes: [] }, actions: [] },
  { kind: 'turn-end', id: 'e1', outcome: 'completed', message: null, steps: 1 },
  { kind: 'rewound', id: 'r1', toTurn: 1, fromTurn: 2, toLast: 2, items: [{ kind: 'assistant', id: 'a2', text: 'set aside answer' }] },
];

describe('find in a transcript', () => {
  it('matches blocks by what they show, case-insensitively, in order', () => {
    expect(findMatches(items, 'parser')).toEqual([0, 1]);
    // A tool card: its input, its result and its streams apart.
    expect(findMatches(items, 'grep -rn')).toEqual([2]);
    expect(findMatches(items, 'DEPRECATED')).toEqual([2]);
    // A table's cells, and turns a rewind set aside.
    expect(findMatches(items, 'claude-opus')).toEqual([3]);
    expect(findMatches(items, 'set aside answer')).toEqual([5]);
  });

  it('an empty or blank query matches nothing; a block without words is empty', () => {
    expect(findMatches(items, '')).toEqual([]);
    expect(findMatches(items, '   ')).toEqual([]);
    expect(itemText(items[4]!)).toBe('');
  });
});
