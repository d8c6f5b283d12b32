import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { addNote, blockNext, completeNext, newPlan, readSteps, unblock, validatePlan } from '../../../src-main/autopilot/plan';

const SEED = readFileSync(join(__dirname, '../../fixtures/autopilot/valid-seed-format.md'), 'utf8');

/** A plan with everything the runner does not understand: prose, an unknown section, sub-lines, odd spacing. */
const RICH = [
  '# PLAN   ',
  '<!-- 由 Flightdeck 维护 -->',
  '',
  '## Goal',
  '- 让 CLI 支持 --json',
  '',
  '## Acceptance',
  '- [ ] TEST_CMD passes: `node --test`',
  '- [ ] README 提到 --json',
  '',
  '## Next (exactly ONE item)',
  '> 只能有一条',
  '- [ ] (STEP_ID=001) 添加参数解析',
  '    - 细节：parseArgs, strict',
  '',
  '## 背景',
  '一些说明，\t带制表符。',
  '',
  '## Backlog',
  '- [ ] (STEP_ID=002) 输出 JSON',
  '  - 子项 A',
  '- [ ] (STEP_ID=003) 文档',
  '',
  '',
  '## Done',
  '- [x] (STEP_ID=000) 初始化计划文件',
  '',
  '## Notes',
  '- 最近失败原因',
].join('\n');

function expectAppError(fn: () => unknown, code: string, message: RegExp) {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(AppError);
    expect((e as AppError).code).toBe(code);
    expect((e as AppError).message).toMatch(message);
    return;
  }
  throw new Error('expected an AppError');
}

describe('completeNext', () => {
  it('moves Next to the end of Done, checked, and promotes the first Backlog step; nothing else changes', () => {
    const r = completeNext(SEED);
    expect(r.completed).toMatchObject({ id: '001' });
    expect(r.next).toMatchObject({ id: '002', text: '输出 JSON' });
    expect(r.text).toBe(
      SEED.replace('- [ ] (STEP_ID=001) 添加参数解析  // 只能有一条\n', '- [ ] (STEP_ID=002) 输出 JSON\n')
        .replace('## Backlog\n- [ ] (STEP_ID=002) 输出 JSON\n', '## Backlog\n')
        .replace('- [x] (STEP_ID=000) 初始化计划文件\n', '- [x] (STEP_ID=000) 初始化计划文件\n- [x] (STEP_ID=001) 添加参数解析  // 只能有一条\n'),
    );
    expect(validatePlan(r.text)).toEqual([]);
  });

  it('carries continuation lines along and keeps prose, unknown sections, CRLF and the missing final newline', () => {
    const crlf = RICH.replace(/\n/g, '\r\n');
    const r = completeNext(crlf);
    const expected = [
      '# PLAN   ',
      '<!-- 由 Flightdeck 维护 -->',
      '',
      '## Goal',
      '- 让 CLI 支持 --json',
      '',
      '## Acceptance',
      '- [ ] TEST_CMD passes: `node --test`',
      '- [ ] README 提到 --json',
      '',
      '## Next (exactly ONE item)',
      '> 只能有一条',
      '- [ ] (STEP_ID=002) 输出 JSON',
      '  - 子项 A',
      '',
      '## 背景',
      '一些说明，\t带制表符。',
      '',
      '## Backlog',
      '- [ ] (STEP_ID=003) 文档',
      '',
      '',
      '## Done',
      '- [x] (STEP_ID=000) 初始化计划文件',
      '- [x] (STEP_ID=001) 添加参数解析',
      '    - 细节：parseArgs, strict',
      '',
      '## Notes',
      '- 最近失败原因',
    ].join('\r\n');
    expect(r.text).toBe(expected);
    expect(r.text.endsWith('最近失败原因')).toBe(true);
  });

  it('leaves Next empty after the last step, and the finished plan still validates', () => {
    let text = SEED;
    for (const id of ['001', '002', '003']) {
      const r = completeNext(text);
      expect(r.completed.id).toBe(id);
      text = r.text;
    }
    const steps = readSteps(text);
    expect(steps.next).toBeUndefined();
    expect(steps.backlog).toEqual([]);
    expect(steps.done.map((s) => s.id)).toEqual(['000', '001', '002', '003']);
    expect(validatePlan(text)).toEqual([]);
    expectAppError(() => completeNext(text), 'conflict', /no Next step/);
  });

  it('refuses a malformed plan and says what is wrong, line by line', () => {
    const bad = SEED.replace('(STEP_ID=003)', '(STEP_ID=002)');
    expectAppError(() => completeNext(bad), 'invalid_input', /line 14: duplicate STEP_ID=002/);
  });
});

