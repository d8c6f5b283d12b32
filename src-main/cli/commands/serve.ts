import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startBrowserHost } from '../../host/browser-host';
import { appRoot } from '../../platform/paths';
import { UsageError, type CliCommand, type CliContext } from '../command';

/** A stable default so bookmarks keep working across restarts. */
const DEFAULT_PORT = 7420;

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Run Flightdeck in browser mode: the UI over HTTP, bound to 127.0.0.1 by default.',
  usage: 'serve [--port N] [--host H] [--no-build]',
  flags: { port: true, host: true, 'no-build': false },
  async run(ctx) {
    const portFlag = ctx.flags.port;
    const port = portFlag === undefined ? DEFAULT_PORT : Number(portFlag);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes a number from 0 to 65535');
    const host = typeof ctx.flags.host === 'string' ? ctx.flags.host : '127.0.0.1';
    if (ctx.flags['no-build'] !== true && !ensureUi(ctx)) return 1;
    const app = await ctx.openApp();
    const server = await startBrowserHost(app, { host, port }).catch((e: unknown) => {
      // The default port being taken (a second instance) is not worth failing over: pick a free one.
      if (portFlag === undefined && (e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
        ctx.logger.warn(`port ${DEFAULT_PORT} is in use; using a free port instead`);
        return startBrowserHost(app, { host, port: 0 });
      }
      throw e;
    });
    ctx.out(`Flightdeck ready at ${server.url}`);
    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: string) => {
        if (stopping) return;
        stopping = true;
        ctx.logger.info(`received ${signal}, shutting down`);
        process.off('SIGINT', onInt);
        process.off('SIGTERM', onTerm);
        void server.close().then(resolve);
      };
      const onInt = () => stop('SIGINT');
      const onTerm = () => stop('SIGTERM');
      process.on('SIGINT', onInt);
      process.on('SIGTERM', onTerm);
      // The terminal closed (SIGHUP) or stdout lost its reader: shut down cleanly, as for SIGTERM.
      if (ctx.signal.aborted) stop(String(ctx.signal.reason));
      else ctx.signal.addEventListener('abort', () => stop(String(ctx.signal.reason)), { once: true });
    });
    return 0;
  },
};

/**
 * A fresh checkout has no built UI: `serve` builds it first (as `npm run serve` and `npm start`
 * do) instead of serving a page that says it is missing. Where the build tool is not installed
 * the command says which command builds it. `--no-build` serves whatever is there (the API alone
 * when nothing is), for scripts that only speak the contract.
 */
export function ensureUi(ctx: Pick<CliContext, 'err'>, root = appRoot()): boolean {
  if (existsSync(join(root, 'out', 'renderer', 'index.html'))) return true;
  const builder = join(root, 'bin', 'ensure-renderer.mjs');
  if (!existsSync(builder) || !existsSync(join(root, 'node_modules', 'electron-vite'))) {
    ctx.err(`error: the Flightdeck UI is not built. Run "npm install && npm run build" in ${root}, then serve again (or serve --no-build for the API alone).`);
    return false;
  }
  // The builder says "Building the Flightdeck UI…" and the build's errors on stderr.
  const r = spawnSync(process.execPath, [builder], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  if (r.status === 0 && existsSync(join(root, 'out', 'renderer', 'index.html'))) return true;
  ctx.err(`error: building the Flightdeck UI failed (exit ${r.status ?? r.signal}); run "npm run build" in ${root} to see why.`);
  return false;
}
