import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_COMMAND_FILE_BYTES, checkCommandAgainstState, formatCommandFile, parseCommandFile, parseIsoTime, type CommandFile, type CommandFileInput } from '../../../src-main/mailbox/command-file';
import { isAppError } from '../../../src-preload/contract/errors';

const FIXTURES = join(__dirname, '../../fixtures/mailbox');
const MALFORMED = join(FIXTURES, 'malformed');
const expected = JSON.parse(readFileSync(join(MALFORMED, 'expected.json'), 'utf8')) as Record<string, { code: string; line?: number; field?: string }>;

function parseFixture(dir: string, name: string) {
  return parseCommandFile(readFileSync(join(FIXTURES, dir, name)));
}

function mustParse(dir: string, name: string): { command: CommandFile; warnings: { code: string; field?: string }[] } {
  const r = parseFixture(dir, name);
  if (!r.ok) throw new Error(`${name}: ${r.problems.map((p) => p.message).join('\n')}`);
  return r;
}

describe('malformed command files', () => {
  const names = readdirSync(MALFORMED).filter((n) => n !== 'expected.json');

  it('the corpus has at least 40 files, each with its expected reason', () => {
    expect(names.length).toBeGreaterThanOrEqual(40);
    expect(names.sort()).toEqual(Object.keys(expected).sort());
  });

  it.each(Object.entries(expected))('%s is rejected for its reason', (name, want) => {
    const r = parseFixture('malformed', name);
    expect(r.ok, name).toBe(false);
    if (r.ok) return;
    const match = r.problems.find((p) => p.code === want.code);
    expect(match, `${name}: got ${JSON.stringify(r.problems)}`).toBeDefined();
    if (want.line !== undefined) {
      expect(match!.line).toBe(want.line);
      expect(match!.message).toContain(`line ${want.line}`);
    }
    if (want.field !== undefined) {
      expect(match!.field).toBe(want.field);
      expect(match!.message).toContain(want.field);
    }
    for (const p of r.problems) expect(p.message.length).toBeGreaterThan(20);
  });

  it('reports every problem of a file, not only the first', () => {
    const text = '---\nid: 42\ncreated_at: soon\nsession_id: abc\ncommand_type: new\nplacement: moon\n---\n\n## 任务描述\n\n\n';
    const r = parseCommandFile(text);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => `${p.code}:${p.field ?? ''}:${p.line ?? ''}`).sort()).toEqual(
      ['empty_task_section:task:9', 'invalid_field:created_at:3', 'invalid_field:id:2', 'invalid_field:placement:6', 'session_id_for_new:session_id:4'].sort(),
    );
  });

  it('names the value it rejects', () => {
    const r = parseFixture('malformed', 'command-type-unknown.md');
    expect(!r.ok && r.problems[0]!.message).toContain('"start"');
    expect(!r.ok && r.problems[0]!.value).toBe('"start"');
    // A number is shown as a number, so "quote it" makes sense.
    const n = parseFixture('malformed', 'id-number.md');
    expect(!n.ok && n.problems[0]!.message).toContain('id is 42 (a number)');
    const u = parseFixture('malformed', 'utf16le-bom.md');
    expect(!u.ok && u.problems[0]!.message).toContain('UTF-16');
  });

  it('refuses input over the size limit before decoding it (bytes and strings)', () => {
    const big = new Uint8Array(MAX_COMMAND_FILE_BYTES + 1).fill(0xff); // not UTF-8: only the size check may answer
    const r = parseCommandFile(big);
    expect(!r.ok && r.problems.map((p) => p.code)).toEqual(['too_large']);
    const s = parseCommandFile('---\n' + 'x'.repeat(MAX_COMMAND_FILE_BYTES));
    expect(!s.ok && s.problems.map((p) => p.code)).toEqual(['too_large']);
    // Exactly at the limit is read (and here rejected for its content, not its size).
    const atLimit = parseCommandFile(new Uint8Array(MAX_COMMAND_FILE_BYTES).fill(0x61));
    expect(!atLimit.ok && atLimit.problems[0]!.code).toBe('no_front_matter');
  });

  it('an alias bomb is stopped quickly', () => {
    const r = parseFixture('malformed', 'yaml-alias-bomb.md');
    expect(!r.ok && r.problems[0]!.message).toMatch(/alias/);
  });
});