describe('blockNext and unblock', () => {
  it('moves Next to a new Blocked section before Notes and writes why and the decision needed into Notes', () => {
    const r = blockNext(SEED, { reason: 'node --test failed 4 times:\nTypeError', decision: '是否允许新增依赖？' });
    expect(r.blocked.id).toBe('001');
    expect(r.text).toBe(
      SEED.replace('- [ ] (STEP_ID=001) 添加参数解析  // 只能有一条\n', '').replace(
        '## Notes\n- 最近失败原因/重要约束/不确定性\n',
        '## Blocked\n- [ ] (STEP_ID=001) 添加参数解析  // 只能有一条\n\n## Notes\n- 最近失败原因/重要约束/不确定性\n' +
          '- BLOCKED (STEP_ID=001): node --test failed 4 times: TypeError — a human must decide: 是否允许新增依赖？\n',
      ),
    );
    expect(validatePlan(r.text)).toEqual([]);
    expect(readSteps(r.text)).toMatchObject({ next: undefined, blocked: [{ id: '001' }] });
  });

  it('appends to an existing Blocked section, and unblock brings the step back with the answer noted', () => {
    const once = blockNext(SEED, { reason: 'r1', decision: 'd1' }).text;
    // A human moved 002 to Next meanwhile; it blocks too.
    const moved = once.replace('## Backlog\n- [ ] (STEP_ID=002) 输出 JSON\n', '## Backlog\n').replace('## Next (exactly ONE item)\n', '## Next (exactly ONE item)\n- [ ] (STEP_ID=002) 输出 JSON\n');
    const twice = blockNext(moved, { reason: 'r2', decision: 'd2' }).text;
    expect(readSteps(twice).blocked.map((s) => s.id)).toEqual(['001', '002']);
    expect(twice.match(/^## Blocked$/gm)).toHaveLength(1);

    const back = unblock(twice, '001', '可以，用 zod');
    expect(back.step.id).toBe('001');
    const steps = readSteps(back.text);
    expect(steps.next?.id).toBe('001');
    expect(steps.blocked.map((s) => s.id)).toEqual(['002']);
    expect(back.text).toContain('- ANSWER (STEP_ID=001): 可以，用 zod\n');
    expect(validatePlan(back.text)).toEqual([]);
    expectAppError(() => unblock(back.text, '002', 'x'), 'conflict', /Next already holds STEP_ID=001/);
    expectAppError(() => unblock(back.text, '042', 'x'), 'not_found', /no blocked step STEP_ID=042/);
  });

  it('keeps a plan without a final newline without one', () => {
    const text = SEED.replace(/\n$/, '');
    const r = blockNext(text, { reason: 'r', decision: 'd' });
    expect(r.text.endsWith('— a human must decide: d')).toBe(true);
    expect(r.text.split('\n')).toHaveLength(text.split('\n').length + 3);
  });
});

describe('addNote and newPlan', () => {
  it('adds a one-line note at the end of Notes, before the blank lines and sections after it', () => {
    const text = SEED + '\n## 附录\n保留\n';
    const out = addNote(text, '第 3 轮：\n  测试超时');
    expect(out).toBe(SEED.replace('- 最近失败原因/重要约束/不确定性\n', '- 最近失败原因/重要约束/不确定性\n- 第 3 轮： 测试超时\n') + '\n## 附录\n保留\n');
  });

  it('writes a new plan in the format, valid, first step in Next and the rest in Backlog', () => {
    const text = newPlan({ goal: 'Add --json', testCmd: 'node --test', steps: ['parse flag', 'print JSON', 'docs'], eol: '\r\n' });
    expect(validatePlan(text)).toEqual([]);
    expect(text).toContain('## Acceptance\r\n- [ ] TEST_CMD passes: `node --test`\r\n');
    expect(text).not.toMatch(/[^\r]\n/);
    const steps = readSteps(text);
    expect(steps.next).toMatchObject({ id: '001', text: 'parse flag' });
    expect(steps.backlog.map((s) => [s.id, s.text])).toEqual([
      ['002', 'print JSON'],
      ['003', 'docs'],
    ]);
    // As the seed's format has it, Done starts with the bootstrap as step 000.
    expect(text).toContain('## Done\r\n- [x] (STEP_ID=000) Initialize the plan file\r\n');
    expect(steps.done.map((s) => s.id)).toEqual(['000']);
    // A plan with no steps yet is valid too, and its first step still gets 001.
    expect(validatePlan(newPlan({ goal: 'g', testCmd: 'node --test' }))).toEqual([]);
    expectAppError(() => newPlan({ goal: 'g', testCmd: 'echo `x`' }), 'invalid_input', /backtick/);
    expectAppError(() => newPlan({ goal: 'g', testCmd: '  ' }), 'invalid_input', /empty/);
  });
});
