// `npm run dist`: the installers for this platform (AppImage and deb on Linux, dmg on macOS, an
// NSIS installer on Windows) in dist/, from the configuration in package.json's "build" key.
// Extra arguments go to electron-builder (e.g. `npm run dist -- --linux deb`). Nothing is
// published; the release workflow (.github/workflows/release.yml) uploads what this makes.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function step(what, cmd, args) {
  process.stderr.write(`\n> ${what}\n`);
  const r = spawnSync(cmd, args, { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' && cmd === npm });
  return r.status ?? 1;
}

let status = step('electron-vite build', process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build']);
if (status === 0) {
  status = step('electron-builder', process.execPath, [join(root, 'node_modules', 'electron-builder', 'cli.js'), '--publish', 'never', ...process.argv.slice(2)]);
  // electron-builder rebuilds the native modules in node_modules for Electron; put the plain-Node
  // builds back so tests, browser mode and the CLI keep working on this machine.
  const restored = step('restoring the Node builds of the native modules', npm, ['rebuild', 'better-sqlite3', 'node-pty']);
  if (status === 0) status = restored;
}
process.exit(status);
