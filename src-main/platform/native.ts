import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { join, sep } from 'node:path';
import { appRoot } from './paths';

/**
 * Native modules are compiled twice: for plain Node in node_modules (tests, browser mode,
 * CLI) and for Electron's ABI in `.electron-native/node_modules` (made by
 * `bin/electron-native.mjs` on `npm start`). Neither build overwrites the other, so the
 * tree never ends up with one of the two runtimes broken.
 */
export function requireNative<T>(name: 'better-sqlite3' | 'node-pty', opts: { root?: string; electron?: string; resourcesPath?: string } = {}): T {
  const root = opts.root ?? appRoot();
  const electron = opts.electron ?? process.versions.electron;
  if (electron) {
    const electronTree = join(root, '.electron-native', 'node_modules', name);
    // An installed app (electron-builder, see package.json "build") lives under Electron's
    // resources folder, and its one node_modules was rebuilt for Electron when it was packaged.
    const resources = opts.resourcesPath ?? (process as { resourcesPath?: string }).resourcesPath;
    if (!existsSync(electronTree) && resources && (root === resources || root.startsWith(resources + sep))) {
      return createRequire(join(root, 'package.json'))(name) as T;
    }
    if (!existsSync(electronTree)) {
      throw new Error(`${name} has not been rebuilt for Electron ${electron}; run "npm start" again.`);
    }
    return createRequire(join(root, '.electron-native', 'package.json'))(name) as T;
  }
  return createRequire(join(root, 'package.json'))(name) as T;
}
