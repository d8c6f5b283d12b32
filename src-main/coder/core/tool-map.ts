/**
 * Claude Code's tools seen through Flightdeck's eyes: which engine tool each one is (so the
 * same allow/ask/deny policy, session rules and hard floor apply), and which paths it touches
 * (so workspace-write can refuse anything outside cd).
 */

/** Claude Code tool → the engine's tool name. Tools not listed keep their own name. */
const ENGINE_TOOL: Readonly<Record<string, string>> = {
  Bash: 'bash',
  Write: 'write',
  Edit: 'patch',
  MultiEdit: 'patch',
  NotebookEdit: 'patch',
  Read: 'read',
  NotebookRead: 'read',
  LS: 'glob',
  Glob: 'glob',
  Grep: 'grep',
  TodoWrite: 'todo',
  TaskCreate: 'todo',
  TaskUpdate: 'todo',
  TaskList: 'todo',
  TaskGet: 'todo',
};

/** Claude Code's file-changing tools: disallowed outright in read-only. */
export const CLAUDE_WRITE_TOOLS = ['Write', 'Edit', 'MultiEdit', 'NotebookEdit'] as const;

export function engineToolName(claudeTool: string): string {
  return ENGINE_TOOL[claudeTool] ?? claudeTool;
}

export function isFileTool(claudeTool: string): boolean {
  const t = engineToolName(claudeTool);
  return t === 'read' || t === 'write' || t === 'patch' || t === 'glob' || t === 'grep';
}

/** Input fields that name a file or folder, per tool (absolute in what the hook receives). */
export function toolPaths(claudeTool: string, input: Record<string, unknown>): string[] {
  const fields = ['file_path', 'notebook_path', 'path'];
  if (!isFileTool(claudeTool)) return [];
  return fields.map((f) => input[f]).filter((v): v is string => typeof v === 'string' && v.trim() !== '');
}

/**
 * Claude Code's input with its (absolute) file fields written relative to cd where they are
 * inside it: what approvals show ("write src/a.ts", not a temp-folder path) and what the gate,
 * which resolves relative paths against the same root, confines just the same.
 */
export function withRelativePaths(claudeTool: string, input: Record<string, unknown>, cd: string): Record<string, unknown> {
  if (!isFileTool(claudeTool)) return input;
  const out: Record<string, unknown> = { ...input };
  for (const field of ['file_path', 'notebook_path', 'path']) {
    const v = out[field];
    if (typeof v === 'string' && v.startsWith('/') && isInside(cd, v) && v !== cd) out[field] = v.slice(cd.length + (cd.endsWith('/') ? 0 : 1));
  }
  return out;
}

/** The engine's input shape for a call (what its policy and approval dialog read). */
export function engineToolInput(claudeTool: string, input: Record<string, unknown>, relPath: (p: string) => string): Record<string, unknown> {
  const tool = engineToolName(claudeTool);
  const path = toolPaths(claudeTool, input)[0];
  if (tool === 'bash') return { command: String(input.command ?? ''), ...(typeof input.description === 'string' ? { description: input.description } : {}) };
  if ((tool === 'write' || tool === 'patch' || tool === 'read') && path !== undefined) return { ...input, path: relPath(path) };
  return input;
}

/** One line for a tool card or approval title: the command, or "write src/a.ts". */
export function toolSummary(claudeTool: string, input: Record<string, unknown>, relPath: (p: string) => string = (p) => p): string {
  const tool = engineToolName(claudeTool);
  if (tool === 'bash') return String(input.command ?? '').split('\n')[0] ?? '';
  const path = toolPaths(claudeTool, input)[0];
  if (path !== undefined) return `${tool} ${relPath(path)}`;
  if (typeof input.pattern === 'string') return `${tool} ${input.pattern}`;
  return claudeTool;
}

/** Lexical containment of an absolute POSIX-style path in a root (callers resolve symlinks first). */
export function isInside(root: string, path: string): boolean {
  const r = root.endsWith('/') && root.length > 1 ? root.slice(0, -1) : root;
  return path === r || path.startsWith(r === '/' ? '/' : r + '/');
}
