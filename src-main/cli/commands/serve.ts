import { startBrowserHost } from '../../host/browser-host';
import { UsageError, type CliCommand } from '../command';

/** A stable default so bookmarks keep working across restarts. */
const DEFAULT_PORT = 7420;

export const serveCommand: CliCommand = {
  name: 'serve',
  summary: 'Run Flightdeck in browser mode: the UI over HTTP, bound to 127.0.0.1 by default.',
  usage: 'serve [--port N] [--host H]',
  flags: { port: true, host: true },
  async run(ctx) {
    const portFlag = ctx.flags.port;
    const port = portFlag === undefined ? DEFAULT_PORT : Number(portFlag);
    if (!Number.isInteger(port) || port < 0 || port > 65535) throw new UsageError('--port takes a number from 0 to 65535');
    const host = typeof ctx.flags.host === 'string' ? ctx.flags.host : '127.0.0.1';
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
