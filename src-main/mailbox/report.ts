/**
 * The reports of a mailbox task: `report-<id>.md` (front matter and sections 1–6) and
 * `detailed-report-<id>.md` (the same, then the raw execution data), in the structure of the
 * mailbox format. Pure: facts in, Markdown out.
 *
 * Everything factual — files changed, the commit, statistics, tool calls, the status — comes
 * from the run's events and git. The agent is asked only for what needs judgement (a summary,
 * decisions, pitfalls, advice for the next agent), in a JSON block at the end of its answer
 * (`judgementRequest`); without one the report says so rather than inventing it.
 */
import { z } from 'zod';
import type { AdrWritten } from './adr';
import type { CommandFile } from './command-file';
import type { MissionCheck } from './mission';

export const REPORT_STATUSES = ['SUCCESS', 'FAILED', 'PARTIAL_SUCCESS'] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

/** Tool inputs and outputs are cut here in the raw data: the report is read by people and agents, the full record is in the transcript. */
const MAX_TOOL_TEXT = 2000;
/** Lines of the runtime log quoted in the summary. */
export const LOG_SUMMARY_LINES = 40;
/** Most tags kept from the agent's list. */
const MAX_TAGS = 12;

const Text = z.string().max(20_000);
export const JudgementSchema = z.object({
  summary: Text.optional(),
  features: z.array(Text).max(50).optional(),
  verification: z.array(Text).max(50).optional(),
  decisions: z.array(z.object({ decision: Text, reason: Text.optional(), impact: Text.optional() })).max(20).optional(),
  pitfalls: z.array(z.object({ title: Text, problem: Text.optional(), failed: Text.optional(), solution: Text.optional(), risk: Text.optional() })).max(20).optional(),
  progress: Text.optional(),
  next_steps: z.array(Text).max(50).optional(),
  tags: z.array(z.string().max(40)).max(50).optional(),
});
export type Judgement = z.infer<typeof JudgementSchema>;

/** What the agent is asked to end its answer with (part of every task prompt). */
export function judgementRequest(): string {
  return [
    'When you have finished, end your final answer with one fenced ```json block (nothing after it) holding your own assessment for the task report:',
    '{"summary": "what you did, in two or three sentences", "features": ["what now works"], "verification": ["what you ran or checked and its result"],',
    ' "decisions": [{"decision": "…", "reason": "…", "impact": "…"}], "pitfalls": [{"title": "…", "problem": "…", "failed": "what did not work", "solution": "…", "risk": "…"}],',
    ' "progress": "what progress you recorded in AGENT_MISSION.md", "next_steps": ["a concrete task for the next agent"], "tags": ["topic", "words"]}',
    'Leave a list empty when there is nothing to say. Files changed, commits, statistics and the status are recorded by Flightdeck; do not list them.',
  ].join('\n');
}

/** The last ```json block of the agent's answer, if it is a judgement; the answer without it. */
export function extractJudgement(text: string): { judgement: Judgement | null; answer: string; problem: string | null } {
  const re = /```json[ \t]*\r?\n([\s\S]*?)\r?\n```/g;
  let last: RegExpExecArray | null = null;
  for (let m = re.exec(text); m; m = re.exec(text)) last = m;
  if (!last) return { judgement: null, answer: text.trim(), problem: 'The agent gave no assessment block.' };
  const answer = (text.slice(0, last.index) + text.slice(last.index + last[0].length)).trim();
  let json: unknown;
  try {
    json = JSON.parse(last[1]!);
  } catch (e) {
    return { judgement: null, answer, problem: `The agent's assessment block is not valid JSON (${(e as Error).message}).` };
  }
  const r = JudgementSchema.safeParse(json);
  if (!r.success) return { judgement: null, answer, problem: `The agent's assessment block does not have the expected fields (${r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}).` };
  return { judgement: r.data, answer, problem: null };
}

export type FileOperation = 'created' | 'modified' | 'deleted';
const OPERATION_WORDS: Record<FileOperation, string> = { created: '创建', modified: '修改', deleted: '删除' };

export interface ToolCallFact {
  tool: string;
  input: unknown;
  output: string;
  isError: boolean;
}

export interface CheckFact {
  command: string;
  passed: boolean;
  exitCode: number | null;
}

