import { z } from 'zod';
import { jsonSchema, parseInput } from './schema';
import type { Tool, ToolOutcome } from './types';
import type { CommandResult } from './command-runner';
import { SandboxUnavailableError } from '../../sandbox/sandbox-runtime';

const BashInput = z
  .object({
    command: z.string().min(1).max(100_000).describe('The bash command line, run with the project root as the working directory.'),
    timeoutSeconds: z.number().int().min(1).max(86_400).optional().describe('Kill the command after this many seconds (capped by the settings).'),
  })
  .strict();

/** The text the model reads for a finished command. */
export function describeCommandResult(command: string, r: CommandResult, timeoutMs: number, cancelled: boolean): string {
  const status = cancelled
    ? 'cancelled by the user (process group killed)'
    : r.timedOut
      ? `killed after the ${Math.round(timeoutMs / 1000)} s timeout`
      : r.exitCode !== null
        ? `exit code ${r.exitCode}`
        : `killed by ${r.signal ?? 'a signal'}`;
  return `$ ${command}\n${outputText(r)}\n[${status}${r.truncated ? '; output truncated' : ''}]`;
}

/**
 * The output part: as printed (stdout and stderr interleaved) unless the runner captured the
 * streams apart and something went to stderr — then stdout first, and stderr under its own
 * heading, so the model can tell a diagnostic from the data (seed 001 §6).
 */
function outputText(r: CommandResult): string {
  if (r.stdout === undefined || r.stderr === undefined || r.stderr.trim() === '') {
    return r.output.length > 0 ? r.output.replace(/\s+$/, '') : '(no output)';
  }
  const out = r.stdout.replace(/\s+$/, '');
  return `${out.length > 0 ? out : '(no stdout)'}\n[stderr]\n${r.stderr.replace(/\s+$/, '')}`;
}

export const bashTool: Tool = {
  name: 'bash',
  description:
    'Run a bash command in the project root (non-interactive: stdin is closed). Output (stdout and stderr interleaved) and the exit code are returned; long output keeps its head and tail.',
  inputSchema: jsonSchema(BashInput),
  async run(raw, ctx): Promise<ToolOutcome> {
    const input = parseInput(BashInput, raw);
    const timeoutMs = Math.min(ctx.bashTimeoutMs, (input.timeoutSeconds ?? Infinity) * 1000);
    let r: CommandResult;
    try {
      r = await ctx.runner.run({ cwd: ctx.root, command: input.command, env: ctx.env, timeoutMs, signal: ctx.signal, onOutput: ctx.onOutput, owner: ctx.owner, onTerminal: ctx.onTerminal, sandbox: ctx.sandbox });
    } catch (e) {
      // The sandbox could not start: the command was refused, and the model and the user read why.
      if (e instanceof SandboxUnavailableError) return { content: `$ ${input.command}\n${e.message}`, isError: true, exitCode: null };
      throw e;
    }
    return {
      content: describeCommandResult(input.command, r, timeoutMs, ctx.signal.aborted),
      isError: r.exitCode !== 0,
      exitCode: r.exitCode,
      ...(r.stdout !== undefined && r.stderr !== undefined ? { streams: { stdout: r.stdout, stderr: r.stderr } } : {}),
    };
  },
};
