/**
 * Attack: a truncated `secrets.json`. Profiles silently showed "no key", and the next save
 * rewrote the file with only the new key, destroying the two stored ones. Now the real
 * browser-mode host reports the key file as unreadable (naming it) on every profile, refuses
 * the save, and leaves the file's bytes as they were.
 */
import { readFileSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';
import { tempDir } from '../../support/temp';
import { startHostProcess, type HostProcess } from './support';

const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
const profile = (name: string, apiKey: string) => ({ name, label: name, preset: 'custom' as const, baseUrl: 'http://127.0.0.1:9/x', model: 'm', maxTokens: 1_000, contextWindow: 100_000, prices: PRICES, apiKey });

let host: HostProcess | undefined;
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  stopWsClients();
  await host?.stop();
  for (const c of cleanups) c();
});

describe('a truncated key file', () => {
  it('is reported as unreadable, the save is refused, and no stored key is lost', { timeout: 180_000 }, async () => {
    const data = tempDir('fd-keys-data-');
    cleanups.push(() => data.cleanup());
    host = await startHostProcess({ dataDir: data.path });
    const client = connectWsClient(host.port, host.token);
    await client.invoke('agents.profiles.save', profile('first', 'sk-first-0123456789abcdef'));
    await client.invoke('agents.profiles.save', profile('second', 'sk-second-0123456789abcdef'));
    const file = join(data.path, 'secrets.json');
    truncateSync(file, Math.floor(readFileSync(file).length / 2));
    const damaged = readFileSync(file);

    const list = await client.invoke('agents.profiles.list', {});
    for (const name of ['first', 'second']) {
      const p = list.find((x) => x.name === name)!;
      expect(p).toMatchObject({ apiKeySet: false, apiKeySource: 'unreadable' });
      expect(p.apiKeyProblem).toContain(`The API key file ${file} cannot be read`);
    }
    await expect(client.invoke('agents.profiles.save', profile('third', 'sk-third-0123456789abcdef'))).rejects.toMatchObject({ code: 'unavailable', message: expect.stringContaining(file) });
    expect(readFileSync(file).equals(damaged)).toBe(true);
    // The version before the last rewrite still holds the first key.
    expect(readFileSync(`${file}.bak`, 'utf8')).toContain('sk-first-0123456789abcdef');
  });
});
