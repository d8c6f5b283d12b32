import { accessSync, constants, statSync } from 'node:fs';
import { userInfo } from 'node:os';
import { isAppPrivateEnv } from '../platform/private-env';


function isExecutable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

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
 * The environment of a terminal: the app's own, minus Flightdeck's private variables, plus what
 * a terminal emulator sets (TERM, COLORTERM) and a UTF-8 locale when none is set, so multibyte
 * output is not mangled by programs that consult the locale.
 */
export function terminalEnv(terminalId: string, extra: Record<string, string> = {}, base: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(base)) if (v !== undefined && !isAppPrivateEnv(k)) env[k] = v;
  env.TERM = 'xterm-256color';
  env.COLORTERM = 'truecolor';
  env.TERM_PROGRAM = 'Flightdeck';
  if (!env.LANG && !env.LC_ALL && !env.LC_CTYPE) env.LANG = 'C.UTF-8';
  env.FLIGHTDECK_TERMINAL_ID = terminalId;
  return { ...env, ...extra };
}
