import { describe, expect, it } from 'vitest';
import type { AgentEvent, AgentEventData, ProviderProfile, Session } from '../../../src-preload/contract/agents';
import { applyEvents, clipLines, emptyTranscript, MAX_TOOL_OUTPUT_CHARS } from '../../../src-renderer/src/agents/transcript';
import { parseUnifiedDiff } from '../../../src-renderer/src/agents/diff-parse';
import { draftFromProfile, draftToInput, NEW_DRAFT, validateDraft, fieldOfServerMessage } from '../../../src-renderer/src/agents/profile-form';
import { patchInputDiff, statusFor } from '../../../src-renderer/src/agents/DiffView';
import { plural, usd } from '../../../src-renderer/src/lib/format';
import { groupSessions } from '../../../src-renderer/src/lib/session-groups';

const SID = 'ses-abcdef12';
let seq = 0;
const ev = (data: AgentEventData, turn = 'turn-abcdef12'): AgentEvent => ({ sessionId: SID, seq: ++seq, ts: 1000 + seq, turnId: turn, data });

describe('transcript fold: one block per thing that happened', () => {
  it('a `!` command is its bash card only, titled with the command (no second "! !" block)', () => {
    seq = 0;
    const t = applyEvents(emptyTranscript, [
      ev({ type: 'turn.started', input: '!ls -la', kind: 'bang', mode: 'default', model: 'm' }),
      ev({ type: 'tool.decision', toolUseId: 'tool-1', tool: 'bash', decision: 'allow', source: 'policy', reason: 'read-only', risk: 'low' }),
      ev({ type: 'tool.output', toolUseId: 'tool-1', chunk: 'README.md\n' }),
      ev({ type: 'tool.result', toolUseId: 'tool-1', tool: 'bash', isError: false, content: 'README.md', exitCode: 0, durationMs: 5 }),
      ev({ type: 'command.result', kind: 'bang', name: '!', ok: true, text: 'README.md', exitCode: 0 }),
      ev({ type: 'turn.ended', outcome: 'completed', message: null, steps: 0 }),
    ]);
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'tool', 'turn-end']);
    const card = t.items[1]!;
    expect(card.kind === 'tool' && JSON.parse(card.inputJson)).toEqual({ command: 'ls -la' });
  });

  it('a bare `!` (nothing ran) still shows its usage message', () => {
    seq = 0;
    const t = applyEvents(emptyTranscript, [
      ev({ type: 'turn.started', input: '!', kind: 'bang', mode: 'default', model: 'm' }),
      ev({ type: 'command.result', kind: 'bang', name: '!', ok: false, text: 'Usage: !<command>', exitCode: null }),
    ]);
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'command']);
  });

  it('/compact is one block: the figures with the summary folded in, no repeated command text', () => {
    seq = 0;
    const t = applyEvents(emptyTranscript, [
      ev({ type: 'turn.started', input: '/compact', kind: 'slash', mode: 'default', model: 'm' }),
      ev({ type: 'compaction', trigger: 'manual', beforeTokens: 12_000, afterTokens: 3_000, summarizedMessages: 1 }),
      ev({ type: 'message', message: { id: 'msg-abcdef12', sessionId: SID, turnId: 'turn-abcdef12', role: 'user', kind: 'summary', blocks: [{ type: 'text', text: 'We fixed the parser.' }], createdAt: 1 } }),
      ev({ type: 'command.result', kind: 'slash', name: 'compact', ok: true, text: 'Compacted 1 messages', exitCode: null }),
      ev({ type: 'turn.ended', outcome: 'completed', message: null, steps: 0 }),
    ]);
    expect(t.items.map((i) => i.kind)).toEqual(['user', 'compaction', 'turn-end']);
    expect(t.items[1]).toMatchObject({ summary: 'We fixed the parser.', text: expect.stringContaining('1 message summarized') });
  });

  it('a turn resumed after an approval shows no invented user message (new and old logs)', () => {
    seq = 0;
    const t = applyEvents(emptyTranscript, [
      ev({ type: 'turn.started', input: '', kind: 'chat', mode: 'default', model: 'm', resumed: true }),
      ev({ type: 'turn.started', input: '(continuing after the approval was answered)', kind: 'chat', mode: 'default', model: 'm' }),
    ]);
    expect(t.items.every((i) => i.kind === 'notice')).toBe(true);
    expect(JSON.stringify(t.items)).not.toContain('continuing after the approval');
  });

  it('Claude Code announces a conversation once, and again only for a new one', () => {
    seq = 0;
    const started = (id: string) => ev({ type: 'notice', level: 'info', text: `Claude Code 2.1.197 started (session ${id}, model m, permission mode default).` });
    const t = applyEvents(emptyTranscript, [started('aaa-111'), started('aaa-111'), started('bbb-222'), started('aaa-111')]);
    expect(t.items).toHaveLength(2);
  });

  it('slash output keeps its structured view', () => {
    seq = 0;
    const view = { type: 'table' as const, intro: null, columns: ['Command', 'What it does'], rows: [{ cells: ['/help', 'List'] }], notes: [] };
    const t = applyEvents(emptyTranscript, [ev({ type: 'command.result', kind: 'slash', name: 'help', ok: true, text: '/help List', exitCode: null, view })]);
    expect(t.items[0]).toMatchObject({ kind: 'command', view });
  });

  it('live output trimmed at the front starts at a line boundary', () => {
    seq = 0;
    const line = (i: number) => `line ${String(i).padStart(6, '0')} ${'x'.repeat(40)}\n`;
    let all = '';
    for (let i = 0; i < 6_000; i++) all += line(i);
    const t = applyEvents(emptyTranscript, [ev({ type: 'tool.started', step: 1, index: 0, toolUseId: 'b', tool: 'bash' }), ev({ type: 'tool.output', toolUseId: 'b', chunk: all })]);
    const card = t.items[0]!;
    if (card.kind !== 'tool') throw new Error('not a tool card');
    expect(card.outputTruncated).toBe(true);
    expect(card.output.length).toBeLessThanOrEqual(MAX_TOOL_OUTPUT_CHARS);
    expect(card.output).toMatch(/^line \d{6} x+\n/);
    expect(card.output.endsWith(line(5_999))).toBe(true);
  });
});

