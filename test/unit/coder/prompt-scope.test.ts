import { describe, expect, it } from 'vitest';
import { renderCoderPrompt, renderContextPack, renderTask } from '../../../src-main/coder/core/prompt';
import { checkScope, describeScope, itemGlobs, parseContract } from '../../../src-main/coder/core/scope';

describe('prompt template (seed 000)', () => {
  it('puts the constraint sections that exist before the task, and closes with the scope line', () => {
    const p = renderCoderPrompt('Add a parser.', { contract: 'Only touch src/parser.', guardrails: null, codex: 'Prefer small functions.' });
    expect(p).toBe(
      [
        '请执行以下代码任务：',
        '【Implementation Contract】（如存在，必须优先遵守）\nOnly touch src/parser.',
        '【Engineering Codex】（工程默认判断）\nPrefer small functions.',
        'Add a parser.',
        '请严格按照上述范围修改代码，不得扩展 Scope 或引入未说明的行为。完成后请说明改动内容。',
      ].join('\n\n') + '\n',
    );
    expect(p).not.toContain('Implementer Guardrails');
  });

  it('renders a structured task in the template fields', () => {
    const t = renderTask({ type: '修复 Bug', targetFiles: ['src/a.ts'], requirements: ['fix the off-by-one', 'keep the API'], constraints: ['no new deps'], acceptance: ['npm test passes'] });
    expect(t).toBe(
      '**任务类型**：修复 Bug\n**目标文件**：src/a.ts\n\n**具体要求**：\n1. fix the off-by-one\n2. keep the API\n\n**约束条件**：\n- no new deps\n\n**验收标准**：\n- npm test passes',
    );
  });

  it('builds the minimal context pack for a replaced session', () => {
    const p = renderContextPack({ goal: 'Ship the parser', contract: 'C', scope: 'src/**', assumptions: 'UTF-8 only', acceptance: 'tests pass' }, 'old-id', 'Continue with step 2.');
    expect(p).toContain('old-id');
    for (const part of ['Ship the parser', 'C', 'src/**', 'UTF-8 only', 'tests pass']) expect(p).toContain(part);
    expect(p.endsWith('---\n\nContinue with step 2.')).toBe(true);
  });
});

const CONTRACT = `# Contract: parser
## Goal
Parse the config file.

## Allowed paths
- \`src/parser/**\`
- test/parser/ (the tests)
- the docs, if needed

### Out of scope
* \`src/parser/legacy/**\` and \`package.json\`

## Assumptions
Input is UTF-8.

## Acceptance criteria
- npm test passes

## Notes
\`\`\`md
## Out of scope
- should/not/count/**
\`\`\`
`;

describe('contract scope', () => {
  it('reads the scope, goal, assumptions and acceptance sections', () => {
    const c = parseContract(CONTRACT);
    expect(c.scope).toEqual({ allowed: ['src/parser/**', 'test/parser/**'], forbidden: ['src/parser/legacy/**', 'package.json'] });
    expect(c.goal).toBe('Parse the config file.');
    expect(c.assumptions).toBe('Input is UTF-8.');
    expect(c.acceptance).toBe('- npm test passes');
    expect(describeScope(c.scope)).toContain('src/parser/**');
  });

  it('takes globs from back quotes or a path-like first word only', () => {
    expect(itemGlobs('`a/**` and `b.ts`')).toEqual(['a/**', 'b.ts']);
    expect(itemGlobs('src/x.ts — the entry point')).toEqual(['src/x.ts']);
    expect(itemGlobs('anything the parser needs')).toEqual([]);
  });

  it('accepts Chinese headings', () => {
    const c = parseContract('## 允许修改\n- `src/**`\n## 禁止修改\n- `src/vendor/**`\n');
    expect(c.scope).toEqual({ allowed: ['src/**'], forbidden: ['src/vendor/**'] });
  });

  it('flags changes out of scope, outside the allowed paths and outside cd', () => {
    const { scope } = parseContract(CONTRACT);
    expect(checkScope(['src/parser/index.ts', 'test/parser/a.test.ts', 'src/parser/.hidden'], scope)).toEqual([]);
    expect(checkScope(['src/parser/legacy/old.ts', 'package.json', 'src/other.ts', '../outside.txt'], scope)).toEqual([
      { path: 'src/parser/legacy/old.ts', reason: 'out of scope (src/parser/legacy/**)' },
      { path: 'package.json', reason: 'out of scope (package.json)' },
      { path: 'src/other.ts', reason: 'not in the allowed paths' },
      { path: '../outside.txt', reason: 'outside cd' },
    ]);
  });

  it('declares nothing when the contract has no scope sections', () => {
    const c = parseContract('# Contract\nJust prose.\n');
    expect(checkScope(['anything.ts'], c.scope)).toEqual([]);
    expect(describeScope(c.scope)).toBeNull();
  });

  it('with only an out-of-scope list, everything else is allowed', () => {
    const c = parseContract('## Out of scope\n- `secrets/`\n');
    expect(checkScope(['src/a.ts'], c.scope)).toEqual([]);
    expect(checkScope(['secrets/key.pem'], c.scope)).toHaveLength(1);
  });
});
