import { chmodSync, existsSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { backupPath, chooseSecretStore, FileSecretStore, SafeStorageSecretStore, type SafeStorageLike } from '../../../src-main/agents/provider/secrets';
import { NODE_IO, type AtomicFileIo } from '../../../src-main/platform/atomic-file';
import { runCli } from '../../../src-main/cli/main';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';
import { harness, PRICES, type Harness } from './harness';

/**
 * Issue 8 item 6: a damaged key file must not lose keys. It is reported (naming the file),
 * never overwritten; every rewrite is atomic and keeps a backup of the version before it.
 */
const cleanups: Array<() => unknown> = [];
let h: Harness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0)) await c();
});

const ctx = { origin: 'test' as const, connectionId: 't' };
const KEYS = { one: 'sk-one-0123456789abcdef', two: 'sk-two-0123456789abcdef', three: 'sk-three-0123456789abcdef' };

function profile(name: string, apiKey?: string): Record<string, unknown> {
  return { name, label: name, preset: 'custom', baseUrl: 'http://127.0.0.1:9/x', model: 'm', maxTokens: 1_000, contextWindow: 100_000, prices: PRICES, ...(apiKey ? { apiKey } : {}) };
}

function data(): string {
  const d = tempDir('fd-secrets-');
  cleanups.push(() => d.cleanup());
  return d.path;
}

/** Files in the folder other than the key file and its backup (temporary files left behind). */
function strays(dir: string): string[] {
  return readdirSync(dir).filter((f) => f.includes('secrets') && !['secrets.json', 'secrets.json.bak'].includes(f));
}

/** A reversible stand-in for Electron's safeStorage. */
const fakeSafe = (tag: string): SafeStorageLike => ({
  isEncryptionAvailable: () => true,
  encryptString: (s) => Buffer.from(`${tag}:${s}`),
  decryptString: (b) => {
    const s = b.toString();
    if (!s.startsWith(`${tag}:`)) throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.');
    return s.slice(tag.length + 1);
  },
});

