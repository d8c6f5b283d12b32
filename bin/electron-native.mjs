// Compiles better-sqlite3 and node-pty for Electron's ABI into .electron-native/, leaving the
// plain-Node builds in node_modules untouched (tests, browser mode and the CLI keep working).
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const MODULES = ['better-sqlite3', 'node-pty'];

export function prepareElectronNative({ log = (m) => process.stderr.write(m + '\n') } = {}) {
  const electronVersion = JSON.parse(readFileSync(join(root, 'node_modules', 'electron', 'package.json'), 'utf8')).version;
  const target = join(root, '.electron-native');
  const stamp = join(target, 'electron-version');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === electronVersion && MODULES.every((m) => existsSync(join(target, 'node_modules', m)))) {
    return true;
  }
  mkdirSync(join(target, 'node_modules'), { recursive: true });
  writeFileSync(join(target, 'package.json'), JSON.stringify({ name: 'flightdeck-electron-native', private: true }) + '\n');
  const gyp = process.env.npm_config_node_gyp || join(process.execPath, '..', '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js');
  for (const m of MODULES) {
    log(`Compiling ${m} for Electron ${electronVersion} (once)…`);
    const dest = join(target, 'node_modules', m);
    cpSync(join(root, 'node_modules', m), dest, { recursive: true, dereference: true });
    const r = spawnSync(process.execPath, [gyp, 'rebuild', `--target=${electronVersion}`, '--runtime=electron', '--dist-url=https://electronjs.org/headers'], {
      cwd: dest,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    if (r.status !== 0) {
      log(`Could not compile ${m} for Electron.`);
      return false;
    }
  }
  writeFileSync(stamp, electronVersion + '\n');
  return true;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  process.exit(prepareElectronNative() ? 0 : 1);
}
