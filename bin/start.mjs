// `npm start`: the desktop app when Electron can run here, otherwise browser mode.
// Installs never download Electron (package.json's allowScripts denies its download script), so a
// machine without internet installs cleanly; the first start fetches the binary when it can.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { prepareElectronNative } from './electron-native.mjs';

const root = fileURLToPath(new URL('..', import.meta.url));
const electronDir = join(root, 'node_modules', 'electron');
const passthrough = process.argv.slice(2);

function electronBinary() {
  const pathFile = join(electronDir, 'path.txt');
  if (!existsSync(pathFile)) return null;
  return existsSync(join(electronDir, 'dist')) ? join(electronDir, 'dist') : null;
}

function tryInstallElectron() {
  if (!existsSync(join(electronDir, 'install.js'))) return 'the electron package is not installed';
  if (process.env.FLIGHTDECK_BROWSER_MODE === '1') return 'FLIGHTDECK_BROWSER_MODE=1';
  const r = spawnSync(process.execPath, [join(electronDir, 'install.js')], { cwd: electronDir, encoding: 'utf8', timeout: 180_000, env: { ...process.env, ELECTRON_SKIP_BINARY_DOWNLOAD: '' } });
  if (r.status === 0 && electronBinary()) return null;
  const reason = `${r.stderr ?? ''}${r.stdout ?? ''}`.match(/(ENOTFOUND|ECONNREFUSED|ETIMEDOUT|EAI_AGAIN|getaddrinfo[^\n]*|HTTPError[^\n]*)/)?.[0];
  return `its download failed${reason ? ` (${reason})` : ''}`;
}

function run(cmd, args) {
  const child = spawn(cmd, args, { cwd: root, stdio: 'inherit' });
  for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => child.kill(sig));
  child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

const build = spawnSync(process.execPath, [join(root, 'bin', 'ensure-renderer.mjs')], { stdio: 'inherit' });
if (build.status !== 0) process.exit(build.status ?? 1);

const missing = electronBinary() ? null : tryInstallElectron();
if (missing === null && prepareElectronNative()) {
  run(join(root, 'node_modules', '.bin', 'electron'), [root, ...passthrough]);
} else {
  const why = missing ?? 'its native modules could not be compiled for it';
  process.stderr.write(`Electron is not available (${why}); starting browser mode instead — open the URL below.\n`);
  run(process.execPath, [join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), join(root, 'src-main', 'cli', 'main.ts'), 'serve', ...passthrough]);
}
