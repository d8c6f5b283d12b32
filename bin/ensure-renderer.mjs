// Builds the app (renderer, preload, main) when the output is missing or older than its sources,
// so `npm run serve` and the end-to-end tests always show the current UI without a manual build.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const output = join(root, 'out', 'renderer', 'index.html');

function newest(dir) {
  let t = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    t = Math.max(t, entry.isDirectory() ? newest(p) : statSync(p).mtimeMs);
  }
  return t;
}

const sources = ['src-renderer', 'src-preload', 'src-main'].map((d) => join(root, d)).filter(existsSync);
const stale = !existsSync(output) || Math.max(...sources.map(newest), statSync(join(root, 'electron.vite.config.ts')).mtimeMs) > statSync(output).mtimeMs;
if (stale) {
  process.stderr.write('Building the Flightdeck UI…\n');
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'electron-vite', 'bin', 'electron-vite.js'), 'build'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (r.status !== 0) {
    process.stderr.write('error: the UI build failed (see above)\n');
    process.exit(r.status ?? 1);
  }
}