describe('valid command files', () => {
  it('the format example in Chinese', () => {
    const { command, warnings } = mustParse('valid', 'histoformer-zh.md');
    expect(warnings).toEqual([]);
    expect(command).toEqual({
      id: 'histoformer-task',
      createdAt: '2026-02-22T07:45:00Z',
      createdAtMs: Date.UTC(2026, 1, 22, 7, 45),
      commandType: 'new',
      sessionId: null,
      task: '请完成以下任务：\n\n1. 克隆 GitHub 项目：https://github.com/sunshangquan/Histoformer.git\n2. 分析项目结构，了解这是什么类型的项目',
      constraints: '- 在 workspace 目录下操作\n- GPU 可用，可以安装 CUDA 相关依赖',
      expectedOutput: '- 项目成功克隆到 workspace 目录',
      extra: {},
    });
  });

  it('"（可选）" headings, an empty session_id for new, a time zone offset', () => {
    const { command } = mustParse('valid', 'optional-headings-zh.md');
    expect(command.sessionId).toBeNull();
    expect(command.createdAtMs).toBe(Date.UTC(2026, 1, 22, 2, 0));
    expect(command.task).toBe('实现一个简单的 REST API 服务');
    expect(command.constraints).toBe('- 使用 Python Flask 框架');
    expect(command.expectedOutput).toBe('- 可运行的 Flask 应用');
  });

  it('English headings, the optional keys, an unknown key kept with a warning, a heading inside a code block', () => {
    const { command, warnings } = mustParse('valid', 'continue-en.md');
    expect(command).toMatchObject({
      id: 'task-abc124',
      commandType: 'continue',
      sessionId: 'abc123-def456',
      project: 'demo',
      placement: 'container',
      engine: 'claude-code',
      gpus: { kind: 'ids', ids: ['0', 'GPU-8f3c'] },
      timeoutMs: 15 * 60_000,
      extra: { priority: 'high' },
      constraints: 'Use pytest.',
      expectedOutput: 'Green tests.',
    });
    expect(command.task).toBe('Add unit tests.\n\n```markdown\n## Task\nThis heading is inside a code block and stays part of the task.\n```');
    expect(warnings).toEqual([expect.objectContaining({ code: 'unknown_key', field: 'priority', line: 11 })]);
  });

  it('end, gpus all, a timeout in seconds, a harmless alias', () => {
    const { command, warnings } = mustParse('valid', 'end-en.md');
    expect(command).toMatchObject({ commandType: 'end', sessionId: 'abc123-def456', gpus: { kind: 'all' }, timeoutMs: 90_000, extra: { x: 'note', y: 'note' } });
    expect(warnings.map((w) => w.field)).toEqual(['x', 'y']);
  });

  it('CRLF line endings and a byte order mark', () => {
    const { command } = mustParse('valid', 'crlf-bom-en.md');
    const plain = mustParse('valid', 'end-en.md').command;
    expect(command).toEqual({ ...plain, id: 'task-crlf' });
  });

  it('ISO 8601 times', () => {
    expect(parseIsoTime('2026-02-22T10:00:00Z')).toBe(Date.UTC(2026, 1, 22, 10));
    expect(parseIsoTime('2026-02-22T10:00:00.5-01:30')).toBe(Date.UTC(2026, 1, 22, 11, 30, 0, 500));
    expect(parseIsoTime('2024-02-29T00:00Z')).toBe(Date.UTC(2024, 1, 29));
    for (const bad of ['2025-02-29T00:00Z', '2026-13-01T00:00Z', '2026-02-22', 'now', '2026-02-22T10:00:00+25:00']) expect(parseIsoTime(bad), bad).toBeNaN();
  });
});

