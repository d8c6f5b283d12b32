/**
 * Seed 000's prompt template. The Coder tool itself never looks for constraint files: the
 * caller (Flightdeck) reads them and passes their text here, and the UI says which were used.
 */

/** The engineering-constraint files seed 000 names, relative to `cd`. */
export const CONSTRAINT_FILES = {
  contract: 'ai/contracts/current.md',
  guardrails: 'ai/implementer_guardrails.md',
  codex: 'ai/engineering_codex.md',
} as const;
export type ConstraintName = keyof typeof CONSTRAINT_FILES;

export interface Constraints {
  contract?: string | null;
  guardrails?: string | null;
  codex?: string | null;
}

/** A task written in the template's own fields; a plain string is used as is. */
export interface StructuredTask {
  /** 新增功能 / 修复 Bug / 重构 / 其他 */
  type?: string;
  targetFiles?: string[];
  requirements: string[];
  constraints?: string[];
  acceptance?: string[];
}
export type CoderTask = string | StructuredTask;

const CLOSING = '请严格按照上述范围修改代码，不得扩展 Scope 或引入未说明的行为。完成后请说明改动内容。';

function section(title: string, body: string | null | undefined): string | null {
  const text = body?.trim();
  return text ? `${title}\n${text}` : null;
}

function bullets(items: readonly string[] | undefined, numbered = false): string {
  return (items ?? []).map((item, i) => (numbered ? `${i + 1}. ${item}` : `- ${item}`)).join('\n');
}

export function renderTask(task: CoderTask): string {
  if (typeof task === 'string') return task.trim();
  const parts = [
    `**任务类型**：${task.type?.trim() || '其他'}`,
    `**目标文件**：${task.targetFiles && task.targetFiles.length > 0 ? task.targetFiles.join(', ') : '（未指定）'}`,
    '',
    '**具体要求**：',
    bullets(task.requirements, true),
  ];
  if (task.constraints && task.constraints.length > 0) parts.push('', '**约束条件**：', bullets(task.constraints));
  if (task.acceptance && task.acceptance.length > 0) parts.push('', '**验收标准**：', bullets(task.acceptance));
  return parts.join('\n');
}

/** The full PROMPT: the seed's header, the constraint sections present, the task, the closing line. */
export function renderCoderPrompt(task: CoderTask, constraints: Constraints = {}): string {
  const blocks = [
    '请执行以下代码任务：',
    section('【Implementation Contract】（如存在，必须优先遵守）', constraints.contract),
    section('【Implementer Guardrails】（如存在）', constraints.guardrails),
    section('【Engineering Codex】（工程默认判断）', constraints.codex),
    renderTask(task),
    CLOSING,
  ].filter((b): b is string => b !== null && b !== '');
  return blocks.join('\n\n') + '\n';
}

/**
 * Seed 000: when a SESSION_ID is lost, a new session gets the minimal context pack (goal,
 * contract, scope, assumptions, acceptance) before the prompt, so it does not start blind.
 */
export interface ContextPack {
  goal?: string | null;
  contract?: string | null;
  scope?: string | null;
  assumptions?: string | null;
  acceptance?: string | null;
}

export function renderContextPack(pack: ContextPack, lostSessionId: string, prompt: string): string {
  const blocks = [
    `【上下文恢复】之前的会话（SESSION_ID ${lostSessionId}）已失效，这是一个新会话。以下是继续工作所需的最小上下文包：`,
    section('**目标**：', pack.goal),
    section('【Implementation Contract】（必须优先遵守）', pack.contract),
    section('**变更范围**：', pack.scope),
    section('**Assumptions**（只能在此范围内执行，不得基于假设扩展 Scope）：', pack.assumptions),
    section('**验收标准**：', pack.acceptance),
    '---',
    prompt,
  ].filter((b): b is string => b !== null && b !== '');
  return blocks.join('\n\n');
}
