import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { parseCommandFile } from '../../../src-main/mailbox/command-file';
import { checkMissionUpdate, ensureMission, missionTemplate, readClaudercPrompt } from '../../../src-main/mailbox/mission';
import { extractJudgement, formatDetailedReport, formatReport, reportStatus, type TaskFacts } from '../../../src-main/mailbox/report';
import { taskInstructions, taskPrompt } from '../../../src-main/mailbox/task-prompt';
import { tempDir } from '../../support/temp';

const cmd = (() => {
  const r = parseCommandFile('---\nid: task-1\ncreated_at: 2026-02-22T10:00:00Z\nsession_id: auto\ncommand_type: new\n---\n## 任务描述\nDo the thing\n## 约束条件\nNo network\n');
  if (!r.ok) throw new Error('fixture');
  return r.command;
})();

function facts(over: Partial<TaskFacts> = {}): TaskFacts {
  return {
    command: cmd,
    fileName: 'a.md',
    sessionId: 'ses-1',
    turnCount: 1,
    sessionStatus: 'active',
    workspace: '/w',
    startedAt: new Date('2026-02-22T10:00:00Z'),
    finishedAt: new Date('2026-02-22T10:01:00Z'),
    outcome: 'completed',
    message: null,
    timedOut: false,
    timeoutMs: 600_000,
    answer: 'ok',
    judgement: null,
    judgementProblem: null,
    thinking: 'a ``` fence inside thinking',
    toolCalls: [],
    checks: [],
    usage: { inputTokens: 1, outputTokens: 2 },
    costUsd: 0,
    modelCalls: 1,
    files: [{ path: 'a|b.txt', operation: 'created' }],
    adrs: [],
    commits: [{ hash: 'abc123', subject: 'feat: x' }],
    head: 'abc123',
    gitStatus: '',
    mission: { exists: true, progressUpdated: false, nextStepsUpdated: true, stage: '阶段 1: x', created: false },
    logs: { runtime: '/l/r', debug: '/l/d', monitor: '/l/m' },
    logSummary: '',
    placement: 'host',
    warnings: [],
    ...over,
  };
}

describe('report status comes from facts', () => {
  it('FAILED on timeout or a turn that did not complete, PARTIAL_SUCCESS when the last check or tool call failed, else SUCCESS', () => {
    expect(reportStatus(facts())).toBe('SUCCESS');
    expect(reportStatus(facts({ timedOut: true }))).toBe('FAILED');
    expect(reportStatus(facts({ outcome: 'failed' }))).toBe('FAILED');
    expect(reportStatus(facts({ outcome: 'interrupted' }))).toBe('FAILED');
    expect(reportStatus(facts({ checks: [{ command: 'npm test', passed: false, exitCode: 1 }] }))).toBe('PARTIAL_SUCCESS');
    expect(reportStatus(facts({ checks: [{ command: 'npm test', passed: false, exitCode: 1 }, { command: 'npm test', passed: true, exitCode: 0 }] }))).toBe('SUCCESS');
    expect(reportStatus(facts({ toolCalls: [{ tool: 'bash', input: {}, output: 'x', isError: true }] }))).toBe('PARTIAL_SUCCESS');
    // The agent claiming success changes nothing.
    expect(reportStatus(facts({ outcome: 'failed', judgement: { summary: 'All good, SUCCESS' } }))).toBe('FAILED');
  });
});

describe('report text', () => {
  it('has the front matter keys in order, escapes table cells, fences survive backticks, says when the mission was not updated', () => {
    const text = formatDetailedReport(facts());
    const fm = parse(/^---\n([\s\S]*?)\n---\n/.exec(text)![1]!) as Record<string, unknown>;
    expect(Object.keys(fm)).toEqual(['session_id', 'report_date', 'status', 'tags']);
    expect(fm).toMatchObject({ session_id: 'ses-1', status: 'SUCCESS', tags: ['mailbox', 'new'] });
    expect(text).toContain('| a\\|b.txt | 创建 |');
    expect(text).toContain('- **Git Commit**: abc123 feat: x');
    expect(text).toContain('NOT UPDATED: the agent did not update the progress table (实施进度追踪)');
    expect(text).toContain('````\na ``` fence inside thinking\n````');
    expect(formatReport(facts())).not.toContain('原始执行数据');
    // Tags YAML would read as something else are quoted; the front matter keeps the format's layout.
    const tagged = formatReport(facts({ judgement: { tags: ['true', '2026', 'Rest API', 'python'] } }));
    expect(tagged).toContain('tags: ["true", "2026", rest-api, python, new]');
    expect((parse(/^---\n([\s\S]*?)\n---\n/.exec(tagged)![1]!) as { tags: unknown[] }).tags).toEqual(['true', '2026', 'rest-api', 'python', 'new']);
    expect(tagged.split('\n').slice(0, 6)).toEqual(['---', 'session_id: "ses-1"', 'report_date: "2026-02-22T10:01:00.000Z"', 'status: "SUCCESS"', 'tags: ["true", "2026", rest-api, python, new]', '---']);
  });

  it('takes the judgement from the last json block only when it has the expected shape', () => {
    expect(extractJudgement('no block').problem).toMatch(/no assessment/);
    expect(extractJudgement('```json\n{bad\n```').problem).toMatch(/not valid JSON/);
    expect(extractJudgement('```json\n{"summary": 3}\n```').problem).toMatch(/summary/);
    const j = extractJudgement('Text\n```json\n{"summary":"first"}\n```\nmore\n```json\n{"summary":"second","tags":["a"]}\n```');
    expect(j.judgement?.summary).toBe('second');
    expect(j.answer).toContain('more');
  });
});