describe('formatCommandFile', () => {
  const base: CommandFileInput = { id: 'task-7f3a', createdAt: '2026-02-22T10:00:00Z', commandType: 'new', task: '创建一个 hello.py 文件\n\n- 打印 Hello World' };

  it.each<[string, CommandFileInput]>([
    ['minimal new (Chinese headings)', base],
    ['every field (English headings)', { ...base, headings: 'en', constraints: 'No network.\n```\n## not a heading\n```', expectedOutput: 'hello.py', project: 'demo', placement: 'host', engine: 'claude-code', gpus: { kind: 'count', count: 2 }, timeoutMs: 600_000, extra: { owner: 'plan-agent' } }],
    ['continue with gpu ids and a millisecond timeout', { ...base, commandType: 'continue', sessionId: 'abc123-def456', gpus: { kind: 'ids', ids: ['0', '1'] }, timeoutMs: 1500, task: '  \n添加单元测试\n\n' }],
    ['end, text that looks like YAML', { ...base, commandType: 'end', sessionId: 's-1', task: '---\nid: not-front-matter\n---' }],
  ])('round-trips: %s', (_, input) => {
    const text = formatCommandFile(input);
    const r = parseCommandFile(new TextEncoder().encode(text));
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const { headings: _h, extra, ...rest } = input;
    const want: Record<string, unknown> = { ...rest, sessionId: input.commandType === 'new' ? null : input.sessionId, task: input.task.trim(), extra: extra ?? {} };
    expect(r.command).toMatchObject(want);
    expect(r.command.createdAtMs).toBe(Date.UTC(2026, 1, 22, 10));
    expect(r.warnings.filter((w) => w.code !== 'unknown_key')).toEqual([]);
  });

  it('writes the headings of the chosen language', () => {
    expect(formatCommandFile({ ...base, constraints: 'x' })).toContain('\n## 任务描述\n');
    expect(formatCommandFile({ ...base, headings: 'en', constraints: 'x' })).toMatch(/\n## Task\n[\s\S]*\n## Constraints\n/);
  });

  it.each<[string, CommandFileInput, RegExp]>([
    ['a heading line inside the task', { ...base, task: 'do this\n## 约束条件\nmore' }, /## /],
    ['an empty task', { ...base, task: '   ' }, /task section is empty/],
    ['a new command naming a session', { ...base, sessionId: 'abc' }, /new session/],
    ['continue without a session', { ...base, commandType: 'continue' }, /session_id/],
    ['an id that cannot name a file', { ...base, id: '../x' }, /id/],
    ['a bad time', { ...base, createdAt: 'tomorrow' }, /created_at/],
  ])('refuses %s with the reason', (_, input, why) => {
    let err: unknown;
    try {
      formatCommandFile(input);
    } catch (e) {
      err = e;
    }
    expect(isAppError(err) && err.code).toBe('invalid_input');
    expect((err as Error).message).toMatch(why);
  });
});

describe('checkCommandAgainstState', () => {
  const parse = (text: string) => {
    const r = parseCommandFile(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    return r.command;
  };
  const cmd = (type: string, session: string, id = 'task-9') => parse(`---\nid: ${id}\ncreated_at: 2026-02-22T10:00:00Z\nsession_id: ${session}\ncommand_type: ${type}\n---\n## Task\nx\n`);
  const state = {
    sessionStatus: (id: string) => ({ live: 'active', over: 'ended' })[id] as 'active' | 'ended' | undefined,
    isKnownCommandId: (id: string) => id === 'task-used',
  };

  it('accepts a new command and a continue or end of an active session', () => {
    expect(checkCommandAgainstState(cmd('new', 'auto'), state)).toEqual([]);
    expect(checkCommandAgainstState(cmd('continue', 'live'), state)).toEqual([]);
    expect(checkCommandAgainstState(cmd('end', 'live'), state)).toEqual([]);
  });

  it('rejects an unknown session, an ended session and a duplicate id', () => {
    expect(checkCommandAgainstState(cmd('continue', 'ghost'), state).map((p) => p.code)).toEqual(['unknown_session']);
    expect(checkCommandAgainstState(cmd('end', 'over'), state).map((p) => p.code)).toEqual(['session_ended']);
    expect(checkCommandAgainstState(cmd('continue', 'over'), state)[0]!.message).toContain('"over"');
    expect(checkCommandAgainstState(cmd('new', 'auto', 'task-used'), state).map((p) => p.code)).toEqual(['duplicate_id']);
    expect(checkCommandAgainstState(cmd('continue', 'ghost', 'task-used'), state).map((p) => p.code)).toEqual(['duplicate_id', 'unknown_session']);
  });
});

/** A small deterministic generator (mulberry32), so a failure reproduces. */
function rng(seed: number) {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

describe('robustness', () => {
  it('never throws on mutated or random input, and every problem has a message', () => {
    const rand = rng(42);
    const seeds = readdirSync(join(FIXTURES, 'valid')).map((n) => readFileSync(join(FIXTURES, 'valid', n)));
    for (let i = 0; i < 1500; i++) {
      let buf: Buffer;
      if (i % 3 === 0) {
        buf = Buffer.from(Array.from({ length: Math.floor(rand() * 300) }, () => Math.floor(rand() * 256)));
      } else {
        buf = Buffer.from(seeds[i % seeds.length]!);
        for (let k = 0, edits = 1 + Math.floor(rand() * 4); k < edits; k++) {
          const at = Math.floor(rand() * buf.length);
          const pick = rand();
          if (pick < 0.4) buf[at] = Math.floor(rand() * 256);
          else if (pick < 0.7) buf = Buffer.concat([buf.subarray(0, at), Buffer.from(['\t', ':', '&a ', '*a', '---\n', '## ', '\r', '"', '[', '\uFEFF'][Math.floor(rand() * 10)]!), buf.subarray(at)]);
          else buf = Buffer.concat([buf.subarray(0, at), buf.subarray(Math.min(buf.length, at + 1 + Math.floor(rand() * 20)))]);
        }
      }
      const r = parseCommandFile(buf);
      if (!r.ok) {
        expect(r.problems.length, buf.toString('latin1')).toBeGreaterThan(0);
        for (const p of r.problems) expect(p.message.length).toBeGreaterThan(10);
      } else {
        expect(r.command.task.trim()).not.toBe('');
      }
    }
  });

  it('the writer round-trips random section text or refuses it with invalid_input', () => {
    const rand = rng(7);
    const pieces = ['中文任务说明', '- item', '  indented', '```', '~~~', '## looks like a heading', '### sub heading', '# title', '---', '', 'key: value', '<!-- note -->', '\t tabbed', 'trailing   '];
    const text = () => Array.from({ length: 1 + Math.floor(rand() * 8) }, () => pieces[Math.floor(rand() * pieces.length)]!).join('\n');
    let written = 0;
    for (let i = 0; i < 400; i++) {
      const input: CommandFileInput = { id: `task-${i}`, createdAt: '2026-02-22T10:00:00Z', commandType: 'new', task: text(), constraints: rand() < 0.5 ? text() : undefined, headings: rand() < 0.5 ? 'en' : 'zh' };
      let out: string;
      try {
        out = formatCommandFile(input);
      } catch (e) {
        expect(isAppError(e) && e.code).toBe('invalid_input');
        continue;
      }
      written++;
      const r = parseCommandFile(out);
      if (!r.ok) throw new Error(JSON.stringify(r.problems));
      expect(r.command.task).toBe(input.task.split('\n').map((l) => l.trimEnd()).join('\n').replace(/^\n+|\n+$/g, ''));
      expect(r.command.constraints).toBe(input.constraints?.split('\n').map((l) => l.trimEnd()).join('\n').replace(/^\n+|\n+$/g, ''));
    }
    // Most random texts are writable; the refusals are the ones with a bare "## " line or no task.
    expect(written).toBeGreaterThan(100);
  });
});
