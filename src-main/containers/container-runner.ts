/**
 * The CommandRunner of a session placed in a container: the built-in loop's bash tool, `!`
 * commands and checks run as `bash -lc` execs in the session's container, in the worktree's
 * path there. The container is the sandbox (no bubblewrap inside); approvals and the hard floor
 * were already applied on the host before a command reaches any runner.
 */
import type { CommandResult, CommandRunner, CommandRunOptions } from '../agents/tools/command-runner';
import { CappedOutput } from '../agents/tools/command-runner';
import { AppError } from '../../src-preload/contract';
import { SandboxUnavailableError } from '../sandbox/sandbox-runtime';
import { CONTAINER_PATHS } from './core/container-spec';
import type { ContainerService } from './container-service';

/**
 * The variables of the host's command environment that mean the same inside a container;
 * everything else (PATH, HOME, the host's tool paths) describes the host and is left out.
 * FORCE_COLOR too (a CI runner's, a test worker's): commands here write to pipes the model
 * reads, which it would fill with colour codes.
 */
const PASSED_ENV = /^(PAGER|GIT_PAGER|GIT_TERMINAL_PROMPT|LANG|LANGUAGE|LC_[A-Z]+|TZ|TERM|COLORTERM|NO_COLOR|CI)$/;

export function containerEnv(env: NodeJS.ProcessEnv): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && PASSED_ENV.test(k)) out[k] = v;
  return out;
}

export class ContainerRunner implements CommandRunner {
  constructor(
    private readonly containers: ContainerService,
    private readonly sessionId: string,
  ) {}

  async run(opts: CommandRunOptions): Promise<CommandResult> {
    let placed;
    try {
      // Started on first use (and again after a restart).
      placed = await this.containers.ensure(this.sessionId);
    } catch (e) {
      // The container is this session's sandbox: without it the command is refused (never run on the host), and the model and the user read why.
      if (e instanceof AppError) throw new SandboxUnavailableError(`Not run: the session's container could not start. ${e.message}`);
      throw e;
    }
    const workdir = this.containers.containerPath(this.sessionId, opts.cwd) ?? CONTAINER_PATHS.workspace;
    const out = new CappedOutput();
    const streams = [new CappedOutput(), new CappedOutput()];
    const push = (i: number) => (s: string) => {
      if (!s) return;
      out.push(s);
      streams[i]!.push(s);
      opts.onOutput?.(s);
    };
    const r = await this.containers.exec(this.sessionId, {
      cmd: ['bash', '-lc', opts.command],
      env: containerEnv(opts.env),
      workdir,
      // The session's task timeout bounds every command, whatever the tool asked for.
      timeoutMs: Math.min(opts.timeoutMs, placed.taskTimeoutMs),
      signal: opts.signal,
      onStdout: push(0),
      onStderr: push(1),
      // Shown live in the container's agent console, next to its shells in the terminal grid.
      console: { command: opts.title ?? opts.command },
    });
    if (placed.remote) {
      // A remote workspace's commits come back after each command; the state (an error too) is recorded and shown, the command's result stands.
      await this.containers.syncWorkspace(this.sessionId).catch(() => undefined);
    }
    return { exitCode: r.exitCode, signal: r.signal, output: out.text(), truncated: out.truncated, stdout: streams[0]!.text(), stderr: streams[1]!.text(), timedOut: r.timedOut };
  }
}
