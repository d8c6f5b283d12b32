import { existsSync } from 'node:fs';
import { get } from 'node:http';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startHost } from '../../e2e/support/host';

function status(url: string): Promise<number> {
  return new Promise((resolve, reject) => get(url, (res) => resolve(res.statusCode!)).on('error', reject));
}

describe('npm run serve, as a process', () => {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    it(`prints one ready line, binds 127.0.0.1 and shuts down cleanly on ${signal}`, async () => {
      const host = await startHost();
      expect(host.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=[A-Za-z0-9_-]{20,}$/);
      expect(host.output().match(/Flightdeck ready at/g)).toHaveLength(1);
      expect(await status(`${host.origin}/healthz`)).toBe(200);
      expect(await status(`${host.origin}/`)).toBe(401);
      expect(existsSync(join(host.dataDir, 'flightdeck.db'))).toBe(true);
      const exited = new Promise<number | null>((resolve) => host.process.once('exit', (code) => resolve(code)));
      host.process.kill(signal);
      expect(await exited).toBe(0);
      // better-sqlite3 checkpoints and removes the WAL only when the database is closed properly.
      expect(existsSync(join(host.dataDir, 'flightdeck.db-wal'))).toBe(false);
    }, 90_000);
  }

  it('uses FLIGHTDECK_TOKEN when set', async () => {
    const host = await startHost({ env: { FLIGHTDECK_TOKEN: 'fixed-token-for-automation' } });
    expect(host.url.endsWith('?token=fixed-token-for-automation')).toBe(true);
    await host.stop();
  }, 90_000);
});
