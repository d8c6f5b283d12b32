import { userInfo } from 'node:os';
import { childEnv, isExecutableFile as isExecutable } from '../platform/child-process';

/** The user's login shell ($SHELL, else the passwd entry), falling back to bash, then sh. */
export function defaultShell(): string {
  const candidates = [process.env.SHELL, safeUserShell(), '/bin/bash', '/bin/sh'];
  for (const c of candidates) if (c && c.startsWith('/') && isExecutable(c)) return c;
  return '/bin/sh';
}

/** The shell that runs an agent's command line: bash when present (agents write bash), else sh. */
export function commandShell(): string {
  return isExecutable('/bin/bash') ? '/bin/bash' : '/bin/sh';
}

function safeUserShell(): string | undefined {
  try {
    return userInfo().shell ?? undefined;
  } catch {
    // No passwd entry (some containers): $SHELL or the fallbacks apply.
    return undefined;
  }
}

/**
 * The environment of a terminal, built by the one environment builder (platform/child-process):
 * a shell the user opened gets the user's environment minus Flightdeck's private variables; a
 * command (an agent's, a check's) also loses model credentials. On top: what a terminal emulator
 * sets (TERM, COLORTERM) and a UTF-8 locale when none is set, so multibyte output is not mangled
 * by programs that consult the locale.
 */
export function terminalEnv(
  terminalId: string,
  extra: Record<string, string> = {},
  base: NodeJS.ProcessEnv = process.env,
  kind: 'shell' | 'command' = 'shell',
): Record<string, string> {
  const env = childEnv(kind === 'shell' ? 'user' : 'command', base);
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.TERM_PROGRAM = 'Flightdeck';
  if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) env.LANG = 'C.UTF-8';
  env.FLIGHTDECK_TERMINAL_ID = terminalId;
  return { ...env, ...extra };
}
