/**
 * Where API keys live. Never logged, never sent to the renderer: callers get a key only to
 * build a request in main. The Electron glue can hand in a `SafeStorageLike` (Electron's
 * safeStorage) so keys are encrypted by the OS keychain; plain Node uses a 0600 file.
 */
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

export interface SecretStore {
  get(name: string): string | null;
  set(name: string, value: string): void;
  delete(name: string): void;
  /** For the settings screen: "encrypted by the OS" or "file readable only by you". */
  readonly kind: 'safe-storage' | 'file';
}

/** The slice of Electron's `safeStorage` this store needs (no Electron import here). */
export interface SafeStorageLike {
  isEncryptionAvailable(): boolean;
  encryptString(plain: string): Buffer;
  decryptString(encrypted: Buffer): string;
}

/** Owner read/write only: other users on the machine cannot read the keys. */
const SECRET_FILE_MODE = 0o600;

function readMap(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  try {
    const v = JSON.parse(readFileSync(file, 'utf8')) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, string>) : {};
  } catch {
    // A corrupt secrets file is treated as empty: keys are re-entered, nothing else breaks.
    return {};
  }
}

function writeMap(file: string, map: Record<string, string>): void {
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(map, null, 2) + '\n', { mode: SECRET_FILE_MODE });
  chmodSync(tmp, SECRET_FILE_MODE);
  renameSync(tmp, file);
}

function deleteEntry(file: string, name: string): void {
  const map = readMap(file);
  if (!(name in map)) return;
  delete map[name];
  writeMap(file, map);
}

/** Keys in a JSON file with mode 0600 in the data folder. */
export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const;
  constructor(private readonly file: string) {}

  get(name: string): string | null {
    const v = readMap(this.file)[name];
    return typeof v === 'string' && v.length > 0 ? v : null;
  }

  set(name: string, value: string): void {
    const map = readMap(this.file);
    map[name] = value;
    writeMap(this.file, map);
  }

  delete(name: string): void {
    deleteEntry(this.file, name);
  }
}

/** Keys encrypted with Electron's safeStorage, the ciphertext kept in a 0600 file. */
export class SafeStorageSecretStore implements SecretStore {
  readonly kind = 'safe-storage' as const;
  constructor(
    private readonly file: string,
    private readonly safe: SafeStorageLike,
  ) {}

  get(name: string): string | null {
    const v = readMap(this.file)[name];
    if (typeof v !== 'string') return null;
    try {
      return this.safe.decryptString(Buffer.from(v, 'base64'));
    } catch {
      // Encrypted under another OS account or keychain: the key must be entered again.
      return null;
    }
  }

  set(name: string, value: string): void {
    const map = readMap(this.file);
    map[name] = this.safe.encryptString(value).toString('base64');
    writeMap(this.file, map);
  }

  delete(name: string): void {
    deleteEntry(this.file, name);
  }
}

/** safeStorage when the OS offers encryption, else the 0600 file. */
export function chooseSecretStore(dataDir: string, safe?: SafeStorageLike): SecretStore {
  if (safe?.isEncryptionAvailable()) return new SafeStorageSecretStore(`${dataDir}/secrets.enc.json`, safe);
  return new FileSecretStore(`${dataDir}/secrets.json`);
}
