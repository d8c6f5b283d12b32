import { parseArgs } from 'node:util';
import { AppError } from '../../src-preload/contract';
import { AppServices } from '../app/services';
import { appVersion } from '../app/version';
import { createLogger } from '../platform/logger';
import { resolveDataDir } from '../platform/paths';
import { UsageError, type CliCommand, type CliContext } from './command';
import { COMMANDS } from './commands';
import { EXIT_BROKEN_PIPE, guardStdio } from './stdio';

function help(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    `flightdeck ${appVersion()} — a control center for AI coding agents`,
    '',
    'Usage: flightdeck <command> [args] [--data-dir DIR] [--json]',
    '',
    'Commands:',
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}\n  ${' '.repeat(width)}  ${c.usage}`),
    '',
    'Global options:',
    '  --data-dir DIR  data folder (default: $FLIGHTDECK_DATA_DIR, else ~/.local/share/flightdeck)',
    '  --json          machine-readable output',
    '  --help          this help',
  ].join('\n');
}

/** Runs one CLI invocation and returns its exit code; never throws. */
export interface CliIo {
  out(line: string): void;
  err(line: string): void;
}

export async function runCli(argv: string[], io: CliIo, signal: AbortSignal = new AbortController().signal): Promise<number> {
  const name = argv.find((a) => !a.startsWith('-'));
  const command: CliCommand | undefined = COMMANDS.find((c) => c.name === name);
  if (!name || argv.includes('--help') || argv.includes('-h')) {
    io.out(help());
    return name && !command ? 2 : 0;
  }
  if (!command) {
    io.err(`error: unknown command "${name}" (see flightdeck --help)`);
    return 2;
  }
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean }> = {
    'data-dir': { type: 'string' },
    json: { type: 'boolean' },
  };
  for (const [flag, takesValue] of Object.entries(command.flags ?? {})) options[flag] = takesValue === 'multiple' ? { type: 'string', multiple: true } : { type: takesValue ? 'string' : 'boolean' };
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (e) {
    io.err(`error: ${(e as Error).message.split('\n')[0]}\nusage: flightdeck ${command.usage}`);
    return 2;
  }
  const positionals = parsed.positionals.slice(parsed.positionals.indexOf(name) + 1);
  const flags = parsed.values as Record<string, string | boolean | string[] | undefined>;
  const dataDir = resolveDataDir({ flag: typeof flags['data-dir'] === 'string' ? flags['data-dir'] : undefined });
  const logger = createLogger({ level: (process.env.FLIGHTDECK_LOG_LEVEL as 'info' | undefined) ?? (command.name === 'serve' ? 'info' : 'warn') });
  let app: AppServices | undefined;
  const ctx: CliContext = {
    args: positionals,
    flags,
    json: flags.json === true,
    dataDir,
    logger,
    out: io.out,
    err: io.err,
    signal,
    async openApp() {
      app ??= await AppServices.create({ dataDir, logger, platform: { runtime: 'browser' } });
      return app;
    },
  };
  try {
    return await command.run(ctx);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`error: ${e.message}\nusage: flightdeck ${command.usage}`);
      return 2;
    }
    if (e instanceof AppError) {
      io.err(ctx.json ? JSON.stringify({ error: e.toShape() }) : `error: ${e.message}`);
      return 1;
    }
    io.err(`error: ${e instanceof Error ? e.message : String(e)}`);
    logger.debug('unexpected failure', { error: e });
    return 1;
  } finally {
    app?.dispose();
  }
}

/** The package.json scripts that run this CLI (`npm run cli -- …`, `npm run serve`). */
const CLI_SCRIPTS = new Set(['cli', 'serve']);

/**
 * Where the user typed the command, when npm moved us away from it. `npm run cli` (or
 * `npm --prefix ~/flightdeck run cli` from a repository) runs the script in Flightdeck's own
 * folder and keeps the caller's in INIT_CWD; without this, `--repo .`, `--cwd .` and every
 * relative path named Flightdeck's folder instead of the user's. Only for our own scripts:
 * a test runner's INIT_CWD (npm test) says nothing about where a spawned CLI should work.
 */
export function callerDirectory(env: NodeJS.ProcessEnv, cwd: string): string | null {
  const init = env.INIT_CWD;
  if (!init || !CLI_SCRIPTS.has(env.npm_lifecycle_event ?? '') || init === cwd) return null;
  return init;
}

/**
 * The CLI as a process (`bin/flightdeck.mjs`, `tsx src-main/cli/main.ts`): the standard streams
 * guarded so a reader that goes away (`… | head`, a closed terminal) stops the command quietly
 * with exit code 141 instead of an uncaught EPIPE. SIGHUP (its terminal closed) asks the
 * command to stop the same way, instead of Node's default of dying on the spot — which would
 * skip every cleanup (a running turn, a `claude` process group, temporary folders).
 */
export async function runCliProcess(argv: string[]): Promise<number> {
  const caller = callerDirectory(process.env, process.cwd());
  if (caller !== null) {
    try {
      process.chdir(caller);
    } catch {
      // The caller's folder is gone or unreadable: relative paths then name Flightdeck's own
      // folder, as they did before, and the command's own checks report what is missing.
    }
  }
  const stop = new AbortController();
  const io = guardStdio(() => stop.abort('EPIPE on stdout'));
  const onHangup = () => stop.abort('SIGHUP');
  process.on('SIGHUP', onHangup);
  try {
    const code = await runCli(argv, io, stop.signal);
    return io.stdoutClosed ? EXIT_BROKEN_PIPE : code;
  } finally {
    process.off('SIGHUP', onHangup);
  }
}

const isEntry = process.argv[1] && /cli[\\/]main\.(ts|js|mjs)$/.test(process.argv[1]);
if (isEntry) {
  void runCliProcess(process.argv.slice(2)).then((code) => {
    process.exitCode = code;
  });
}
