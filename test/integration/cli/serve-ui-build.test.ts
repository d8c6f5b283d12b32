import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ensureUi } from '../../../src-main/cli/commands/serve';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

/** A checkout-shaped folder: package.json, and the builder when `builder` is its script's text. */
function checkout(builder?: string): string {
  const d = tempDir('fd-serve-ui-');
  cleanups.push(d.cleanup);
  writeFileSync(join(d.path, 'package.json'), '{}');
  if (builder !== undefined) {
    mkdirSync(join(d.path, 'bin'));
    mkdirSync(join(d.path, 'node_modules', 'electron-vite'), { recursive: true });
    writeFileSync(join(d.path, 'bin', 'ensure-renderer.mjs'), builder);
  }
  return d.path;
}

describe('serve from a fresh checkout', () => {
  it('builds the missing UI before serving, with the real builder script run as a process', () => {
    const root = checkout(
      "import { mkdirSync, writeFileSync } from 'node:fs';\nmkdirSync('out/renderer', { recursive: true });\nwriteFileSync('out/renderer/index.html', '<!doctype html>');\n",
    );
    const err: string[] = [];
    expect(ensureUi({ err: (l) => err.push(l) }, root)).toBe(true);
    expect(existsSync(join(root, 'out', 'renderer', 'index.html'))).toBe(true);
    expect(err).toEqual([]);
  });

  it('says which command builds it where the build tool is not installed, and when the build fails', () => {
    const bare = checkout();
    const err: string[] = [];
    expect(ensureUi({ err: (l) => err.push(l) }, bare)).toBe(false);
    expect(err[0]).toBe(`error: the Flightdeck UI is not built. Run "npm install && npm run build" in ${bare}, then serve again (or serve --no-build for the API alone).`);

    const failing = checkout('process.exit(3);\n');
    err.length = 0;
    expect(ensureUi({ err: (l) => err.push(l) }, failing)).toBe(false);
    expect(err[0]).toBe(`error: building the Flightdeck UI failed (exit 3); run "npm run build" in ${failing} to see why.`);
  });

  it('leaves a built UI alone', () => {
    const root = checkout('process.exit(9);\n');
    mkdirSync(join(root, 'out', 'renderer'), { recursive: true });
    writeFileSync(join(root, 'out', 'renderer', 'index.html'), 'built');
    expect(ensureUi({ err: () => undefined }, root)).toBe(true);
  });
});