/** Everything the reports are written from. */
export interface TaskFacts {
  command: CommandFile;
  /** The command file's name in `commands/`. */
  fileName: string;
  sessionId: string;
  turnCount: number;
  sessionStatus: 'active' | 'ended';
  workspace: string;
  startedAt: Date;
  finishedAt: Date;
  /** The turn's outcome ('ended' for an end command, which runs no turn). */
  outcome: string;
  message: string | null;
  timedOut: boolean;
  timeoutMs: number;
  answer: string;
  judgement: Judgement | null;
  judgementProblem: string | null;
  thinking: string;
  toolCalls: ToolCallFact[];
  checks: CheckFact[];
  usage: { inputTokens: number; outputTokens: number };
  costUsd: number;
  modelCalls: number;
  files: { path: string; operation: FileOperation }[];
  /** ADRs the task created or changed (docs/decisions), read after the task. */
  adrs: AdrWritten[];
  /** Commits made during the task, newest first (hash and subject). */
  commits: { hash: string; subject: string }[];
  head: string | null;
  gitStatus: string | null;
  mission: MissionCheck & { created: boolean };
  logs: { runtime: string; debug: string; monitor: string };
  logSummary: string;
  placement: string;
  warnings: string[];
}

/**
 * The status follows from facts, never from the agent's say-so: a timeout or a turn that did
 * not complete is FAILED; a completed turn whose last check failed, or whose last tool call
 * failed, is PARTIAL_SUCCESS; otherwise SUCCESS.
 */
export function reportStatus(f: Pick<TaskFacts, 'outcome' | 'timedOut' | 'checks' | 'toolCalls'>): ReportStatus {
  if (f.outcome === 'ended') return 'SUCCESS';
  if (f.timedOut || f.outcome !== 'completed') return 'FAILED';
  const lastCheck = f.checks[f.checks.length - 1];
  if (lastCheck && !lastCheck.passed) return 'PARTIAL_SUCCESS';
  const lastTool = f.toolCalls[f.toolCalls.length - 1];
  if (lastTool?.isError) return 'PARTIAL_SUCCESS';
  return 'SUCCESS';
}

export function reportTags(f: Pick<TaskFacts, 'judgement' | 'command'>): string[] {
  const tags = new Set<string>();
  for (const t of f.judgement?.tags ?? []) {
    const clean = t.trim().toLowerCase().replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '');
    if (clean) tags.add(clean);
    if (tags.size >= MAX_TAGS) break;
  }
  if (tags.size === 0) tags.add('mailbox');
  tags.add(f.command.commandType);
  return [...tags];
}

function cell(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/\r?\n/g, ' ');
}

function bullets(items: readonly string[] | undefined, none: string): string[] {
  return items && items.length > 0 ? items.map((i) => `- ${i.replace(/\r?\n/g, ' ')}`) : [`- ${none}`];
}

