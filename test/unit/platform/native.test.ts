import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { requireNative } from '../../../src-main/platform/native';
import { tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

describe('requireNative', () => {
  it('loads the plain-Node build under Node', () => {
    const Database = requireNative<new (f: string) => { close(): void }>('better-sqlite3');
    const db = new Database(':memory:');
    db.close();
  });

  it('under Electron, loads only the Electron-ABI copy and never the Node build', () => {
    const root = tempDir();
    cleanups.push(root.cleanup);
    writeFileSync(join(root.path, 'package.json'), '{}');
    expect(() => requireNative('node-pty', { root: root.path, electron: '41.7.1' })).toThrow(/rebuilt for Electron 41\.7\.1.*npm start/);
    const mod = join(root.path, '.electron-native', 'node_modules', 'node-pty');
    mkdirSync(mod, { recursive: true });
    writeFileSync(join(root.path, '.electron-native', 'package.json'), '{}');
    writeFileSync(join(mod, 'package.json'), JSON.stringify({ name: 'node-pty', main: 'index.js' }));
    writeFileSync(join(mod, 'index.js'), "module.exports = { abi: 'electron' };");
    expect(requireNative<{ abi: string }>('node-pty', { root: root.path, electron: '41.7.1' })).toEqual({ abi: 'electron' });
  });
});
