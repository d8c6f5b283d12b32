import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import picomatch from 'picomatch';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import viteConfig from '../../../electron.vite.config';
import { requireNative } from '../../../src-main/platform/native';

/**
 * The installers cannot be built here (electron-builder downloads Electron for each platform),
 * so their configuration is checked for what a broken one would get wrong: missing targets,
 * the app's bundles left out, native modules packed where they cannot load, publishing.
 */
const root = fileURLToPath(new URL('../../..', import.meta.url));
interface Pkg {
  main: string;
  scripts: Record<string, string>;
  devDependencies: Record<string, string>;
  allowScripts: Record<string, boolean>;
  build: {
    appId: string;
    productName: string;
    directories: { output: string };
    files: string[];
    asar: boolean;
    asarUnpack: string[];
    linux: { target: string[] };
    mac: { target: string[] };
    win: { target: string[] };
    publish: unknown;
  };
}
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as Pkg;
const build = pkg.build;

/** electron-builder's `files` semantics: included by a pattern, not excluded by a later `!pattern`. */
function packed(path: string): boolean {
  let included = false;
  for (const p of build.files) {
    if (p.startsWith('!')) {
      if (picomatch(p.slice(1), { dot: true })(path)) included = false;
    } else if (picomatch(p, { dot: true })(path)) included = true;
  }
  return included;
}

