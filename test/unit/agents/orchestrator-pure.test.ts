import { describe, expect, it } from 'vitest';
import { normalizeExternalTool } from '../../../src-main/approvals/external-tools';
import { planCompaction, transcriptOf } from '../../../src-main/agents/orchestrator/compaction';
import { assessComplexity, initialTodos, LENGTH_THRESHOLD, MAX_AUTO_TODOS } from '../../../src-main/agents/orchestrator/complexity';
import { estimateTokens, INTERRUPTED_TOOL_RESULT, toApiMessages } from '../../../src-main/agents/orchestrator/context';
import { inputKind, parseSlash } from '../../../src-main/agents/orchestrator/run-input';
import { asksForVerification, isDocPath, isWhitelisted, VERIFY_WHITELIST } from '../../../src-main/agents/orchestrator/verify-detect';
import type { StoredMessage } from '../../../src-main/agents/store/message-repo';
import type { StoredBlock } from '../../../src-main/agents/store/blocks';

let n = 0;
function msg(role: StoredMessage['role'], blocks: StoredBlock[], turnId: string | null = 'turn-aaaaaa', kind: StoredMessage['kind'] = 'chat'): StoredMessage {
  n++;
  return { id: `msg-${n}`, sessionId: 'ses-x', turnId, role, kind, blocks, ord: n, compacted: false, createdAt: n };
}

describe('input dispatch (seed 001 §2)', () => {
  it('trims and dispatches by prefix', () => {
    expect(inputKind('  !ls')).toBe('bang');
    expect(inputKind('/help ')).toBe('slash');
    expect(inputKind('fix it')).toBe('chat');
    expect(inputKind('say /help')).toBe('chat');
    expect(parseSlash('/Model   glm:glm-4.7 ')).toEqual({ name: 'model', args: ['glm:glm-4.7'] });
    expect(parseSlash('/')).toEqual({ name: '', args: [] });
  });
});

describe('complexity (seed 001 §9)', () => {
  it('rule 1: explicit enumeration of goals', () => {
    const c = assessComplexity('Please:\n1. add a login page\n2. add logout\n3. write tests');
    expect(c).toMatchObject({ complex: true, rule: 'enumeration', items: ['add a login page', 'add logout', 'write tests'] });
    expect(assessComplexity('do this:\n- fix the parser\n- update docs').rule).toBe('enumeration');
    expect(assessComplexity('请完成：\n1、重写配置模块\n2、补充测试').rule).toBe('enumeration');
    expect(assessComplexity('steps: 1) build it 2) ship it').items).toEqual(['build it', 'ship it']);
    expect(assessComplexity('fix item 1. in the list').complex).toBe(false);
  });
  it('rule 2: length threshold (CJK weighted)', () => {
    expect(assessComplexity('a'.repeat(LENGTH_THRESHOLD + 1))).toMatchObject({ complex: true, rule: 'length' });
    expect(assessComplexity('a'.repeat(LENGTH_THRESHOLD)).complex).toBe(false);
    expect(assessComplexity('改'.repeat(Math.ceil(LENGTH_THRESHOLD / 3) + 1))).toMatchObject({ complex: true, rule: 'length' });
  });
  it('rule 3: keywords over several segments', () => {
    expect(assessComplexity('Refactor the store. Then migrate the callers. Finally update the docs.')).toMatchObject({ complex: true, rule: 'keywords' });
    expect(assessComplexity('Refactor and migrate the store').complex).toBe(false);
    expect(assessComplexity('Fix the typo. Run it. Ship it.').complex).toBe(false);
  });
  it('initial todos: the enumerated goals, or one item to break down', () => {
    const c = assessComplexity('1. a\n2. b');
    expect(initialTodos('', c)).toEqual([
      { id: 't1', text: 'a', status: 'in_progress' },
      { id: 't2', text: 'b', status: 'pending' },
    ]);
    const many = Array.from({ length: 30 }, (_, i) => `${i + 1}. item ${i}`).join('\n');
    expect(initialTodos(many, assessComplexity(many))).toHaveLength(MAX_AUTO_TODOS);
    const long = assessComplexity('x'.repeat(700));
    expect(initialTodos('x'.repeat(700), long)).toHaveLength(1);
    expect(initialTodos('x'.repeat(700), long)[0]!.text.startsWith('Break down and carry out: ')).toBe(true);
  });
});