/** A fence longer than any backtick run in `body`, so quoted output cannot close it. */
function fence(body: string, info = ''): string {
  const longest = Math.max(2, ...[...body.matchAll(/`+/g)].map((m) => m[0].length));
  const f = '`'.repeat(longest + 1);
  return `${f}${info}\n${body}\n${f}`;
}

function cut(s: string, max: number): string {
  return s.length > max ? `${s.slice(0, max)}… (${s.length - max} more characters)` : s;
}

function quoteTask(task: string): string {
  const first = task.split('\n').find((l) => l.trim() !== '') ?? task;
  return task.includes('\n') ? `${first.trim()} …` : first.trim();
}

/** A tag written plain when YAML reads it back as the same text, else double-quoted. */
function yamlTag(t: string): string {
  return /^[\p{L}\p{N}][\p{L}\p{N}._-]*$/u.test(t) && !/^(true|false|null|yes|no|on|off|~|[-+.\d].*)$/i.test(t) ? t : JSON.stringify(t);
}

function frontMatter(f: TaskFacts, status: ReportStatus): string {
  // The format's own layout: quoted strings, one key per line, the tags as a flow list. JSON
  // string syntax is valid YAML double-quoted syntax, so any session id survives.
  return ['---', `session_id: ${JSON.stringify(f.sessionId)}`, `report_date: ${JSON.stringify(f.finishedAt.toISOString())}`, `status: ${JSON.stringify(status)}`, `tags: [${reportTags(f).map(yamlTag).join(', ')}]`, '---'].join('\n');
}

/** Sections 1–6 (shared by both reports). */
function mainSections(f: TaskFacts, status: ReportStatus): string[] {
  const j = f.judgement;
  const out: string[] = ['# 执行任务总结报告', ''];
  out.push('## 1. 任务概览 (Task Overview)');
  out.push(`- **原始指令**: ${quoteTask(f.command.task)}`);
  out.push(`- **关联 Mission 阶段**: ${f.mission.stage ?? '（AGENT_MISSION.md 中没有路线图阶段）'}`);
  out.push(`- **执行状态**: ${status}`);
  out.push(`- **指令**: ${f.command.commandType} · ${f.fileName} · ${f.command.id}`);
  if (f.timedOut) out.push(`- **超时**: the task was stopped after ${Math.round(f.timeoutMs / 1000)} s (its time limit).`);
  else if (f.outcome !== 'completed' && f.outcome !== 'ended') out.push(`- **结果**: the turn ended ${f.outcome}${f.message ? `: ${f.message.replace(/\r?\n/g, ' ')}` : ''}.`);
  out.push('');

  out.push('## 2. 核心成果 (Key Deliverables)');
  out.push(`> ${j?.summary?.replace(/\r?\n/g, ' ') ?? (f.answer ? cut(f.answer.replace(/\s+/g, ' '), 600) : '（智能体没有给出总结）')}`);
  out.push('');
  out.push('### 文件变更');
  out.push('| 文件路径 | 操作 | 说明 |', '| :--- | :--- | :--- |');
  if (f.files.length === 0) out.push('| - | - | 没有文件变更 |');
  for (const file of f.files) out.push(`| ${cell(file.path)} | ${OPERATION_WORDS[file.operation]} | ${describeChange(f, file.path)} |`);
  out.push('');
  out.push('### 功能实现');
  out.push(...bullets(j?.features, '（智能体没有列出）'));
  out.push('');
  out.push('### 验证结果');
  const checks = f.checks.map((c) => `\`${c.command}\`: ${c.passed ? 'passed' : `failed (exit ${c.exitCode ?? 'none'})`}`);
  out.push(...bullets([...checks, ...(j?.verification ?? [])], '没有运行检查'));
  out.push('');

  out.push('## 3. ADR & 决策同步 (Architectural Decisions)');
  const decisions = j?.decisions ?? [];
  for (const d of decisions) {
    out.push(`- **决策内容**: ${d.decision}`);
    out.push(`- **理由**: ${d.reason ?? '-'}`);
    out.push(`- **影响**: ${d.impact ?? '-'}`);
  }
  // The ADRs the task wrote are decisions whether or not its summary named them.
  for (const a of f.adrs) {
    out.push(`- **决策内容**: [ADR-${String(a.number).padStart(4, '0')}: ${a.title}](${a.path})${a.decision ? ` — ${cut(a.decision, 300)}` : ''}`);
    out.push(`- **理由**: ${a.context ? cut(a.context, 300) : '-'}`);
    out.push(`- **影响**: ${a.consequences ? cut(a.consequences, 300) : '-'}`);
  }
  if (decisions.length === 0 && f.adrs.length === 0) out.push('- **决策内容**: 无');
  out.push('');

  out.push('## 4. 填坑记录与风险预警 (Pitfalls & Lessons)');
  const pitfalls = j?.pitfalls ?? [];
  if (pitfalls.length === 0) out.push('- 无');
  pitfalls.forEach((p, i) => {
    out.push(`### 问题 ${i + 1}: ${p.title}`);
    out.push(`- **遇到的问题**: ${p.problem ?? '-'}`);
    out.push(`- **失败尝试**: ${p.failed ?? '-'}`);
    out.push(`- **最终方案**: ${p.solution ?? '-'}`);
    out.push(`- **残留风险**: ${p.risk ?? '-'}`);
  });
  const problems = [...(f.judgementProblem ? [f.judgementProblem] : []), ...f.warnings];
  if (problems.length > 0) {
    out.push('', '### Flightdeck 记录', ...problems.map((p) => `- ${p}`));
  }
  out.push('');

  out.push('## 5. Mission 手册更新说明 (Mission Sync)');
  out.push(`- **进度更新**: ${j?.progress ?? '（智能体没有说明）'}`);
  out.push(`- **下一手建议**: ${j?.next_steps && j.next_steps.length > 0 ? j.next_steps.join('; ') : '（智能体没有建议）'}`);
  out.push(`- **手册检查**: ${missionVerdict(f)}`);
  out.push('');

  out.push('## 6. 原始执行指纹 (Artifacts)');
  out.push(`- **Git Commit**: ${f.commits.length > 0 ? f.commits.map((c) => `${c.hash} ${c.subject}`).join('; ') : f.head ? `none made in this task (HEAD ${f.head})` : 'none (the workspace is not a git repository)'}`);
  out.push(`- **相关日志**: ${f.logs.debug}, ${f.logs.runtime}`);
  out.push(`- **会话**: ${f.sessionId} (transcript in Flightdeck)`);
  out.push(`- **指令文件**: commands/processed/${f.fileName}`);
  out.push('');
  return out;
}

function missionVerdict(f: TaskFacts): string {
  if (f.command.commandType === 'end') return 'not checked (the end command runs no task).';
  if (!f.mission.exists) return 'AGENT_MISSION.md is missing after the task.';
  const missing = [!f.mission.progressUpdated ? 'the progress table (实施进度追踪)' : null, !f.mission.nextStepsUpdated ? 'the next steps (下一步指令)' : null].filter(Boolean);
  const created = f.mission.created ? ' (it was created from the template for this task)' : '';
  return missing.length === 0 ? `AGENT_MISSION.md progress and next steps were updated${created}.` : `NOT UPDATED: the agent did not update ${missing.join(' or ')} in AGENT_MISSION.md${created}.`;
}

/** The tool calls that touched a file, as the change's description. */
function describeChange(f: TaskFacts, path: string): string {
  const tools = new Set<string>();
  for (const c of f.toolCalls) {
    const input = c.input as Record<string, unknown> | null;
    const p = input && typeof input === 'object' ? (input.path ?? input.file_path) : undefined;
    if (typeof p === 'string' && (p === path || p.endsWith(`/${path}`))) tools.add(c.tool);
  }
  return tools.size > 0 ? `by ${[...tools].join(', ')}` : 'changed in the workspace';
}

/** `report-<id>.md`. */
export function formatReport(f: TaskFacts): string {
  const status = reportStatus(f);
  return [frontMatter(f, status), '', ...mainSections(f, status)].join('\n');
}

/** `detailed-report-<id>.md`: the report, then the raw execution data. */
export function formatDetailedReport(f: TaskFacts): string {
  const status = reportStatus(f);
  const out = [frontMatter(f, status), '', ...mainSections(f, status)];
  out.push('---', '', '## 原始执行数据', '');
  out.push('### 会话状态');
  out.push(`- 当前轮次: ${f.turnCount}`);
  out.push(`- 等待继续: ${f.sessionStatus === 'active' ? '是' : '否'}`);
  out.push(`- 会话 ID: ${f.sessionId}`);
  out.push(`- 工作区: ${f.workspace}`);
  out.push(`- 运行位置: ${f.placement}`);
  out.push('');
  out.push('### AI 思考过程');
  out.push(fence(f.thinking.trim() || '（没有思考内容）'));
  out.push('');
  out.push('### 工具调用记录');
  const calls = f.toolCalls.map((c) => ({ tool: c.tool, input: c.input, is_error: c.isError, output: cut(c.output, MAX_TOOL_TEXT) }));
  out.push(fence(JSON.stringify(calls, null, 2), 'json'));
  out.push('');
  out.push('### 会话统计');
  const byTool = new Map<string, number>();
  for (const c of f.toolCalls) byTool.set(c.tool, (byTool.get(c.tool) ?? 0) + 1);
  out.push(`- 开始: ${f.startedAt.toISOString()}`);
  out.push(`- 结束: ${f.finishedAt.toISOString()}`);
  out.push(`- 耗时: ${((f.finishedAt.getTime() - f.startedAt.getTime()) / 1000).toFixed(1)} s`);
  out.push(`- 模型请求: ${f.modelCalls}`);
  out.push(`- 输入 tokens: ${f.usage.inputTokens}`);
  out.push(`- 输出 tokens: ${f.usage.outputTokens}`);
  out.push(`- 费用: $${f.costUsd.toFixed(4)}`);
  out.push(`- 工具调用: ${f.toolCalls.length}${byTool.size > 0 ? ` (${[...byTool].map(([t, n]) => `${t} ×${n}`).join(', ')})` : ''}`);
  out.push(`- 失败的工具调用: ${f.toolCalls.filter((c) => c.isError).length}`);
  out.push(`- 结果: ${f.outcome}${f.timedOut && f.outcome !== 'timeout' ? ' (timeout)' : ''}`);
  out.push('');
  out.push('### 运行日志摘要');
  out.push(fence(f.logSummary.trim() || '（日志为空）'));
  out.push('');
  out.push('### 文件变更');
  if (f.gitStatus !== null) out.push(fence(f.gitStatus.trim() || '(git status: clean)'));
  else out.push(...(f.files.length > 0 ? f.files.map((x) => `- ${x.operation}: ${x.path}`) : ['- (no files changed)']));
  out.push('');
  return out.join('\n');
}

/** The sections a report must have, in order (tests and the browser check them). */
export const REPORT_SECTIONS = ['## 1. 任务概览 (Task Overview)', '## 2. 核心成果 (Key Deliverables)', '## 3. ADR & 决策同步 (Architectural Decisions)', '## 4. 填坑记录与风险预警 (Pitfalls & Lessons)', '## 5. Mission 手册更新说明 (Mission Sync)', '## 6. 原始执行指纹 (Artifacts)'] as const;
export const RAW_DATA_SECTIONS = ['### 会话状态', '### AI 思考过程', '### 工具调用记录', '### 会话统计', '### 运行日志摘要', '### 文件变更'] as const;
