/**
 * Where API keys live. Never logged, never sent to the renderer: callers get a key only to
 * build a request in main. The Electron glue can hand in a `SafeStorageLike` (Electron's
 * safeStorage) so keys are encrypted by the OS keychain; plain Node uses a 0600 file.
 *
 * Keys are never lost to a damaged file: a key file that cannot be read is reported (naming
 * the file and why) and is never overwritten; before every rewrite the current file is copied
 * to `<file>.bak`; every write is atomic (temporary file, fsync, rename, fsync of the folder).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { AppError } from '../../../src-preload/contract';
import { writeFileAtomic, type AtomicFileIo } from '../../platform/atomic-file';
import { NotRegularFileError, readFileNoWait } from '../../platform/read-no-wait';

export interface SecretStore {
  /** The stored key, or null when there is none. Throws an AppError when it cannot be read (see `problem`). */
  get(name: string): string | null;
  /** Refused (AppError) while the key file cannot be read: it is never overwritten. */
  set(name: string, value: string): void;
  delete(name: string): void;
  /** Why stored keys cannot be read right now (naming the file), or null when they can. */
  problem(): string | null;
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
/** The data folder holds the keys: owner only when this store creates it. */
const SECRET_DIR_MODE = 0o700;

/** The copy of the key file as it was before the last rewrite. */
export function backupPath(file: string): string {
  return `${file}.bak`;
}

function unreadable(file: string, why: string): AppError {
  return new AppError(
    'unavailable',
    `The API key file ${file} cannot be read: ${why}. Stored keys are not used and new keys are not saved until it is repaired or moved away; it is left as it is.` +
      (existsSync(backupPath(file)) ? ` The version before the last change is in ${backupPath(file)}.` : ''),
    { file, reason: why },
  );
}

function errorText(e: unknown): string {
  const code = (e as NodeJS.ErrnoException).code;
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'ENOSPC') return 'the disk is full';
  if (code === 'EROFS') return 'the file system is read-only';
  return e instanceof Error ? e.message : String(e);
}

/** One JSON file of name → value, read strictly and replaced atomically with a backup. */
class KeyFile {
  constructor(
    readonly path: string,
    private readonly io?: AtomicFileIo,
  ) {}

  /** The stored map; throws `unreadable` for anything that is not a readable JSON object of strings. */
  read(): Record<string, string> {
    let text: string;
    try {
      // A FIFO or device here would block the process on open: only a regular file is read.
      text = readFileNoWait(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
      if (e instanceof NotRegularFileError) throw unreadable(this.path, `it is ${e.kind}, not a regular file`);
      throw unreadable(this.path, errorText(e));
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw unreadable(this.path, text.trim() === '' ? 'it is empty (it may have been cut short)' : 'it is not valid JSON (it may have been cut short or edited)');
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value) || !Object.values(value).every((v) => typeof v === 'string')) {
      throw unreadable(this.path, 'it does not hold a list of keys');
    }
    return value as Record<string, string>;
  }

  problem(): string | null {
    try {
      this.read();
      return null;
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  /** Read-modify-write; the change is refused when the current file cannot be read. */
  update(change: (map: Record<string, string>) => boolean): void {
    const map = this.read();
    if (!change(map)) return;
    try {
      mkdirSync(dirname(this.path), { recursive: true, mode: SECRET_DIR_MODE });
      if (existsSync(this.path)) writeFileAtomic(backupPath(this.path), readFileNoWait(this.path), { mode: SECRET_FILE_MODE, ...(this.io ? { io: this.io } : {}) });
      writeFileAtomic(this.path, JSON.stringify(map, null, 2) + '\n', { mode: SECRET_FILE_MODE, ...(this.io ? { io: this.io } : {}) });
    } catch (e) {
      throw new AppError('unavailable', `The API key could not be saved to ${this.path}: ${errorText(e)}. The keys stored before are unchanged.`, { file: this.path, reason: errorText(e) });
    }
  }
}

export interface FileSecretStoreOptions {
  /** Tests: the file-system calls of writes (to make one fail like a crash). */
  io?: AtomicFileIo;
  /**
   * A safeStorage key file that exists while the OS keychain is not available (another
   * session type, a locked keyring): its keys are reported as unreadable, not as missing.
   */
  encryptedFile?: string;
}

/** Keys in a JSON file with mode 0600 in the data folder. */
export class FileSecretStore implements SecretStore {
  readonly kind = 'file' as const;
  private readonly keys: KeyFile;

  constructor(
    file: string,
    private readonly opts: FileSecretStoreOptions = {},
  ) {
    this.keys = new KeyFile(file, opts.io);
  }

  get(name: string): string | null {
    const v = this.keys.read()[name];
    if (typeof v === 'string' && v.length > 0) return v;
    const enc = this.opts.encryptedFile;
    if (enc && existsSync(enc) && name in new KeyFile(enc).read()) {
      throw new AppError('unavailable', `This key is stored encrypted in ${enc}, but the operating system's keychain is not available to decrypt it now. Unlock the keychain (or log in to the desktop session) and restart, or enter the key again.`, { file: enc });
    }
    return null;
  }

  set(name: string, value: string): void {
    this.keys.update((map) => {
      map[name] = value;
      return true;
    });
  }

  delete(name: string): void {
    this.keys.update((map) => (name in map ? delete map[name] : false));
  }

  problem(): string | null {
    return this.keys.problem();
  }
}

/** Keys encrypted with Electron's safeStorage, the ciphertext kept in a 0600 file. */
export class SafeStorageSecretStore implements SecretStore {
  readonly kind = 'safe-storage' as const;
  private readonly keys: KeyFile;

  constructor(
    file: string,
    private readonly safe: SafeStorageLike,
    io?: AtomicFileIo,
  ) {
    this.keys = new KeyFile(file, io);
  }

  get(name: string): string | null {
    const v = this.keys.read()[name];
    if (typeof v !== 'string') return null;
    try {
      return this.safe.decryptString(Buffer.from(v, 'base64'));
    } catch {
      // Encrypted under another OS account or keychain: said so, and the ciphertext is kept
      // (other keys in the file stay usable; saving a new key for this profile replaces it).
      throw new AppError('unavailable', `The key stored in ${this.keys.path} for this profile cannot be decrypted by the operating system's keychain (it was saved under another account or keychain). Enter the key again.`, { file: this.keys.path });
    }
  }

  set(name: string, value: string): void {
    const encrypted = this.safe.encryptString(value).toString('base64');
    this.keys.update((map) => {
      map[name] = encrypted;
      return true;
    });
  }

  delete(name: string): void {
    this.keys.update((map) => (name in map ? delete map[name] : false));
  }

  problem(): string | null {
    return this.keys.problem();
  }
}

/** safeStorage when the OS offers encryption, else the 0600 file. */
export function chooseSecretStore(dataDir: string, safe?: SafeStorageLike): SecretStore {
  const encrypted = `${dataDir}/secrets.enc.json`;
  if (safe?.isEncryptionAvailable()) return new SafeStorageSecretStore(encrypted, safe);
  return new FileSecretStore(`${dataDir}/secrets.json`, safe ? { encryptedFile: encrypted } : {});
}
