/**
 * The agent console: the TTY of an agent container's main process, where the agent's work is
 * written as it happens: each command the built-in loop runs (its command line, its output, how
 * it ended) and Claude Code's stream (its text, its tool calls and their results). The main
 * process is `cat` on a raw TTY: what the host writes to its stdin (docker attach) comes out on
 * the TTY, so `docker attach`, `docker logs` and the terminal grid's console show the same thing.
 *
 * Pure: the main process's command and the text written for each event.
 */

/**
 * Where the main process records whether its TTY is the console: `raw PID` (PID: its own, which
 * `cat` keeps) or `off`.
 */
export const CONSOLE_MARKER = '/tmp/.flightdeck-console';

/**
 * The container's main process. `raw -echo` so bytes pass through unchanged (a ^C or ^S in a
 * command's output is text, not a signal or a pause) and are not echoed twice; `opost onlcr`
 * so a command's bare \n still starts a new line at column 0. `cat` stops at once on SIGTERM
 * (the engine's init forwards it).
 *
 * Where `stty` is missing or refuses those settings there is no console: on a cooked TTY a ^C
 * or ^D written to it would end `cat`, and with it the container and the agent's work. The main
 * process then only idles (`sleep` with the largest value every sleep accepts; busybox has no
 * `infinity`), deaf to the TTY's ^C, ^\ and ^Z (a `docker attach` left with ^C), and nothing
 * is written to it: it records which it is in CONSOLE_MARKER, and the writer asks first
 * (CONSOLE_PROBE).
 */
export const CONSOLE_COMMAND = [
  'sh',
  '-c',
  `if stty raw -echo opost onlcr 2>/dev/null; then echo "raw $$" > ${CONSOLE_MARKER} 2>/dev/null; exec cat; fi; echo off > ${CONSOLE_MARKER} 2>/dev/null; trap "" INT QUIT TSTP; echo "[no agent console: stty is missing or refused a raw TTY]"; exec sleep 2147483647`,
];

/** CONSOLE_PROBE's exit statuses. */
export const CONSOLE_PROBE_STATUS = { live: 0, off: 1, notYet: 2 } as const;

/**
 * An exec that tells whether the console can be written to now (CONSOLE_PROBE_STATUS): `raw`
 * counts only while the process that wrote it is `cat` — after a restart the marker is the
 * previous run's until the new main process has set its TTY raw (written before that, a ^C in
 * a command's output would still be a signal). It waits a few seconds for a main process that
 * has only just started. Without any marker (a /tmp it could not write) whether the image has
 * `stty` decides.
 */
export const CONSOLE_PROBE = [
  'sh',
  '-c',
  `i=0; while [ $i -lt 10 ]; do if [ -s ${CONSOLE_MARKER} ]; then read -r m p < ${CONSOLE_MARKER}; [ "$m" = off ] && exit 1; [ "$m" = raw ] && [ -n "$p" ] && read -r c < "/proc/$p/comm" 2>/dev/null && [ "$c" = cat ] && exit 0; fi; sleep 0.5 2>/dev/null || sleep 1; i=$((i + 1)); done; [ -s ${CONSOLE_MARKER} ] && exit 2; command -v stty >/dev/null 2>&1 || exit 1`,
];

/** Secrets shorter than this are not looked for (a short string would redact ordinary text). */
const MIN_SECRET_CHARS = 8;

/**
 * Text with every occurrence of the given secrets (the model key, the approval hook's token)
 * replaced: the console is kept in the engine's log, where no credential belongs.
 */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= MIN_SECRET_CHARS) out = out.split(s).join('[redacted]');
  return out;
}

/** Whether a container was created with the agent console (a TTY whose stdin stays open). */
export function hasConsole(ins: { Config: { Tty?: boolean; OpenStdin?: boolean } }): boolean {
  return ins.Config.Tty === true && ins.Config.OpenStdin === true;
}

/** A bounded container log: the console of a long session must not fill the engine's disk. */
export const CONSOLE_LOG_CONFIG = { Type: 'json-file', Config: { 'max-size': '8m', 'max-file': '2' } } as const;

const BOLD_CYAN = '\x1b[1;36m';
const DIM = '\x1b[2m';
const RED = '\x1b[31m';
const YELLOW = '\x1b[33m';
const RESET = '\x1b[0m';

/** Lines of a tool result shown in the console; the transcript has the whole of it. */
const RESULT_LINES = 8;
/** A tool call's argument summary, at most this long. */
const SUMMARY_CHARS = 160;

/** The line that introduces a command (each line of a multi-line command is shown). */
export function commandHeader(command: string, cwd?: string): string {
  const lines = command.replace(/\r\n?/g, '\n').split('\n');
  const prompt = `${BOLD_CYAN}${cwd ? `${cwd} ` : ''}$ ${RESET}`;
  return `\n${prompt}${lines.join(`\n${BOLD_CYAN}> ${RESET}`)}\n`;
}

