import { z } from 'zod';
import type { TodoItem } from '../../../src-preload/contract';
import { jsonSchema, parseInput } from './schema';
import type { Tool } from './types';

/** A todo list longer than this stops being a plan. */
const MAX_TODOS = 50;

const TodoInput = z
  .object({
    todos: z
      .array(
        z
          .object({
            text: z.string().min(1).max(2_000),
            status: z.enum(['pending', 'in_progress', 'done']),
          })
          .strict(),
      )
      .max(MAX_TODOS)
      .describe('The whole list, in order; it replaces the previous one.'),
  })
  .strict();

export function renderTodos(todos: readonly TodoItem[]): string {
  if (todos.length === 0) return '(the todo list is empty)';
  const mark = { pending: '[ ]', in_progress: '[~]', done: '[x]' } as const;
  return todos.map((t, i) => `${i + 1}. ${mark[t.status]} ${t.text}`).join('\n');
}

export const todoTool: Tool = {
  name: 'todo',
  description: 'Replace the task\'s todo list (the plan for multi-step work). Keep exactly one item in_progress while working; mark items done as they finish.',
  inputSchema: jsonSchema(TodoInput),
  async run(raw, ctx) {
    const input = parseInput(TodoInput, raw);
    const todos: TodoItem[] = input.todos.map((t, i) => ({ id: `t${i + 1}`, text: t.text, status: t.status }));
    ctx.setTodos(todos);
    return { content: `Todo list updated:\n${renderTodos(todos)}`, isError: false };
  },
};