describe('clipLines', () => {
  it('keeps whole lines from the start or the end', () => {
    expect(clipLines('aaa\nbbb\nccc\n', 9, 'head')).toEqual({ text: 'aaa\nbbb\n', cut: true });
    expect(clipLines('aaa\nbbb\nccc\n', 9, 'tail')).toEqual({ text: 'bbb\nccc\n', cut: true });
    expect(clipLines('short', 10, 'head')).toEqual({ text: 'short', cut: false });
    // One line longer than the limit has no boundary: it is cut inside.
    expect(clipLines('x'.repeat(20), 5, 'head')).toEqual({ text: 'xxxxx', cut: true });
  });
});

describe('diff parsing for /diff', () => {
  const git = [
    'diff --git a/README.md b/README.md',
    'index 1111111..2222222 100644',
    '--- a/README.md',
    '+++ b/README.md',
    '@@ -1,2 +1,3 @@',
    '-# sample',
    '+# sample project',
    '+',
    ' text',
    'diff --git a/gone.txt b/gone.txt',
    'deleted file mode 100644',
    '--- a/gone.txt',
    '+++ /dev/null',
    '@@ -1 +0,0 @@',
    '-bye',
    '\\ No newline at end of file',
    '--- /dev/null',
    '+++ b/notes/a.txt',
    '@@ -0,0 +1,2 @@',
    '+first',
    '+second',
    'new binary file img.png',
    'new file big.bin (9000000 bytes, not shown)',
    'diff --git a/logo.png b/logo.png',
    'Binary files a/logo.png and b/logo.png differ',
  ].join('\n');

  it('splits files and hunks with line numbers and counts', () => {
    const files = parseUnifiedDiff(git);
    expect(files.map((f) => [f.path, f.added, f.removed, f.binary])).toEqual([
      ['README.md', 2, 1, false],
      ['gone.txt', 0, 1, false],
      ['notes/a.txt', 2, 0, false],
      ['img.png', 0, 0, true],
      ['big.bin', 0, 0, true],
      ['logo.png', 0, 0, true],
    ]);
    const readme = files[0]!.hunks[0]!.lines;
    expect(readme.map((l) => [l.kind, l.oldNo, l.newNo])).toEqual([
      ['del', 1, null],
      ['add', null, 1],
      ['add', null, 2],
      ['context', 2, 3],
    ]);
    expect(files[1]!.hunks[0]!.lines.at(-1)).toMatchObject({ kind: 'meta' });
    expect(files[4]!.note).toContain('9000000 bytes');
  });

  it('never throws on junk', () => {
    expect(parseUnifiedDiff('')).toEqual([]);
    expect(parseUnifiedDiff('@@ -1 +1 @@\n+x\nrandom\n--- only')).toEqual([]);
  });

  it("finds a file's status from its own line or its untracked folder", () => {
    const status = [' M README.md', '?? notes/', 'R  old.txt -> new.txt'];
    expect(statusFor('README.md', status)).toBe('M');
    expect(statusFor('notes/a.txt', status)).toBe('?');
    expect(statusFor('new.txt', status)).toBe('R');
  });

  it('a patch call shows as a diff built from its edits', () => {
    const d = patchInputDiff({ path: 'a.txt', edits: [{ search: 'one', replace: 'two' }] })!;
    expect(d).toContain('-one');
    expect(d).toContain('+two');
    expect(patchInputDiff({ path: 'a.txt', diff: '--- a\n+++ b\n' })).toBe('--- a\n+++ b\n');
    expect(patchInputDiff({ path: 'a.txt' })).toBeNull();
  });
});