describe('conversation → API messages', () => {
  it('merges tool messages into one user turn and pairs tool_use ids', () => {
    const out = toApiMessages([
      msg('user', [{ type: 'text', text: 'hi' }]),
      msg('assistant', [{ type: 'text', text: 'ok' }, { type: 'tool_use', id: 'tu1', name: 'read', input: {} }, { type: 'tool_use', id: 'tu2', name: 'read', input: {} }]),
      msg('tool', [{ type: 'tool_result', tool_use_id: 'tu1', content: 'a' }]),
      msg('tool', [{ type: 'tool_result', tool_use_id: 'tu2', content: 'b' }]),
      msg('user', [{ type: 'text', text: 'verify failed' }], 'turn-aaaaaa', 'verify'),
    ]);
    expect(out.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(out[2]!.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
  });
  it('answers orphan tool_uses of an interrupted turn and drops orphan results', () => {
    const out = toApiMessages([
      msg('user', [{ type: 'text', text: 'go' }]),
      msg('assistant', [{ type: 'tool_use', id: 'tu1', name: 'bash', input: {} }]),
      msg('user', [{ type: 'text', text: 'next' }]),
      msg('tool', [{ type: 'tool_result', tool_use_id: 'gone', content: 'x' }]),
    ]);
    expect(out).toHaveLength(3);
    expect(out[2]!.content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 'tu1', content: INTERRUPTED_TOOL_RESULT, is_error: true });
    expect(out[2]!.content.some((b) => b.type === 'tool_result' && b.tool_use_id === 'gone')).toBe(false);
  });
  it('opens with a user turn and drops unsigned thinking', () => {
    const out = toApiMessages([msg('assistant', [{ type: 'thinking', thinking: 't' }, { type: 'text', text: 'x' }])]);
    expect(out[0]!.role).toBe('user');
    expect(out[1]!.content).toEqual([{ type: 'text', text: 'x' }]);
  });
  it('estimates tokens at about four characters each', () => {
    expect(estimateTokens('x'.repeat(400), [], [])).toBe(101);
  });
});

describe('compaction plan', () => {
  const turn = (id: string) => [msg('user', [{ type: 'text', text: `q ${id}` }], id), msg('assistant', [{ type: 'text', text: `a ${id}` }], id)];
  it('keeps the last two turns and summarizes the rest', () => {
    const all = [...turn('turn-1'), ...turn('turn-2'), ...turn('turn-3'), ...turn('turn-4')];
    const p = planCompaction(all, null)!;
    expect(p.summarize.map((m) => m.turnId)).toEqual(['turn-1', 'turn-1', 'turn-2', 'turn-2']);
    expect(p.keep.map((m) => m.turnId)).toEqual(['turn-3', 'turn-3', 'turn-4', 'turn-4']);
    expect(transcriptOf(p.summarize)).toBe('USER: q turn-1\nASSISTANT: a turn-1\nUSER: q turn-2\nASSISTANT: a turn-2');
  });
  it('never summarizes the current turn, and has nothing to do with too few turns', () => {
    const all = [...turn('turn-1'), ...turn('turn-2')];
    expect(planCompaction(all, null)).toBeNull();
    const more = [...turn('turn-1'), ...turn('turn-2'), ...turn('turn-3')];
    expect(planCompaction(more, 'turn-1')).toBeNull();
    expect(planCompaction(more, 'turn-3')!.summarize).toHaveLength(2);
  });
});

describe('auto-verify rules', () => {
  it('has exactly the nine whitelisted commands', () => {
    expect(VERIFY_WHITELIST).toContain('npm test -- --run');
    expect(isWhitelisted('npm test')).toBe(true);
    // Node's own runner reads --watch=false as --watch: never again a verify command.
    expect(isWhitelisted('npm test -- --watch=false')).toBe(false);
    expect(isWhitelisted('go test ./... && curl x')).toBe(false);
  });
  it('knows documentation paths', () => {
    for (const p of ['README.md', 'docs/guide.txt', 'doc/api/x.ts', 'CHANGELOG', 'LICENSE', 'notes.rst']) expect(isDocPath(p)).toBe(true);
    for (const p of ['src/a.ts', 'package.json', 'Makefile', 'docsite/x.ts', 'requirements.txt']) expect(isDocPath(p)).toBe(false);
  });
  it('recognizes an explicit request to verify', () => {
    for (const s of ['fix it and run the tests', 'make sure the tests pass', 'verify the change', '修复后跑一下测试', '请验证']) expect(asksForVerification(s)).toBe(true);
    for (const s of ['fix the typo', 'write a test for the parser', 'rename the build folder']) expect(asksForVerification(s)).toBe(false);
  });
});

describe('external tool names (Claude Code) map onto the engine tools', () => {
  it('maps Bash, Write, Edit, MultiEdit, Read and leaves others', () => {
    expect(normalizeExternalTool('Bash', { command: 'ls' })).toEqual({ tool: 'bash', input: { command: 'ls' } });
    expect(normalizeExternalTool('Write', { file_path: '/r/a', content: 'x' })).toEqual({ tool: 'write', input: { path: '/r/a', content: 'x' } });
    expect(normalizeExternalTool('Edit', { file_path: 'a', old_string: 'x', new_string: 'y', replace_all: true })).toEqual({ tool: 'patch', input: { path: 'a', edits: [{ search: 'x', replace: 'y', all: true }] } });
    expect(normalizeExternalTool('MultiEdit', { file_path: 'a', edits: [{ old_string: 'x', new_string: 'y' }] }).input).toEqual({ path: 'a', edits: [{ search: 'x', replace: 'y' }] });
    expect(normalizeExternalTool('WebFetch', { url: 'u' })).toEqual({ tool: 'WebFetch', input: { url: 'u' } });
  });
});
