import type { CommandResult, CommandRunner, CommandRunOptions } from '../agents/tools/command-runner';
import { MAX_COMMAND_OUTPUT_CHARS } from '../agents/tools/command-runner';
import type { TerminalService } from './terminal-service';

/**
 * Agents' commands (bash tool calls, `!` commands, auto-verify) run in real terminals, so the
 * user can open any of them and watch it live, and it stays readable after it ends. The agent
 * still gets plain text: colours and cursor movement are asked to stay off and any escape
 * sequence that slips through is removed from what the model and the transcript see.
 */
export class PtyCommandRunner implements CommandRunner {
  constructor(private readonly terminals: Pick<TerminalService, 'runCommand'>) {}

  async run(opts: CommandRunOptions): Promise<CommandResult> {
    const env: Record<string, string> = {};
    // FORCE_COLOR (set by CI runners and test runners' workers) beats NO_COLOR below, and node
    // prints a warning about the pair into every output the model reads.
    for (const [k, v] of Object.entries(opts.env)) if (v !== undefined && k !== 'FORCE_COLOR') env[k] = v;
    const toText = new TerminalText();
    const r = await this.terminals.runCommand({
      cwd: opts.cwd,
      command: opts.command,
      // Exactly the engine's environment (credentials already removed), not the app's own.
      baseEnv: env,
      env: AGENT_TERMINAL_ENV,
      stdinClosed: true,
      // stdout and stderr apart as well, for structured results (the terminal still shows both).
      captureStreams: true,
      // The sandboxed form of a command is long; the terminal list shows what the agent asked for.
      ...(opts.title ? { title: opts.title } : {}),
      timeoutMs: opts.timeoutMs,
      signal: opts.signal,
      // Characters as the engine counts them; a UTF-8 character is at most 4 bytes.
      outputCapBytes: MAX_COMMAND_OUTPUT_CHARS * 4,
      ...(opts.owner ? { owner: { sessionId: opts.owner.sessionId, ...(opts.owner.projectId ? { projectId: opts.owner.projectId } : {}) } } : {}),
      ...(opts.onTerminal ? { onStart: opts.onTerminal } : {}),
      ...(opts.onOutput
        ? {
            onOutput: (data: string) => {
              const text = toText.push(data);
              if (text) opts.onOutput!(text);
            },
          }
        : {}),
    });
    return {
      exitCode: r.exitCode,
      signal: r.signal,
      output: plainText(r.output),
      truncated: r.truncated,
      ...(r.streams ? { stdout: plainText(r.streams.stdout), stderr: plainText(r.streams.stderr) } : {}),
      timedOut: r.timedOut,
    };
  }
}

/** What an agent's terminal sets on top of the engine's environment: no colours, no pagers. */
const AGENT_TERMINAL_ENV: Record<string, string> = { TERM: 'dumb', NO_COLOR: '1', PAGER: 'cat', GIT_PAGER: 'cat' };

// CSI, OSC (ended by BEL or ST) and two-character escapes.
// eslint-disable-next-line no-control-regex
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\^_]/g;

const ONE_ESCAPE = new RegExp(ESCAPES.source, 'y');

/** Terminal output as plain text: escape sequences removed, CRLF as LF. */
export function plainText(s: string): string {
  return s.replace(ESCAPES, '').replace(/\r\n/g, '\n');
}

/**
 * Streams terminal output as plain text. An escape sequence or a CR LF pair split between two
 * reads is held back until its end arrives, so nothing half-stripped reaches the transcript.
 */
export class TerminalText {
  private held = '';

  push(data: string): string {
    let s = this.held + data;
    this.held = '';
    // Walk the escapes in order: the first one that has not ended yet (near the end of what
    // arrived) is held for the next read, with everything after it.
    for (let i = s.indexOf('\x1b'); i >= 0; i = s.indexOf('\x1b', i + 1)) {
      ONE_ESCAPE.lastIndex = i;
      const m = ONE_ESCAPE.exec(s);
      if (m) {
        i += m[0].length - 1;
      } else if (s.length - i < MAX_HELD_ESCAPE) {
        this.held = s.slice(i);
        s = s.slice(0, i);
        break;
      }
    }
    if (s.endsWith('\r')) {
      this.held = '\r' + this.held;
      s = s.slice(0, -1);
    }
    return plainText(s);
  }
}

/** Longer than any escape sequence a command prints; beyond it a stray ESC is passed through. */
const MAX_HELD_ESCAPE = 256;
