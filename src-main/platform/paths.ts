import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { existsSync } from 'node:fs';

/**
 * The data folder: `--data-dir`, else `FLIGHTDECK_DATA_DIR`, else the platform default
 * (Electron passes its userData folder; plain Node uses XDG's data home).
 */
export function resolveDataDir(opts: { flag?: string; electronUserData?: string } = {}): string {
  if (opts.flag) return resolve(opts.flag);
  if (process.env.FLIGHTDECK_DATA_DIR) return resolve(process.env.FLIGHTDECK_DATA_DIR);
  if (opts.electronUserData) return opts.electronUserData;
  const xdg = process.env.XDG_DATA_HOME;
  return join(xdg && xdg.length > 0 ? xdg : join(homedir(), '.local', 'share'), 'flightdeck');
}

/** The repository / app root (where package.json lives), from any source or bundled file. */
export function appRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    dir = dirname(dir);
  }
  return process.cwd();
}
