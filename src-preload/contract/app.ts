import { z } from 'zod';
import { event, request } from './define';
import { BridgeErrorShape } from './errors';

export const Theme = z.enum(['light', 'dark', 'system']);
export type Theme = z.infer<typeof Theme>;

/** The terminal font size before the user sets one (the host's default, and the UI's until settings load). */
export const DEFAULT_TERMINAL_FONT_SIZE = 13;

export const Settings = z.object({
  theme: Theme,
  terminalFontSize: z.number().int().min(8).max(32),
});
export type Settings = z.infer<typeof Settings>;
export const SettingsPatch = Settings.partial().strict();

export const AppInfo = z.object({
  version: z.string(),
  runtime: z.enum(['electron', 'browser']),
  dataDir: z.string(),
  platform: z.string(),
  capabilities: z.object({
    /** A native folder picker exists (Electron); browser mode types paths instead. */
    folderDialog: z.boolean(),
  }),
});
export type AppInfo = z.infer<typeof AppInfo>;

export const Notice = z.object({
  level: z.enum(['info', 'success', 'warning', 'error']),
  title: z.string(),
  message: z.string().optional(),
  error: BridgeErrorShape.optional(),
});
export type Notice = z.infer<typeof Notice>;

export const BackupInfo = z.object({ file: z.string(), takenAt: z.number(), bytes: z.number() });
export type BackupInfo = z.infer<typeof BackupInfo>;

/** The state of the data folder's database, shown as a banner when it needs the user. */
export const StorageStatus = z.object({
  dataDir: z.string(),
  dbPath: z.string(),
  /** Writes: `disk_full`/`failing` while work waits in memory for the disk. */
  writes: z.enum(['ok', 'disk_full', 'failing']),
  writesMessage: z.string().nullable(),
  /** Writes (and agent events) waiting in memory to be saved. */
  unsaved: z.number().int().nonnegative(),
  /** The start-up check: `damaged` means SQLite found broken pages (the file is kept as it is). */
  integrity: z.enum(['ok', 'damaged', 'unchecked']),
  integrityProblems: z.array(z.string()),
  /** Automatic backups, newest first. */
  backups: z.array(BackupInfo),
});
export type StorageStatus = z.infer<typeof StorageStatus>;

export const appRequests = {
  'app.info': request(z.object({}).strict(), AppInfo, 'Version, runtime and data folder.'),
  'settings.get': request(z.object({}).strict(), Settings, 'Current settings.'),
  'settings.update': request(SettingsPatch, Settings, 'Change some settings; returns all of them.'),
  'dialog.pickFolder': request(
    z.object({ title: z.string().max(200).optional() }).strict(),
    z.object({ path: z.string().nullable() }),
    'Native folder picker (Electron only; browser mode answers unavailable).',
  ),
  'shell.openExternal': request(
    z.object({ url: z.string().url().max(2048).refine((u) => /^https?:\/\//.test(u), 'only http(s) links open') }).strict(),
    z.object({ opened: z.boolean() }),
    'Open a link in the system browser.',
  ),
  'app.storage': request(z.object({}).strict(), StorageStatus, 'The database: disk full, damage found at start, automatic backups.'),
  'app.storage.restore': request(
    z.object({ file: z.string().max(4096).optional() }).strict(),
    z.object({ restoredFrom: z.string(), keptAs: z.string() }),
    'Replace the database with an automatic backup (the latest unless `file` names one); the replaced file is kept beside it.',
  ),
} as const;

export const appEvents = {
  'settings.changed': event(Settings, 'Settings changed (from any window or the CLI).'),
  'app.notice': event(Notice, 'Something the user should see as a toast.'),
  'app.storage.changed': event(StorageStatus, 'The database state changed (disk full or back, damage found, restored).'),
} as const;