/** How a command ended, when it did not simply succeed (a success says nothing, as in a shell). */
export function commandFooter(r: { exitCode: number | null; signal: string | null; timedOut: boolean }, timeoutMs?: number): string {
  if (r.timedOut) return `${YELLOW}[timed out${timeoutMs ? ` after ${Math.round(timeoutMs / 1000)} s` : ''}; stopped]${RESET}\n`;
  if (r.exitCode === null) return `${YELLOW}[stopped${r.signal ? ` by ${r.signal}` : ''}]${RESET}\n`;
  if (r.exitCode !== 0) return `${RED}[exit ${r.exitCode}]${RESET}\n`;
  return '';
}

/** A tool call's arguments as one short line: the command, the path, the pattern, else compact JSON. */
export function toolSummary(input: unknown): string {
  let s: string;
  if (input && typeof input === 'object') {
    const o = input as Record<string, unknown>;
    const key = ['command', 'file_path', 'path', 'pattern', 'url', 'query', 'description'].find((k) => typeof o[k] === 'string');
    s = key ? String(o[key]) : JSON.stringify(o);
  } else {
    s = JSON.stringify(input) ?? '';
  }
  s = s.replace(/\s*\n\s*/g, ' ⏎ ');
  return s.length > SUMMARY_CHARS ? `${s.slice(0, SUMMARY_CHARS - 1)}…` : s;
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (Array.isArray(content)) return content.map((c) => (c && typeof c === 'object' && typeof (c as { text?: unknown }).text === 'string' ? (c as { text: string }).text : '')).join('');
  return '';
}

function clip(text: string): string {
  const lines = text.replace(/\s+$/, '').split('\n');
  const shown = lines.slice(0, RESULT_LINES).join('\n');
  return lines.length > RESULT_LINES ? `${shown}\n… ${lines.length - RESULT_LINES} more lines` : shown;
}

/** `v` with `secrets` redacted in every string it holds (keys included). */
function redactDeep(v: unknown, secrets: readonly string[]): unknown {
  if (typeof v === 'string') return redactSecrets(v, secrets);
  if (Array.isArray(v)) return v.map((x) => redactDeep(x, secrets));
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [redactSecrets(k, secrets), redactDeep(x, secrets)]));
  return v;
}

/**
 * One line of Claude Code's stream-json output as console text (empty for what a person need
 * not see: partial deltas, hook notices, malformed lines). `secrets` are redacted in the event
 * before it is rendered: a tool call's summary and a result are cut to a few characters and
 * lines, and a cut through a secret would leave its first part where no redaction finds it.
 */
export function claudeConsoleText(line: string, secrets: readonly string[] = []): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(line);
  } catch {
    return '';
  }
  if (!parsed || typeof parsed !== 'object') return '';
  const ev = (secrets.length > 0 ? redactDeep(parsed, secrets) : parsed) as Record<string, unknown>;
  const message = ev.message as { content?: unknown } | undefined;
  const blocks = Array.isArray(message?.content) ? (message.content as Array<Record<string, unknown>>) : [];
  switch (ev.type) {
    case 'system':
      if (ev.subtype !== 'init') return '';
      return `${DIM}claude started${typeof ev.model === 'string' ? ` · ${ev.model}` : ''}${typeof ev.permissionMode === 'string' ? ` · ${ev.permissionMode}` : ''}${RESET}\n`;
    case 'assistant': {
      let out = '';
      for (const b of blocks) {
        if (b.type === 'text' && typeof b.text === 'string' && b.text.trim()) out += `${b.text.replace(/\s+$/, '')}\n`;
        else if (b.type === 'tool_use') out += `${BOLD_CYAN}● ${String(b.name)}${RESET}(${toolSummary(b.input)})\n`;
      }
      return out;
    }
    case 'user': {
      let out = '';
      for (const b of blocks) {
        if (b.type !== 'tool_result') continue;
        const text = clip(resultText(b.content));
        const body = text ? text.split('\n').map((l) => `  ${l}`).join('\n') : '  (no output)';
        out += `${b.is_error === true ? RED : DIM}${body}${RESET}\n`;
      }
      return out;
    }
    case 'result': {
      const turns = typeof ev.num_turns === 'number' ? ` · ${ev.num_turns} turns` : '';
      const cost = typeof ev.total_cost_usd === 'number' ? ` · $${ev.total_cost_usd.toFixed(4)}` : '';
      if (ev.is_error === true || (typeof ev.subtype === 'string' && ev.subtype !== 'success')) return `${RED}claude ended: ${String(ev.subtype ?? 'error')}${turns}${cost}${RESET}\n`;
      return `${DIM}claude done${turns}${cost}${RESET}\n`;
    }
    default:
      return '';
  }
}
