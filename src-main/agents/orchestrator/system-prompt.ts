import type { AgentMode, TodoItem } from '../../../src-preload/contract';
import { renderTodos } from '../tools/todo-tool';

const MODE_TEXT: Record<AgentMode, string> = {
  plan: 'PLAN mode: explore (read, glob, grep, read-only commands) and propose a plan broken into steps. Files are not changed and commands with side effects are refused in this mode.',
  default: 'DEFAULT mode: carry out the task; file changes and commands that are not read-only may need the user\'s approval, and a denial comes with a reason to respect.',
  'auto-edit': 'AUTO-EDIT mode: read and change files freely to deliver the change; commands may still need approval. Tests run automatically after edits when the project has a supported test command.',
  yolo: 'YOLO mode: you run autonomously; commands run without approval (catastrophic ones stay blocked).',
};

/** The system prompt, rebuilt every step so the mode and the todo list are always current. */
export function systemPrompt(o: { root: string; mode: AgentMode; todos: readonly TodoItem[]; complex: boolean; instructions?: string | undefined }): string {
  const parts = [
    'You are Flightdeck\'s coding agent, working in a local repository through tools.',
    `The project root is ${o.root}. File tools take paths relative to it and cannot leave it; bash runs in it.`,
    MODE_TEXT[o.mode],
    'Work in small verifiable steps. Read before you edit; prefer patch over rewriting whole files. When you are done, answer with a short summary of what changed.',
  ];
  if (o.todos.length > 0) {
    parts.push(`Current todo list (update it with the todo tool as you progress):\n${renderTodos(o.todos)}`);
  }
  if (o.complex) parts.push('This request was judged complex: keep the todo list current, one item in_progress at a time.');
  if (o.instructions) parts.push(`Standing instructions for this session:\n\n${o.instructions}`);
  return parts.join('\n\n');
}
