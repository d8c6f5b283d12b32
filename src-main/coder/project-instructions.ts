/**
 * The project's own instructions for Claude Code (`CLAUDE.md`, `.claude/CLAUDE.md` of the
 * session folder), read by Flightdeck and handed to the CLI with `--append-system-prompt-file`.
 *
 * Why not let the CLI read them: it is started with `--setting-sources user` so that a
 * `.claude/settings*.json` an agent (or a sandboxed command) wrote into the folder cannot add
 * hooks, MCP servers or plugins that the next run would start unsandboxed, as the user. That
 * switch also stops the CLI loading the project's CLAUDE.md, which is only text for the model.
 *
 * The folder is the agent's: a file here may be a symlink to a key the sandbox hides, a FIFO,
 * or huge. Only regular files that are no symlink (nor reached through one below the folder)
 * and not inside a hidden path are read, each at most {@link MAX_INSTRUCTIONS_BYTES}.
 */
import { realpath } from 'node:fs/promises';
import { join } from 'node:path';
import { readFileHeadNoWaitAsync } from '../platform/read-no-wait';
import type { HiddenPath } from '../sandbox/policy';

/** The files, in the order Claude Code itself loads a folder's project memory. */
export const PROJECT_INSTRUCTION_FILES = ['CLAUDE.md', join('.claude', 'CLAUDE.md')] as const;

/**
 * Per file. Far above a useful CLAUDE.md (Claude Code warns past ~40k characters), low enough
 * that a planted giant file costs neither memory nor a whole context window.
 */
export const MAX_INSTRUCTIONS_BYTES = 256 * 1024;

function inside(parent: string, p: string): boolean {
  const base = parent.endsWith('/') ? parent : `${parent}/`;
  return p === parent || p.startsWith(base);
}

/** Pure: the appended system-prompt text for the files found (null when none). */
export function formatProjectInstructions(files: readonly { path: string; text: string; truncated: boolean }[]): string | null {
  if (files.length === 0) return null;
  return files
    .map((f) => {
      const note = f.truncated ? `\n\n[Flightdeck: ${f.path} is longer than ${MAX_INSTRUCTIONS_BYTES} bytes; the rest is left out.]` : '';
      // The same framing Claude Code gives project memory, so the model treats it the same way.
      return `Contents of ${f.path} (project instructions, checked into the codebase):\n\n${f.text}${note}`;
    })
    .join('\n\n');
}

/**
 * Reads the instructions of `cd` (a real path). A file that is missing, special, a symlink or
 * unreadable is skipped: it is the agent's folder, and a bad file must not stop the run.
 */
export async function readProjectInstructions(cd: string, hidden: readonly HiddenPath[] = []): Promise<string | null> {
  const found: { path: string; text: string; truncated: boolean }[] = [];
  for (const rel of PROJECT_INSTRUCTION_FILES) {
    const path = join(cd, rel);
    if (hidden.some((h) => inside(h.path, path))) continue;
    try {
      // `.claude` may be a symlink out of the folder; the file's own link is refused by the read.
      if ((await realpath(path)) !== path) continue;
      const head = await readFileHeadNoWaitAsync(path, MAX_INSTRUCTIONS_BYTES);
      const text = head.bytes.toString('utf8');
      if (text.trim() !== '') found.push({ path, text, truncated: head.truncated });
    } catch {
      // Safe to skip: missing (the usual case), a symlink, a FIFO or unreadable — the run goes
      // on without that file, as the CLI itself would without a CLAUDE.md.
    }
  }
  return formatProjectInstructions(found);
}
