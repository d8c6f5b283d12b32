import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { appRoot } from '../../../src-main/platform/paths';
import { waitFor } from '../../support/processes';
import { shellHome } from '../../support/temp';

export interface HostProcess {
  /** The pid of the Node process that runs the app (not a wrapper). */
  pid: number;
  port: number;
  token: string;
  origin: string;
  process: ChildProcess;
  output(): string;
  /** Resolves when the process has exited. */
  exited: Promise<void>;
  stop(): Promise<void>;
}

const READY = /Flightdeck ready at (http:\/\/\S+)/;

/**
 * Browser mode as a real process, started as `node --import tsx src-main/cli/main.ts serve`
 * (no tsx CLI wrapper in between, so a signal sent to `pid` reaches the app itself). Unless the
 * test gives a HOME, its user shells start in a home without startup files (see shellHome).
 */
export async function startHostProcess(o: { dataDir: string; env?: NodeJS.ProcessEnv; token?: string }): Promise<HostProcess> {
  const root = appRoot();
  const home = o.env?.HOME === undefined ? shellHome('fd-host-home-') : null;
  const token = o.token ?? `hardening-token-${Math.random().toString(36).slice(2)}`;
  const loader = pathToFileURL(join(root, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
  const child = spawn(process.execPath, ['--import', loader, join(root, 'src-main', 'cli', 'main.ts'), 'serve', '--port', '0', '--no-build', '--data-dir', o.dataDir], {
    cwd: root,
    env: { ...process.env, ...(home && { HOME: home.path }), ...o.env, FLIGHTDECK_TOKEN: token },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (home) child.once('exit', () => home.cleanup());
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the host did not start in time:\n${out}`)), 90_000);
    const check = () => {
      const m = READY.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(m[1]!);
      }
    };
    child.stdout!.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the host exited with ${code}:\n${out}`));
    });
  });
  const u = new URL(url);
  return {
    pid: child.pid!,
    port: Number(u.port),
    token,
    origin: u.origin,
    process: child,
    output: () => out,
    exited,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      return exited;
    },
  };
}

/** GET /healthz: the status code, or an error after `timeoutMs`. */
export function healthz(origin: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = get(`${origin}/healthz`, (res) => {
      res.resume();
      resolve(res.statusCode!);
    });
    req.setTimeout(timeoutMs, () => req.destroy(new Error(`/healthz did not answer within ${timeoutMs} ms`)));
    req.on('error', reject);
  });
}

export interface ProcInfo {
  pid: number;
  ppid: number;
  state: string;
  comm: string;
  cmdline: string;
}

/** Every process on the machine from /proc (zombies included; see `running`). */
export function processes(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmdline = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').join(' ').trim();
      out.push({ pid: Number(name), ppid: Number(fields[1]), state: fields[0]!, comm, cmdline });
    } catch {
      // Ended while we looked.
    }
  }
  return out;
}

/** Running (not zombie) processes whose command line contains `marker`. */
export function running(marker: string): ProcInfo[] {
  return processes().filter((p) => p.state !== 'Z' && p.state !== 'X' && p.cmdline.includes(marker) && p.pid !== process.pid);
}

export { isAlive as isRunning } from '../../support/processes';

/** `waitFor` with this folder's defaults: a whole host process is slower than an in-process app. */
export function until<T>(fn: () => T | undefined | null | false | Promise<T | undefined | null | false>, what: string, timeoutMs = 30_000, everyMs = 50): Promise<T> {
  return waitFor(fn, what, timeoutMs, everyMs);
}