describe('installer configuration (package.json "build")', () => {
  it('builds AppImage and deb on Linux, dmg on macOS and NSIS on Windows, and publishes nothing', () => {
    expect(build.appId).toMatch(/^[a-z0-9.-]+$/);
    expect(build.productName).toBe('Flightdeck');
    expect(build.linux.target).toEqual(expect.arrayContaining(['AppImage', 'deb']));
    expect(build.mac.target).toEqual(expect.arrayContaining(['dmg']));
    expect(build.win.target).toEqual(expect.arrayContaining(['nsis']));
    expect(build.publish).toBeNull();
    expect(readFileSync(join(root, '.gitignore'), 'utf8').split('\n')).toContain(`${build.directories.output}/`);
  });

  it('packs the built app (main, pty host, preload, renderer) and no sources or tests', () => {
    const entries = Object.keys(viteConfig.main?.build?.rollupOptions?.input as Record<string, string>);
    // The terminal service starts out/main/pty-host.js next to Electron's main bundle; the
    // containers service copies its two bridges into containers (exec and Claude Code); the
    // feature index parses bursts of state files in out/main/state-parse-worker.js.
    expect(entries.sort()).toEqual(['claude-in-container', 'container-exec', 'index', 'pty-host', 'state-parse-worker']);
    expect(pkg.main).toBe('out/main/index.js');
    for (const path of ['out/main/index.js', 'out/main/pty-host.js', 'out/main/chunks/host-terminal-x.js', 'out/preload/index.cjs', 'out/renderer/index.html', 'out/renderer/assets/index-x.js', 'out/main/container-exec.js', 'out/main/claude-in-container.js', 'out/main/state-parse-worker.js', 'resources/prompts/run/dev_phase.j2', 'resources/prompts/plan/system.j2', 'resources/docker/agent/Dockerfile', 'package.json']) {
      expect(packed(path), path).toBe(true);
    }
    for (const path of ['src-main/electron/main.ts', 'test/unit/electron/main.test.ts', 'docs/architecture.md', 'out/main/index.js.map', '.electron-native/node_modules/node-pty/build/Release/pty.node']) {
      expect(packed(path), path).toBe(false);
    }
  });

  it('keeps the native modules outside the asar archive, where they can be loaded', () => {
    expect(build.asar).toBe(true);
    const unpacked = picomatch(build.asarUnpack, { dot: true });
    expect(unpacked('node_modules/better-sqlite3/build/Release/better_sqlite3.node')).toBe(true);
    expect(unpacked('node_modules/node-pty/build/Release/pty.node')).toBe(true);
    expect(unpacked('node_modules/node-pty/lib/index.js')).toBe(true);
    expect(unpacked('node_modules/zod/index.js')).toBe(false);
  });

  it('an installed app loads the native modules electron-builder rebuilt, in its own node_modules', () => {
    // Packaged: the app root is inside Electron's resources folder and has no .electron-native.
    const Database = requireNative<new (f: string) => { close(): void }>('better-sqlite3', { root, electron: '41.7.1', resourcesPath: dirname(root) });
    new Database(':memory:').close();
    // Not packaged (a checkout run by `npm start`): only the .electron-native copy will do.
    expect(() => requireNative('better-sqlite3', { root, electron: '41.7.1', resourcesPath: join(root, 'node_modules', 'electron', 'dist', 'resources') })).toThrow(/rebuilt for Electron/);
  });

  it('`npm run dist` builds first, then runs the pinned electron-builder without publishing', () => {
    expect(pkg.scripts.dist).toBe('node bin/dist.mjs');
    const script = readFileSync(join(root, 'bin', 'dist.mjs'), 'utf8');
    expect(script).toMatch(/electron-vite[\s\S]*build[\s\S]*electron-builder[\s\S]*'--publish', 'never'/);
    expect(pkg.devDependencies['electron-builder']).toMatch(/^\d+\.\d+\.\d+$/);
    const installed = JSON.parse(readFileSync(join(root, 'node_modules', 'electron-builder', 'package.json'), 'utf8')) as { version: string };
    expect(installed.version).toBe(pkg.devDependencies['electron-builder']);
  });

  it('every package with an install script is reviewed in allowScripts (npm ci stays offline-safe)', () => {
    const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { hasInstallScript?: boolean }> };
    const withScripts = Object.entries(lock.packages)
      .filter(([, p]) => p.hasInstallScript)
      .map(([path]) => path.slice(path.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(withScripts.length).toBeGreaterThan(0);
    for (const name of withScripts) expect(pkg.allowScripts, name).toHaveProperty([name]);
    // Downloads at install time are denied: Electron's binary, the Squirrel installer's tools.
    expect(pkg.allowScripts.electron).toBe(false);
    expect(pkg.allowScripts['electron-winstaller']).toBe(false);
  });
});

describe('release workflow', () => {
  const wf = parse(readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8')) as {
    on: { push: { tags: string[] } };
    jobs: Record<string, { strategy: { matrix: { os: string[] } }; 'runs-on': string; steps: Array<{ uses?: string; run?: string; with?: Record<string, unknown> }> }>;
  };
  const job = Object.values(wf.jobs)[0]!;

  it('runs on a version tag, on Linux, macOS and Windows', () => {
    expect(wf.on.push.tags).toEqual(['v*']);
    expect(job['runs-on']).toBe('${{ matrix.os }}');
    expect(job.strategy.matrix.os.map((o) => o.split('-')[0]).sort()).toEqual(['macos', 'ubuntu', 'windows']);
  });

  it('installs exactly as locked, builds the installers and uploads them', () => {
    const runs = job.steps.map((s) => s.run ?? s.uses ?? '');
    const at = (re: RegExp) => runs.findIndex((r) => re.test(r));
    expect(at(/^actions\/checkout@/)).toBeGreaterThanOrEqual(0);
    expect(at(/^npm ci\b/)).toBeGreaterThan(at(/^actions\/setup-node@/));
    expect(at(/^npm run dist$/)).toBeGreaterThan(at(/^npm ci\b/));
    const upload = job.steps.find((s) => s.uses?.startsWith('actions/upload-artifact@'));
    expect(String(upload?.with?.path)).toMatch(/AppImage[\s\S]*deb[\s\S]*dmg[\s\S]*exe/);
    const node = job.steps.find((s) => s.uses?.startsWith('actions/setup-node@'));
    expect(Number(node?.with?.['node-version'])).toBeGreaterThanOrEqual(22);
  });
});