describe('a truncated key file', () => {
  it('is reported on every profile (over the bridge and by the CLI), refuses saves and keeps its bytes', async () => {
    const dir = data();
    const { app } = await startTestApp(dir);
    cleanups.push(() => app.dispose());
    for (const [name, key] of Object.entries(KEYS)) expect(await app.router.dispatch('agents.profiles.save', profile(name, key), ctx)).toMatchObject({ ok: true });
    const file = join(dir, 'secrets.json');
    const whole = readFileSync(file);
    truncateSync(file, Math.floor(whole.length / 2));
    const damaged = readFileSync(file);

    const list = (await app.router.dispatch('agents.profiles.list', {}, ctx)) as { ok: true; value: Array<{ name: string; apiKeySet: boolean; apiKeySource: string; apiKeyProblem?: string }> };
    expect(list.ok).toBe(true);
    for (const name of Object.keys(KEYS)) {
      const p = list.value.find((x) => x.name === name)!;
      expect(p).toMatchObject({ apiKeySet: false, apiKeySource: 'unreadable' });
      expect(p.apiKeyProblem).toContain(file);
      expect(p.apiKeyProblem).toMatch(/cannot be read: it is not valid JSON/);
    }

    // The CLI says so too, once, naming the file.
    const out: string[] = [];
    expect(await runCli(['profiles', 'list', '--data-dir', dir], { out: (l) => out.push(l), err: () => undefined })).toBe(0);
    expect(out.join('\n')).toMatch(/^ {2}one\s.*\(key store unreadable;/m);
    expect(out.filter((l) => l.includes(`${file} cannot be read`))).toHaveLength(1);

    // Saving a new key is refused with the same clear reason, and nothing is overwritten.
    const saved = (await app.router.dispatch('agents.profiles.save', profile('four', 'sk-four-0123456789abcdef'), ctx)) as { ok: false; error: { code: string; message: string } };
    expect(saved.ok).toBe(false);
    expect(saved.error.code).toBe('unavailable');
    expect(saved.error.message).toContain(file);
    expect(app.agents.profiles.get('four')).toBeNull();
    expect(() => app.agents.profiles.setApiKey('one', null)).toThrow(AppError);
    expect(() => app.agents.profiles.remove('two')).toThrow(/cannot be read/);
    expect(app.agents.profiles.get('two')).not.toBeNull();
    expect(readFileSync(file).equals(damaged)).toBe(true);
    expect(strays(dir)).toEqual([]);

    // Repaired from the backup of the last rewrite, all three keys are back.
    writeFileSync(file, readFileSync(backupPath(file)));
    const before = new FileSecretStore(file);
    expect(Object.keys(KEYS).filter((n) => before.get(`provider:${n}`) !== null)).toEqual(['one', 'two']);
    writeFileSync(file, whole);
    expect(app.agents.profiles.list().filter((p) => p.apiKeySource === 'stored').map((p) => p.name)).toEqual(['one', 'two', 'three']);
  });

  it('a turn on a profile whose key cannot be read stops with that reason, not "no key" or an internal error', async () => {
    h = await harness([{ blocks: [{ type: 'text', text: 'never sent' }] }]);
    writeFileSync(join(h.dataDir, 'secrets.json'), '{"provider:scripted": "sk-');
    const id = h.session();
    const r = await h.app.agents.run(id, 'hello');
    expect(r.outcome).toBe('failed');
    expect(r.message).toContain(join(h.dataDir, 'secrets.json'));
    expect(r.message).toMatch(/cannot be read/);
    expect(h.server.mainRequests()).toHaveLength(0);
  });

  for (const [what, content] of [
    ['empty', ''],
    ['an array', '["sk-1"]'],
    ['not a map of strings', '{"provider:a": 42}'],
  ] as const) {
    it(`a key file that is ${what} is unreadable, not empty`, () => {
      const file = join(data(), 'secrets.json');
      writeFileSync(file, content);
      const store = new FileSecretStore(file);
      expect(store.problem()).toContain(file);
      expect(() => store.get('provider:a')).toThrow(AppError);
      expect(() => store.set('provider:b', 'x')).toThrow(/cannot be read/);
      expect(readFileSync(file, 'utf8')).toBe(content);
    });
  }

  it('an unreadable key file (permission denied) says so', () => {
    if (process.getuid?.() === 0) return; // root reads any file: the condition cannot be produced
    const file = join(data(), 'secrets.json');
    writeFileSync(file, '{}', { mode: 0o600 });
    chmodSync(file, 0o000);
    const store = new FileSecretStore(file);
    expect(store.problem()).toMatch(/cannot be read: permission denied/);
    expect(() => store.set('provider:a', 'x')).toThrow(/permission denied/);
    chmodSync(file, 0o600);
  });
});

describe('writes', () => {
  it('every rewrite is atomic, 0600, and keeps the previous version as a 0600 backup', () => {
    const dir = data();
    const file = join(dir, 'secrets.json');
    const store = new FileSecretStore(file);
    store.set('provider:one', KEYS.one);
    expect(existsSync(backupPath(file))).toBe(false);
    const first = readFileSync(file);
    store.set('provider:two', KEYS.two);
    expect(readFileSync(backupPath(file)).equals(first)).toBe(true);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({ 'provider:one': KEYS.one, 'provider:two': KEYS.two });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(backupPath(file)).mode & 0o777).toBe(0o600);
    store.delete('provider:one');
    expect(JSON.parse(readFileSync(backupPath(file), 'utf8'))).toEqual({ 'provider:one': KEYS.one, 'provider:two': KEYS.two });
    expect(store.get('provider:one')).toBeNull();
    expect(store.get('provider:two')).toBe(KEYS.two);
    expect(strays(dir)).toEqual([]);
  });

  it('a crash between writing and renaming (the rename fails) leaves the old file intact and no temporary file', () => {
    const dir = data();
    const file = join(dir, 'secrets.json');
    new FileSecretStore(file).set('provider:one', KEYS.one);
    new FileSecretStore(file).set('provider:two', KEYS.two);
    const before = readFileSync(file);
    const renames: string[] = [];
    const io: AtomicFileIo = {
      ...NODE_IO,
      renameSync: (from, to) => {
        renames.push(String(to));
        if (to === file) throw Object.assign(new Error('EIO: i/o error, rename'), { code: 'EIO' });
        NODE_IO.renameSync(from, to);
      },
    };
    const store = new FileSecretStore(file, { io });
    expect(() => store.set('provider:three', KEYS.three)).toThrow(/could not be saved .*The keys stored before are unchanged/);
    expect(renames).toEqual([backupPath(file), file]);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(new FileSecretStore(file).get('provider:one')).toBe(KEYS.one);
    expect(strays(dir)).toEqual([]);
  });

  it('a failed fsync (disk error) also leaves the old file as it was', () => {
    const dir = data();
    const file = join(dir, 'secrets.json');
    new FileSecretStore(file).set('provider:one', KEYS.one);
    const before = readFileSync(file);
    let calls = 0;
    const io: AtomicFileIo = {
      ...NODE_IO,
      fsyncSync: (fd) => {
        // The backup's write succeeds; the key file's own fsync fails like a full disk.
        if (++calls === 3) throw Object.assign(new Error('ENOSPC: no space left on device, fsync'), { code: 'ENOSPC' });
        NODE_IO.fsyncSync(fd);
      },
    };
    expect(() => new FileSecretStore(file, { io }).set('provider:two', KEYS.two)).toThrow(/the disk is full/);
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(strays(dir)).toEqual([]);
  });
});

describe('the safeStorage store', () => {
  it('a key the keychain cannot decrypt is reported for its profile; the others stay; a new key replaces it', () => {
    const dir = data();
    const file = join(dir, 'secrets.enc.json');
    new SafeStorageSecretStore(file, fakeSafe('old')).set('provider:one', KEYS.one);
    const store = new SafeStorageSecretStore(file, fakeSafe('new'));
    store.set('provider:two', KEYS.two);
    expect(() => store.get('provider:one')).toThrow(/cannot be decrypted/);
    expect(store.get('provider:two')).toBe(KEYS.two);
    store.set('provider:one', KEYS.three);
    expect(store.get('provider:one')).toBe(KEYS.three);
  });

  it('a truncated encrypted key file is unreadable and never overwritten', () => {
    const dir = data();
    const file = join(dir, 'secrets.enc.json');
    const store = new SafeStorageSecretStore(file, fakeSafe('k'));
    store.set('provider:one', KEYS.one);
    store.set('provider:two', KEYS.two);
    truncateSync(file, 10);
    const damaged = readFileSync(file);
    expect(store.problem()).toContain(file);
    expect(() => store.set('provider:three', KEYS.three)).toThrow(/cannot be read/);
    expect(readFileSync(file).equals(damaged)).toBe(true);
  });

  it('encrypted keys while the keychain is unavailable are unreadable, not missing', () => {
    const dir = data();
    chooseSecretStore(dir, fakeSafe('k')).set('provider:one', KEYS.one);
    const locked = chooseSecretStore(dir, { ...fakeSafe('k'), isEncryptionAvailable: () => false });
    expect(locked.kind).toBe('file');
    expect(() => locked.get('provider:one')).toThrow(/keychain is not available/);
    expect(locked.get('provider:other')).toBeNull();
  });
});
