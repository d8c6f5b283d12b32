/** The agent loop's nine slash commands, for completion in the input box. */
export const SLASH_COMMANDS: ReadonlyArray<{ name: string; args: string; help: string }> = [
  { name: 'help', args: '', help: 'List the commands' },
  { name: 'model', args: '<name>', help: 'Switch the model now; saved to .coder/config.json' },
  { name: 'permissions', args: '[preset]', help: 'Show or set the policy: read-only, strict, balanced, trusted' },
  { name: 'new', args: '', help: 'Start a fresh session' },
  { name: 'resume', args: '<session-id>', help: 'Switch to another session' },
  { name: 'compact', args: '', help: 'Summarize older turns now' },
  { name: 'diff', args: '', help: 'Show uncommitted changes in the session folder' },
  { name: 'review', args: '', help: 'Ask the model to review the changes' },
  { name: 'undo', args: '[keep|pre|merge] [path…]', help: "Revert the last turn's file changes; files you changed since are kept unless you choose (needs git)" },
  { name: 'redo', args: '', help: 'Take back the last /undo' },
  { name: 'rewind', args: '[turn] | undo', help: 'Put the files and the conversation back to a turn; /rewind undo takes it back (needs git for files)' },
];

/** Commands matching what was typed after "/", for the completion list. */
export function completeSlash(input: string): typeof SLASH_COMMANDS {
  const m = /^\/(\S*)$/.exec(input.trimStart());
  if (!m) return [];
  const typed = m[1]!.toLowerCase();
  return SLASH_COMMANDS.filter((c) => c.name.startsWith(typed));
}