describe('provider form', () => {
  const profile: ProviderProfile = {
    name: 'glm',
    label: 'GLM (Zhipu)',
    preset: 'glm',
    baseUrl: 'https://open.bigmodel.cn/api/anthropic',
    model: 'glm-4.6',
    maxTokens: 16_384,
    contextWindow: 200_000,
    prices: { inputPerMTok: 0.6, outputPerMTok: 2.2, cacheReadPerMTok: 0.11, cacheWritePerMTok: 0 },
    apiKeySet: false,
    apiKeySource: 'none',
    isDefault: true,
    builtIn: true,
  };

  it('an edited listed profile becomes exactly the save input (never the read-only fields)', () => {
    const v = validateDraft({ ...draftFromProfile(profile), apiKey: '  sk-123  ' });
    expect(v.ok).toBe(true);
    expect(Object.keys(v.input!).sort()).toEqual(['apiKey', 'baseUrl', 'contextWindow', 'label', 'maxTokens', 'model', 'name', 'preset', 'prices']);
    expect(v.input!.apiKey).toBe('sk-123');
    // Already the default: not sent again; a new default is.
    expect(draftToInput(draftFromProfile(profile))).not.toHaveProperty('makeDefault');
    expect(draftToInput({ ...draftFromProfile({ ...profile, isDefault: false }), makeDefault: true })).toHaveProperty('makeDefault', true);
  });

  it('mistakes come back in words, by field; an emptied number is an error, not 0', () => {
    const v = validateDraft({ ...NEW_DRAFT, name: 'My Endpoint', label: '', baseUrl: 'example.com', model: '', contextWindow: '', prices: { ...NEW_DRAFT.prices, outputPerMTok: '-1' }, apiKey: 'a b' });
    expect(v.ok).toBe(false);
    expect(Object.keys(v.errors).sort()).toEqual(['apiKey', 'baseUrl', 'contextWindow', 'label', 'model', 'name', 'prices.outputPerMTok']);
    for (const message of Object.values(v.errors)) expect(message).not.toMatch(/expected|Too small|Invalid/);
  });

  it('a server message naming a field points at it', () => {
    expect(fieldOfServerMessage('baseUrl: the base URL must be http(s)')).toBe('baseUrl');
    expect(fieldOfServerMessage('Give a new API key or clear it, not both.')).toBeNull();
  });
});

describe('formatting', () => {
  it('small costs keep their digits', () => {
    expect(usd(0)).toBe('$0.00');
    expect(usd(0.003)).toBe('$0.003');
    expect(usd(0.0123)).toBe('$0.012');
    expect(usd(0.25)).toBe('$0.25');
    expect(usd(12.345)).toBe('$12.35');
    expect(usd(0.00001)).toBe('<$0.0001');
  });
  it('pluralizes', () => {
    expect(plural(1, 'turn')).toBe('1 turn');
    expect(plural(0, 'turn')).toBe('0 turns');
  });
});

describe('sidebar groups', () => {
  const s = (id: string, projectId: string | null, updatedAt: number) => ({ id, projectId, updatedAt }) as unknown as Session;
  it('groups sessions by project, most recent project first, folders without a project last', () => {
    const groups = groupSessions([s('ses-aaaaaa1', 'p1', 5), s('ses-aaaaaa2', null, 9), s('ses-aaaaaa3', 'p2', 8), s('ses-aaaaaa4', 'p1', 1)], [
      { id: 'p1', name: 'alpha' },
      { id: 'p2', name: 'beta' },
    ]);
    expect(groups.map((g) => [g.label, g.sessions.map((x) => x.id)])).toEqual([
      ['beta', ['ses-aaaaaa3']],
      ['alpha', ['ses-aaaaaa1', 'ses-aaaaaa4']],
      ['Other folders', ['ses-aaaaaa2']],
    ]);
  });
});
