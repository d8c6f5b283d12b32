/**
 * Where a trusted repository's `worktree.setup` commands run: in the workspace sandbox, like an
 * agent's commands (the new worktree writable, its `.git` and everything else read-only, the
 * network on so package installs work, Flightdeck's data folder and run keys hidden), each in a
 * terminal the user can open. A machine where the sandbox cannot start refuses the setup with the
 * reason instead of running it unconfined.
 */
import type { HiddenPath } from '../sandbox/policy';
import { DEFAULT_NETWORK, execLine } from '../sandbox/policy';
import { sandboxArgv, type SandboxTools } from '../sandbox/sandbox-runtime';
import { coderSecretDirs } from '../coder/run-dir';
import type { SetupRunner } from './worktree-prepare';

export function sandboxedSetupRunner(inner: SetupRunner, hidden: readonly HiddenPath[], tools: SandboxTools = {}): SetupRunner {
  return {
    async runCommand(o) {
      const secrets = coderSecretDirs().map((path): HiddenPath => ({ path, kind: 'dir' }));
      const policy = { mode: 'workspace-write' as const, root: o.cwd, network: DEFAULT_NETWORK, hidden: [...hidden, ...secrets] };
      const argv = await sandboxArgv(['bash', '-c', o.command], policy, o.cwd, tools);
      return inner.runCommand({ ...o, command: execLine(argv) });
    },
  };
}
