/**
 * The one place agents' commands (bash tool calls, `!` commands, auto-verify) are confined:
 * a CommandRunner that rewrites the command into its sandboxed form and hands it to whatever
 * runner is plugged in (the terminal runner, the child-process runner). The wrapping is a
 * separate step on the final command, so runners stay unaware of it.
 *
 * A command that names no policy gets the default (workspace-write in its own cwd, network
 * per DEFAULT_NETWORK): forgetting the policy can never mean running unconfined.
 */
import type { CommandResult, CommandRunner, CommandRunOptions } from '../agents/tools/command-runner';
import { coderSecretDirs } from '../coder/run-dir';
import { DEFAULT_NETWORK, DEFAULT_SANDBOX_MODE, execLine, type HiddenPath } from './policy';
import { sandboxArgv, type SandboxTools } from './sandbox-runtime';

export class SandboxedRunner implements CommandRunner {
  constructor(
    private readonly inner: () => CommandRunner,
    private readonly tools: SandboxTools = {},
    /** Paths no command may read, whatever its session (Flightdeck's data folder). */
    private readonly hidden: readonly HiddenPath[] = [],
  ) {}

  async run(opts: CommandRunOptions): Promise<CommandResult> {
    const chosen = opts.sandbox ?? { mode: DEFAULT_SANDBOX_MODE, root: opts.cwd, network: DEFAULT_NETWORK };
    // Claude Code runs' keys and hook secrets, listed at each command (run folders come and go).
    const coderSecrets = coderSecretDirs().map((path): HiddenPath => ({ path, kind: 'dir' }));
    const policy = { ...chosen, hidden: [...(chosen.hidden ?? []), ...this.hidden, ...coderSecrets] };
    if (policy.mode === 'danger-full-access') return this.inner().run(opts);
    // Throws SandboxUnavailableError (with the reason) instead of running unconfined.
    const argv = await sandboxArgv(['bash', '-c', opts.command], policy, opts.cwd, this.tools);
    return this.inner().run({ ...opts, command: execLine(argv), title: opts.title ?? shortTitle(opts.command) });
  }
}

/** Terminal titles stay one short line. */
const TITLE_CHARS = 80;

function shortTitle(command: string): string {
  const line = command.replace(/\s+/g, ' ').trim();
  return line.length > TITLE_CHARS ? `${line.slice(0, TITLE_CHARS - 1)}…` : line;
}
