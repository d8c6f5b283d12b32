/**
 * Other executors (the Claude Code CLI) name their tools differently. Mapping them onto the
 * engine's tool names lets one policy, one hard floor and one set of session rules judge
 * both. Pure.
 */
export interface NormalizedCall {
  tool: string;
  input: Record<string, unknown>;
}

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

export function normalizeExternalTool(name: string, input: Record<string, unknown>): NormalizedCall {
  switch (name) {
    case 'Bash':
      return { tool: 'bash', input: { command: str(input.command) ?? '' } };
    case 'Write':
      return { tool: 'write', input: { path: str(input.file_path) ?? '', content: str(input.content) ?? '' } };
    case 'Edit':
      return {
        tool: 'patch',
        input: { path: str(input.file_path) ?? '', edits: [{ search: str(input.old_string) ?? '', replace: str(input.new_string) ?? '', ...(input.replace_all === true ? { all: true } : {}) }] },
      };
    case 'MultiEdit': {
      const edits = Array.isArray(input.edits) ? (input.edits as Array<Record<string, unknown>>) : [];
      return {
        tool: 'patch',
        input: { path: str(input.file_path) ?? '', edits: edits.map((e) => ({ search: str(e.old_string) ?? '', replace: str(e.new_string) ?? '', ...(e.replace_all === true ? { all: true } : {}) })) },
      };
    }
    case 'NotebookEdit':
      return { tool: 'write', input: { path: str(input.notebook_path) ?? '', content: str(input.new_source) ?? '' } };
    case 'Read':
      return { tool: 'read', input: { path: str(input.file_path) ?? '' } };
    case 'Glob':
      return { tool: 'glob', input: { pattern: str(input.pattern) ?? '', ...(str(input.path) ? { path: str(input.path) } : {}) } };
    case 'Grep':
      return { tool: 'grep', input: { pattern: str(input.pattern) ?? '', ...(str(input.path) ? { path: str(input.path) } : {}) } };
    case 'TodoWrite':
      return { tool: 'todo', input };
    default:
      return { tool: name, input };
  }
}
