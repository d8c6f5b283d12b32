import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { shellHome, tempDir } from '../../support/temp';

export interface RunningHost {
  /** The full URL with the token, as printed by `serve`. */
  url: string;
  origin: string;
  dataDir: string;
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

const READY = /^Flightdeck ready at (http:\/\/\S+)$/m;

/**
 * The data folders startHost made itself. A test may start a second host on the same folder after
 * stopping the first (a restart), so they go when the worker process exits, not at stop.
 */
const madeDataDirs: Array<() => void> = [];
process.once('exit', () => {
  for (const cleanup of madeDataDirs) cleanup();
});
const root = fileURLToPath(new URL('../../..', import.meta.url));

/**
 * Starts browser mode as a user would (`npm run cli -- serve`), on a free port with a fresh data
 * folder, and waits for its ready line. Unless the test gives a HOME, its shells start in a home
 * without startup files (see shellHome): the machine's own would slow every prompt, or stall it
 * for a minute behind a lock a killed shell left.
 */
export async function startHost(opts: { dataDir?: string; env?: NodeJS.ProcessEnv; port?: number } = {}): Promise<RunningHost> {
  let data = opts.dataDir;
  if (!data) {
    const made = tempDir('fd-e2e-data-');
    madeDataDirs.push(made.cleanup);
    data = made.path;
  }
  let home = opts.env?.HOME;
  if (home === undefined) {
    const made = shellHome('fd-e2e-home-');
    madeDataDirs.push(made.cleanup);
    home = made.path;
  }
  const child = spawn(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'src-main', 'cli', 'main.ts'), 'serve', '--port', String(opts.port ?? 0), '--no-build', '--data-dir', data], {
    cwd: root,
    env: { ...process.env, ...opts.env, HOME: home },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`host did not start in time:\n${out}`)), 60_000);
    const check = () => {
      const m = READY.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`host exited with ${code}:\n${out}`));
    });
  });
  return {
    url,
    origin: new URL(url).origin,
    dataDir: data,
    process: child,
    output: () => out,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
