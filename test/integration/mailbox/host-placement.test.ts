/**
 * The mailbox end to end on the host placement: real services, the real SessionDriver and
 * agent loop, the scripted model server, command files dropped into a seed-style root.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { mailboxLayout } from '../../../src-main/mailbox/layout';
import { missionTemplate } from '../../../src-main/mailbox/mission';
import { parseSessionFile } from '../../../src-main/mailbox/session-file';
import type { Script } from '../../fixtures/model-server/index.js';
import { commandText, dropCommand, ls, mailboxHarness, readReport, until, type MailboxHarness } from './support';

function judgement(summary: string, extra: Record<string, unknown> = {}): string {
  return `Done.\n\n\`\`\`json\n${JSON.stringify({ summary, features: ['hello.py prints Hello World'], verification: ['ran python3 hello.py'], decisions: [{ decision: 'plain script', reason: 'the task is tiny', impact: 'none' }], pitfalls: [{ title: 'none really', problem: 'no problem', failed: '-', solution: '-', risk: 'low' }], progress: 'hello 100%', next_steps: ['add tests'], tags: ['python', 'hello'], ...extra })}\n\`\`\``;
}

function updatedMission(): string {
  return missionTemplate(new Date('2026-02-22T00:00:00Z'), 'zh')
    .replace('| [模块名] | 未开始 | 0% | - | - |', '| hello | 完成 | 100% | 2026-02-22 | hello.py |')
    .replace('- [ ] [待完成任务 1]', '- [ ] 添加单元测试');
}

const ADR = '# ADR-0001: Use pytest\n\n## 上下文\n\nThe project is Python.\n\n## 失败的尝试\n\n—\n\n## 最终决策\n\nTests run with pytest.\n\n## 后果\n\nA dev dependency.\n';

const SCRIPT: Script = [
  { match: { userPattern: 'TASK-HELLO' }, blocks: [{ type: 'thinking', thinking: 'I will write hello.py first.' }, { type: 'tool_use', name: 'write', input: { path: 'hello.py', content: 'print("Hello World")\n' } }] },
  { match: { userPattern: 'Created hello.py' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'AGENT_MISSION.md', content: updatedMission() } }] },
  { match: { userPattern: 'Overwrote AGENT_MISSION.md' }, blocks: [{ type: 'text', text: judgement('Wrote hello.py.') }] },
  { match: { userPattern: 'TASK-TESTS' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'docs/decisions/ADR-0001-use-pytest.md', content: ADR } }] },
  { match: { userPattern: 'Created docs/decisions/ADR-0001-use-pytest.md' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'test_hello.py', content: 'def test(): pass\n' } }] },
  // Its summary names no decision: the ADR it wrote is the decision the report shows.
  { match: { userPattern: 'Created test_hello.py' }, blocks: [{ type: 'text', text: judgement('Added a test.', { decisions: [] }) }] },
];

describe('mailbox on the host placement', () => {
  let h: MailboxHarness;
  afterEach(async () => {
    await h?.cleanup();
  });

  it('runs new, continue and end command files: the agent writes files, sessions, logs and both reports appear, files move to processed/', async () => {
    h = await mailboxHarness(SCRIPT);
    const p = h.processor();
    p.start();
    const root = h.root;

    dropCommand(root, 'hello.md', commandText({ id: 'task-hello', task: 'TASK-HELLO: 创建一个 hello.py 文件，打印 Hello World' }));
    await until(() => existsSync(join(root, 'commands/processed/hello.md')), 'hello.md in processed/');
    expect(ls(join(root, 'commands/pending'))).toEqual([]);
    expect(readFileSync(join(root, 'workspace/hello.py'), 'utf8')).toBe('print("Hello World")\n');

    const sessions = ls(join(root, 'sessions'));
    expect(sessions).toHaveLength(1);
    const session = parseSessionFile(readFileSync(join(root, 'sessions', sessions[0]!), 'utf8'), sessions[0]!);
    expect(session.turn_count).toBe(1);
    expect(session.status).toBe('active');
    expect(session.workspace).toBe(join(root, 'workspace'));
    expect(Object.keys(JSON.parse(readFileSync(join(root, 'sessions', sessions[0]!), 'utf8')))).toEqual(['session_id', 'created_at', 'last_activity', 'turn_count', 'status', 'workspace']);

    for (const log of ['claude_runtime.log', 'debug-task-hello.log', 'monitor.log']) expect(existsSync(join(root, 'logs', log)), log).toBe(true);
    expect(readFileSync(join(root, 'logs/claude_runtime.log'), 'utf8')).toContain('[task-hello] → write');
    expect(readFileSync(join(root, 'logs/monitor.log'), 'utf8')).toContain('task-hello: done (SUCCESS)');

    const brief = readReport(join(root, 'reports/pending/report-task-hello.md'), false);
    const detailed = readReport(join(root, 'reports/pending/detailed-report-task-hello.md'), true);
    expect(brief.fm.session_id).toBe(session.session_id);
    expect(brief.fm.status).toBe('SUCCESS');
    expect(brief.fm.tags).toEqual(['python', 'hello', 'new']);
    expect(brief.text).toContain('| hello.py | 创建 | by write |');
    expect(brief.text).toContain('| AGENT_MISSION.md | 修改 | by write |');
    expect(brief.text).toContain('> Wrote hello.py.');
    expect(brief.text).toContain('- **决策内容**: plain script');
    expect(brief.text).toContain('### 问题 1: none really');
    expect(brief.text).toContain('progress and next steps were updated');
    expect(brief.text).toContain('- **原始指令**: TASK-HELLO: 创建一个 hello.py 文件，打印 Hello World');
    expect(detailed.text).toContain('- 当前轮次: 1');
    expect(detailed.text).toContain('- 等待继续: 是');
    expect(detailed.text).toContain('I will write hello.py first.');
    const toolJson = /### 工具调用记录\n(`{3,})json\n([\s\S]*?)\n\1/.exec(detailed.text);
    const calls = JSON.parse(toolJson![2]!) as { tool: string; input: { path: string } }[];
    expect(calls.map((c) => [c.tool, c.input.path])).toEqual([['write', 'hello.py'], ['write', 'AGENT_MISSION.md']]);
    expect(detailed.text).toMatch(/- 模型请求: 3/);
    // The behaviour rules are the system prompt of every request of the turn; the message is the task.
    const helloRequests = h.server.mainRequests();
    for (const r of helloRequests) {
      expect(systemOf(r.body)).toContain('Conventional Commits');
      expect(messagesOf(r.body)).not.toContain('Conventional Commits');
    }
    expect(helloRequests[0]!.userText).toMatch(/^# 任务 task-hello \(new\)\n\n## 任务描述\n\nTASK-HELLO/);

    // continue: the same session, turn 2; the mission is not updated this time and the report says so.
    // A context file for this task only: the continued session's instructions are renewed with it.
    const taskContext = mailboxLayout(root).taskContext('task-tests');
    mkdirSync(taskContext, { recursive: true });
    writeFileSync(join(taskContext, 'style.md'), '---\ntitle: Test style\n---\nTASK-CONTEXT-MARKER: use pytest.\n');
    dropCommand(root, 'tests.md', commandText({ id: 'task-tests', type: 'continue', session: session.session_id, task: 'TASK-TESTS: 添加单元测试' }));
    await until(() => existsSync(join(root, 'commands/processed/tests.md')), 'tests.md in processed/');
    const s2 = parseSessionFile(readFileSync(join(root, 'sessions', sessions[0]!), 'utf8'), 'x');
    expect(s2.turn_count).toBe(2);
    expect(ls(join(root, 'sessions'))).toHaveLength(1);
    const r2 = readReport(join(root, 'reports/pending/report-task-tests.md'), false);
    expect(r2.fm.session_id).toBe(session.session_id);
    expect(r2.text).toContain('NOT UPDATED');
    expect(r2.text).toContain('| test_hello.py | 创建 | by write |');
    expect(r2.text).toContain('- **决策内容**: [ADR-0001: Use pytest](docs/decisions/ADR-0001-use-pytest.md) — Tests run with pytest.\n- **理由**: The project is Python.\n- **影响**: A dev dependency.');
    expect(r2.text).not.toContain('- **决策内容**: 无');
    // The continued turn is in the same agent session (its transcript holds both tasks).
    expect(h.app.agents.getSession(session.session_id).turnCount).toBe(2);
    const testsRequest = h.server.mainRequests().find((r) => r.userText?.includes('TASK-TESTS'))!;
    expect(systemOf(testsRequest.body)).toContain('TASK-CONTEXT-MARKER');
    expect(messagesOf(testsRequest.body)).not.toContain('TASK-CONTEXT-MARKER');
    expect(systemOf(helloRequests[0]!.body)).not.toContain('TASK-CONTEXT-MARKER');

    // end: status ended; a later continue is rejected.
    dropCommand(root, 'end.md', commandText({ id: 'task-end', type: 'end', session: session.session_id, task: '结束会话' }));
    await until(() => existsSync(join(root, 'commands/processed/end.md')), 'end.md in processed/');
    const s3 = parseSessionFile(readFileSync(join(root, 'sessions', sessions[0]!), 'utf8'), 'x');
    expect(s3.status).toBe('ended');
    expect(s3.turn_count).toBe(2);
    const r3 = readReport(join(root, 'reports/pending/detailed-report-task-end.md'), true);
    expect(r3.text).toContain('- 等待继续: 否');

    dropCommand(root, 'late.md', commandText({ id: 'task-late', type: 'continue', session: session.session_id, task: 'more' }));
    await until(() => existsSync(join(root, 'commands/rejected/late.md.error.md')), 'late.md rejected');
    expect(readFileSync(join(root, 'commands/rejected/late.md.error.md'), 'utf8')).toContain('has ended');
    expect(h.server.pendingTurns()).toBe(0);
  }, 120_000);

  it('runs two tasks at once, each in its own session', async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'TASK-A' }, delayMs: 150, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'a.txt', content: 'a' } }] },
      { match: { userPattern: 'TASK-B' }, delayMs: 150, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'b.txt', content: 'b' } }] },
      { match: { userPattern: 'Created a.txt' }, blocks: [{ type: 'text', text: judgement('A done') }] },
      { match: { userPattern: 'Created b.txt' }, blocks: [{ type: 'text', text: judgement('B done') }] },
    ]);
    const p = h.processor();
    const root = h.root;
    let both = false;
    let running: string[] = [];
    const seen = setInterval(() => {
      running = p.running().map((t) => t.id);
      if (running.length === 2) both = true;
    }, 5);
    try {
      dropCommand(root, 'a.md', commandText({ id: 'task-a', task: 'TASK-A write a.txt' }));
      dropCommand(root, 'b.md', commandText({ id: 'task-b', task: 'TASK-B write b.txt' }));
      p.start();
      await until(() => existsSync(join(root, 'commands/processed/a.md')) && existsSync(join(root, 'commands/processed/b.md')), 'both processed');
    } finally {
      clearInterval(seen);
    }
    expect(both).toBe(true);
    const a = readReport(join(root, 'reports/pending/report-task-a.md'), false);
    const b = readReport(join(root, 'reports/pending/report-task-b.md'), false);
    expect(a.fm.session_id).not.toBe(b.fm.session_id);
    expect(a.text).toContain('| a.txt | 创建 |');
    expect(a.text).not.toContain('| b.txt |');
    expect(b.text).toContain('| b.txt | 创建 |');
    expect(ls(join(root, 'sessions'))).toHaveLength(2);
  }, 120_000);

  it('after a restart in the middle of a task nothing runs twice: the interrupted task is reported, the waiting one runs once', async () => {
    h = await mailboxHarness([
      // The first task's model answer stalls long enough for the restart to happen during it.
      { match: { userPattern: 'TASK-SLOW' }, fault: { kind: 'stall', ms: 6_000 }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'slow.txt', content: 'slow' } }] },
      { match: { userPattern: 'TASK-DONE-BEFORE' }, blocks: [{ type: 'text', text: judgement('quick') }] },
      { match: { userPattern: 'TASK-AFTER' }, blocks: [{ type: 'text', text: judgement('after restart') }] },
    ]);
    const root = h.root;
    const p1 = h.processor();
    p1.start();
    dropCommand(root, 'before.md', commandText({ id: 'task-before', task: 'TASK-DONE-BEFORE' }));
    await until(() => existsSync(join(root, 'commands/processed/before.md')), 'before.md processed');
    dropCommand(root, 'slow.md', commandText({ id: 'task-slow', task: 'TASK-SLOW' }));
    await until(() => h.server.mainRequests().some((r) => r.userText?.includes('TASK-SLOW')), 'the slow task reached the model');
    // Flightdeck stops mid-task (the processor, then the whole app).
    await p1.dispose();
    await h.restartApp();
    expect(existsSync(join(root, 'commands/pending/slow.md'))).toBe(true);
    dropCommand(root, 'after.md', commandText({ id: 'task-after', task: 'TASK-AFTER' }));

    const p2 = h.processor();
    p2.start();
    await until(() => existsSync(join(root, 'commands/processed/slow.md')) && existsSync(join(root, 'commands/processed/after.md')), 'slow.md and after.md processed');
    // A few more polls: nothing else happens.
    await new Promise((r) => setTimeout(r, 500));
    const slow = readReport(join(root, 'reports/pending/detailed-report-task-slow.md'), true);
    expect(slow.fm.status).toBe('FAILED');
    expect(slow.text).toContain('was not run again');
    const mains = h.server.mainRequests();
    expect(mains.filter((r) => r.userText?.includes('TASK-SLOW'))).toHaveLength(1);
    expect(mains.filter((r) => r.userText?.includes('TASK-DONE-BEFORE'))).toHaveLength(1);
    expect(mains.filter((r) => r.userText?.includes('TASK-AFTER'))).toHaveLength(1);
    expect(existsSync(join(root, 'workspace/slow.txt'))).toBe(false);
    expect(readReport(join(root, 'reports/pending/report-task-after.md'), false).fm.status).toBe('SUCCESS');
    expect(ls(join(root, 'commands/processed'))).toEqual(['after.md', 'before.md', 'slow.md']);
    expect(readFileSync(join(root, 'logs/monitor.log'), 'utf8')).toContain('task-slow: found interrupted');
  }, 120_000);

  it('a continue dropped while its session\'s new task still runs waits for it, then runs as turn 2', async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'TASK-FIRST' }, delayMs: 300, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'first.txt', content: '1' } }] },
      { match: { userPattern: 'Created first.txt' }, delayMs: 300, blocks: [{ type: 'text', text: 'first done' }] },
      { match: { userPattern: 'TASK-SECOND' }, blocks: [{ type: 'text', text: 'second done' }] },
    ]);
    const p = h.processor();
    const root = h.root;
    p.start();
    dropCommand(root, 'first.md', commandText({ id: 'task-first', task: 'TASK-FIRST' }));
    const sessionFile = await until(() => ls(join(root, 'sessions'))[0], 'the session file of the running task');
    const sessionId = sessionFile.replace(/\.json$/, '');
    expect(p.running().map((t) => t.id)).toEqual(['task-first']);
    dropCommand(root, 'second.md', commandText({ id: 'task-second', type: 'continue', session: sessionId, task: 'TASK-SECOND' }));
    await until(() => existsSync(join(root, 'commands/processed/second.md')), 'second.md processed');
    expect(existsSync(join(root, 'commands/processed/first.md'))).toBe(true);
    expect(readReport(join(root, 'reports/pending/report-task-second.md'), false).fm.status).toBe('SUCCESS');
    expect(parseSessionFile(readFileSync(join(root, 'sessions', sessionFile), 'utf8'), 'x').turn_count).toBe(2);
    // The second turn started after the first ended: its request came after the first's last one.
    const mains = h.server.mainRequests();
    expect(mains.findIndex((r) => r.userText?.includes('TASK-SECOND'))).toBeGreaterThan(mains.findIndex((r) => r.userText?.includes('Created first.txt')));
  }, 120_000);

  it('stops a task at its time limit and reports it FAILED', async () => {
    h = await mailboxHarness([{ match: { userPattern: 'TASK-SLOW-MODEL' }, fault: { kind: 'stall', ms: 8_000 }, blocks: [{ type: 'text', text: 'too late' }] }]);
    const p = h.processor();
    const root = h.root;
    p.start();
    dropCommand(root, 'slow.md', commandText({ id: 'task-timeout', task: 'TASK-SLOW-MODEL', extra: 'timeout: 2s\n' }));
    await until(() => existsSync(join(root, 'commands/processed/slow.md')), 'slow.md processed');
    const r = readReport(join(root, 'reports/pending/detailed-report-task-timeout.md'), true);
    expect(r.fm.status).toBe('FAILED');
    expect(r.text).toContain('the task was stopped after 2 s (its time limit)');
    expect(r.text).toContain('- 结果: timeout\n');
    expect(readFileSync(join(root, 'logs/monitor.log'), 'utf8')).toContain('task-timeout: timed out after 2 s');
    // The session took the turn and can be continued.
    expect(parseSessionFile(readFileSync(join(root, 'sessions', `${r.fm.session_id}.json`), 'utf8'), 'x')).toMatchObject({ turn_count: 1, status: 'active' });
  }, 60_000);
});

/** A recorded request's system prompt, as text. */
function systemOf(body: unknown): string {
  return JSON.stringify((body as { system?: unknown }).system ?? '');
}

/** A recorded request's chat messages, as text. */
function messagesOf(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown }).messages ?? []);
}
