/**
 * What an agent gets for a mailbox task, in two parts. The standing part — the behaviour rules,
 * a project's `.clauderc` systemPrompt, the layered context and the mission reminder — is the
 * session's instructions (its system prompt, with either executor). The task itself — its
 * sections and the request for the report's judgement block — is the chat message. Pure.
 */
import type { CommandFile } from './command-file';
import { BEHAVIOUR_RULES, MISSION_FILE } from './mission';
import { judgementRequest } from './report';

export interface TaskInstructionsInput {
  context: string;
  clauderc: string | null;
  missionCreated: boolean;
}

/** The session's standing instructions for a task (the system prompt of its turn). */
export function taskInstructions(p: TaskInstructionsInput): string {
  const parts: string[] = ['# 行为准则 (Behaviour rules)', '', BEHAVIOUR_RULES];
  if (p.clauderc) parts.push('', '# 项目指令 (.clauderc)', '', p.clauderc);
  if (p.context) parts.push('', p.context.trimEnd());
  parts.push(
    '',
    '# Mission',
    '',
    `${MISSION_FILE} in the workspace is the hand-over memory between agents${p.missionCreated ? ' (it was just created from its template: fill in what you learn)' : ''}. Read it before changing core logic. Before you finish, update its progress table (Progress / 实施进度追踪) and its next steps (Next Steps / 下一步指令), keeping the file's own headings; record failed attempts in its pitfalls (Pitfalls / 避坑指南). For an architectural change or a hard bug fix, write an ADR in docs/decisions/ADR-NNNN-<slug>.md with the sections 上下文, 失败的尝试, 最终决策, 后果.`,
  );
  return parts.join('\n');
}

/** The task's chat message: its sections and the judgement request. */
export function taskPrompt(command: CommandFile): string {
  const c = command;
  const parts: string[] = [`# 任务 ${c.id} (${c.commandType})`, '', '## 任务描述', '', c.task];
  if (c.constraints) parts.push('', '## 约束条件', '', c.constraints);
  if (c.expectedOutput) parts.push('', '## 预期输出', '', c.expectedOutput);
  parts.push('', judgementRequest());
  return parts.join('\n');
}