describe('mission and behaviour rules', () => {
  it('sees whether the progress table and next steps changed', () => {
    const before = missionTemplate(new Date('2026-02-22T00:00:00Z'), 'zh');
    expect(checkMissionUpdate(before, before)).toMatchObject({ exists: true, progressUpdated: false, nextStepsUpdated: false, stage: '阶段 1: [描述]' });
    const after = before.replace('| [模块名] | 未开始 | 0% | - | - |', '| api | 完成 | 100% | 2026-02-22 | - |').replace('- [ ] 阶段 1: [描述]', '- [x] 阶段 1: API');
    expect(checkMissionUpdate(before, after)).toMatchObject({ progressUpdated: true, nextStepsUpdated: false, stage: '阶段 2: [描述]' });
    expect(checkMissionUpdate(before, null).exists).toBe(false);
  });

  it('the English template (the default) is checked the same way, and a mission is created in the chosen language', () => {
    const before = missionTemplate(new Date('2026-02-22T00:00:00Z'));
    expect(before).toMatch(/^# Agent Mission Control\n/m);
    expect(before).toContain('\n## Progress\n');
    expect(before).toContain('\n## Next Steps\n');
    expect(before).not.toMatch(/[\u4e00-\u9fff]/);
    expect(checkMissionUpdate(before, before)).toMatchObject({ exists: true, progressUpdated: false, nextStepsUpdated: false, stage: 'Stage 1: [description]' });
    const progress = before.replace('| [module] | Not started | 0% | - | - |', '| api | Done | 100% | 2026-02-22 | - |').replace('- [ ] Stage 1: [description]', '- [x] Stage 1: API');
    expect(checkMissionUpdate(before, progress)).toMatchObject({ progressUpdated: true, nextStepsUpdated: false, stage: 'Stage 2: [description]' });
    const next = progress.replace('- [ ] [next task 1]', '- [ ] 写测试 (the user\'s own words)');
    expect(checkMissionUpdate(progress, next)).toMatchObject({ progressUpdated: false, nextStepsUpdated: true });
    // A mission that was written in one language and rewritten in the other still counts as updated.
    expect(checkMissionUpdate(missionTemplate(new Date('2026-02-22T00:00:00Z'), 'zh'), next)).toMatchObject({ progressUpdated: true, nextStepsUpdated: true });

    const en = tempDir('fd-mission-en-');
    const zh = tempDir('fd-mission-zh-');
    try {
      expect(ensureMission(en.path, new Date('2026-02-22T00:00:00Z'))).toBe(true);
      expect(readFileSync(join(en.path, 'AGENT_MISSION.md'), 'utf8')).toContain('## Next Steps');
      expect(ensureMission(zh.path, new Date('2026-02-22T00:00:00Z'), 'zh')).toBe(true);
      expect(readFileSync(join(zh.path, 'AGENT_MISSION.md'), 'utf8')).toContain('## 下一步指令 (Next Steps)');
      expect(ensureMission(zh.path, new Date('2026-02-22T00:00:00Z'), 'en')).toBe(false);
    } finally {
      en.cleanup();
      zh.cleanup();
    }
  });

  it('reads .clauderc systemPrompt, including the format’s own multi-line string, and puts it, the rules and the context in the instructions, the task in the message', () => {
    const d = tempDir();
    try {
      mkdirSync(d.path, { recursive: true });
      writeFileSync(join(d.path, '.clauderc'), '{\n  "systemPrompt": "你是维护者。\n1. 文档先于代码"\n}\n');
      const r = readClaudercPrompt(d.path);
      expect(r).toEqual({ prompt: '你是维护者。\n1. 文档先于代码', warning: null });
      writeFileSync(join(d.path, '.clauderc'), '{ nope');
      expect(readClaudercPrompt(d.path).warning).toMatch(/not valid JSON/);
      const i = taskInstructions({ context: '# Context\n\nCTX', clauderc: 'CUSTOM RULE', missionCreated: true });
      for (const part of ['文档先于代码', 'Conventional Commits', 'CUSTOM RULE', 'CTX', 'AGENT_MISSION.md', 'just created']) expect(i).toContain(part);
      expect(i.indexOf('Conventional Commits')).toBeLessThan(i.indexOf('CUSTOM RULE'));
      expect(i.indexOf('CUSTOM RULE')).toBeLessThan(i.indexOf('CTX'));
      expect(i).not.toContain('Do the thing');
      const p = taskPrompt(cmd);
      for (const part of ['## 任务描述', 'Do the thing', '## 约束条件', 'No network', '```json']) expect(p).toContain(part);
      for (const part of ['Conventional Commits', 'CUSTOM RULE', 'CTX', '行为准则']) expect(p).not.toContain(part);
    } finally {
      d.cleanup();
    }
  });
});

describe('decisions in the report', () => {
  it('takes the ADRs the task wrote as decisions, even when its summary names none', () => {
    const adr = { path: 'docs/decisions/ADR-0001-use-sqlite.md', number: 1, title: 'Use SQLite', decision: 'SQLite in WAL mode.', context: 'One writer, many readers.', consequences: 'No server to run.' };
    const text = formatReport(facts({ adrs: [adr] }));
    expect(text).toContain('- **决策内容**: [ADR-0001: Use SQLite](docs/decisions/ADR-0001-use-sqlite.md) — SQLite in WAL mode.\n- **理由**: One writer, many readers.\n- **影响**: No server to run.');
    expect(text).not.toContain('- **决策内容**: 无');
    // Both the summary's decisions and the ADRs are listed.
    const both = formatReport(facts({ adrs: [adr], judgement: { decisions: [{ decision: 'plain script' }] } }));
    expect(both).toContain('- **决策内容**: plain script');
    expect(both).toContain('[ADR-0001: Use SQLite]');
    expect(formatReport(facts())).toContain('- **决策内容**: 无');
  });
});

