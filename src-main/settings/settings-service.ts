import { DEFAULT_TERMINAL_FONT_SIZE, Settings, type Settings as SettingsT } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import { translateSqliteError, type Database } from '../store/db';

const DEFAULTS: SettingsT = { theme: 'system', terminalFontSize: DEFAULT_TERMINAL_FONT_SIZE };

/**
 * User settings, one JSON value per key in the settings table. Unknown or invalid stored
 * values (an older or hand-edited database) fall back to defaults instead of failing start.
 */
export class SettingsService {
  constructor(
    private readonly db: Database,
    private readonly hub: EventHub,
  ) {}

  get(): SettingsT {
    const rows = this.db.prepare('SELECT key, value FROM settings').all() as Array<{ key: string; value: string }>;
    const stored: Record<string, unknown> = {};
    for (const r of rows) {
      try {
        stored[r.key] = JSON.parse(r.value);
      } catch {
        // A corrupt value is ignored: the default applies and the next update rewrites it.
      }
    }
    const merged = { ...DEFAULTS };
    for (const key of Object.keys(DEFAULTS) as Array<keyof SettingsT>) {
      const one = Settings.shape[key].safeParse(stored[key]);
      if (one.success) (merged as Record<string, unknown>)[key] = one.data;
    }
    return merged;
  }

  update(patch: Partial<SettingsT>): SettingsT {
    const put = this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value');
    try {
      this.db.transaction(() => {
        for (const [k, v] of Object.entries(patch)) if (v !== undefined) put.run(k, JSON.stringify(v));
      })();
    } catch (e) {
      // A full disk answers the typed disk_full (naming the data folder) to every caller, the CLI included.
      throw translateSqliteError(e, this.db);
    }
    const next = this.get();
    this.hub.publish('settings.changed', next);
    return next;
  }

  /** Internal values that are not user settings (window bounds, last view). */
  getInternal<T>(key: string): T | undefined {
    const row = this.db.prepare('SELECT value FROM settings WHERE key = ?').get(`internal.${key}`) as { value: string } | undefined;
    if (!row) return undefined;
    try {
      return JSON.parse(row.value) as T;
    } catch {
      return undefined;
    }
  }

  setInternal(key: string, value: unknown): void {
    try {
      this.db
        .prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
        .run(`internal.${key}`, JSON.stringify(value));
    } catch (e) {
      throw translateSqliteError(e, this.db);
    }
  }
}
