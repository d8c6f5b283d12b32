import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acceptanceCommand, formatProblem, newPlan, parsePlan, readSteps, validatePlan } from '../../../src-main/autopilot/plan';

const FIXTURES = join(__dirname, '../../fixtures/autopilot');
const MALFORMED = join(FIXTURES, 'malformed');

function problems(text: string): string[] {
  return validatePlan(text).map(formatProblem);
}

describe('PLAN.md validation', () => {
  it('accepts the format as the proposal writes it, Chinese text and "// only one" remark included', () => {
    const text = readFileSync(join(FIXTURES, 'valid-seed-format.md'), 'utf8');
    expect(problems(text)).toEqual([]);
    const steps = readSteps(text);
    expect(steps.next).toEqual({ id: '001', text: '添加参数解析  // 只能有一条', line: 10 });
    expect(steps.backlog.map((s) => s.id)).toEqual(['002', '003']);
    expect(steps.done.map((s) => [s.id, s.text])).toEqual([['000', '初始化计划文件']]);
    expect(steps.blocked).toEqual([]);
  });

  it('accepts the example plan of docs/autopilot.md', () => {
    const doc = readFileSync(join(__dirname, '../../../docs/autopilot.md'), 'utf8');
    const example = /```md\n([\s\S]*?)```/.exec(doc)![1]!;
    expect(problems(example)).toEqual([]);
    expect(readSteps(example).blocked.map((s) => s.id)).toEqual(['004']);
  });

  it('accepts a finished plan (Next and Backlog empty) and a plan waiting on a blocked step', () => {
    const finished = newPlan({ goal: 'g', testCmd: 'npm test' });
    expect(problems(finished)).toEqual([]);
    expect(readSteps(finished).next).toBeUndefined();
    const waiting = [
      '# PLAN', '## Goal', '- g', '## Acceptance', '- [ ] TEST_CMD passes: `npm test`', '## Next', '## Backlog',
      '- [ ] (STEP_ID=002) later', '## Done', '## Blocked', '- [ ] (STEP_ID=001) needs a key', '## Notes',
      '- BLOCKED (STEP_ID=001): no key — a human must decide: which account', '',
    ].join('\n');
    expect(problems(waiting)).toEqual([]);
    expect(readSteps(waiting).blocked.map((s) => s.id)).toEqual(['001']);
  });

  it('accepts Chinese section names, other list markers, continuation lines and ids past 999', () => {
    const text = [
      '# 计划', '', '## 目标', '让 CLI 支持 JSON', '', '## 验收', '* [ ] TEST_CMD passes: `node --test`', '',
      '## 下一步（只能一条）', '+ [ ] (STEP_ID=1000) 解析参数', '  - 细节：使用 parseArgs', '', '## 待办', '', '## 已完成',
      '- [X] (STEP_ID=0999) 初始化', '', '## 备注', '',
    ].join('\n');
    expect(problems(text)).toEqual([]);
    const doc = parsePlan(text);
    expect(doc.steps.find((s) => s.section === 'next')).toMatchObject({ id: '1000', line: 9, end: 11 });
  });

  it('reads headings with a byte order mark, up to three spaces of indent or closing #s, and finds the acceptance command', () => {
    const seed = readFileSync(join(FIXTURES, 'valid-seed-format.md'), 'utf8');
    const text = '\uFEFF' + seed.replace('# PLAN\n\n', '').replace('## Done', '   ## Done ##').replace('## Notes', '## Notes #');
    expect(text.startsWith('\uFEFF## Goal')).toBe(true);
    expect(problems(text)).toEqual([]);
    expect(acceptanceCommand(parsePlan(text))).toBe('node --test');
    expect(acceptanceCommand(parsePlan(seed.replace('`node --test`', '`  `')))).toBeUndefined();
    // Four spaces make an indented code block, not a heading.
    expect(problems(seed.replace('## Done', '    ## Done'))).toContain('line 1: missing section "## Done"');
  });

  it('does not count STEP_ID mentions in Notes or unknown sections as steps', () => {
    const text = readFileSync(join(FIXTURES, 'valid-seed-format.md'), 'utf8') + '\n## 背景\n- [ ] (STEP_ID=001) 只是引用\n';
    expect(problems(text)).toEqual([]);
  });

  const files = readdirSync(MALFORMED).filter((f) => f.endsWith('.md')).sort();
  it('has a corpus of at least 30 malformed plans, each with its expected messages', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
  });

  for (const file of files) {
    it(`reports ${file} with the expected "line N: …" messages`, () => {
      const text = readFileSync(join(MALFORMED, file), 'utf8');
      const expected = readFileSync(join(MALFORMED, file.replace(/\.md$/, '.expected')), 'utf8').split('\n').filter((l) => l !== '');
      expect(expected.length).toBeGreaterThan(0);
      expect(problems(text)).toEqual(expected);
    });
  }

  it('numbers lines the same for LF, CRLF and CR files', () => {
    const lf = readFileSync(join(MALFORMED, '16-done-unchecked.md'), 'utf8');
    expect(problems(lf.replace(/\n/g, '\r\n'))).toEqual(problems(lf));
    expect(problems(lf.replace(/\n/g, '\r'))).toEqual(problems(lf));
  });
});
