/**
 * Attack from inside the real browser-mode host: an agent's command (a `!` command and a bash
 * tool call, yolo, default workspace-write sandbox) looks for what the host could have passed on.
 * With a user terminal open it lists its descriptors (the host holds the SQLite database, the
 * listening socket, the WebSocket connection, the pty host's pipes, the user's pty master),
 * dumps its environment (the host was started with the browser token and model keys), and
 * reads the data folder (stored keys, database). None of it may be there.
 */
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index.js';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';
import { makeRepo } from '../../support/temp';
import { startHostProcess, type HostProcess } from './support';

const PRICES = { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 };
const STORED_KEY = 'sk-stored-profile-key-0123456789';
const ENV_KEYS = { ANTHROPIC_API_KEY: 'sk-ant-env-key-0123456789', OPENAI_API_KEY: 'sk-openai-env-key-0123456789' };
/** Prints the command's descriptors and its shell's, its environment, and tries the data folder. */
// Markers are printed split ("ENV-""FOLLOWS") so the echoed command line never matches them.
const PROBE = (dataDir: string) => `ls -l /proc/self/fd /proc/$$/fd; echo FDS-""FOLLOW; echo ENV-""FOLLOWS; env; echo DATA-""FOLLOWS; cat ${dataDir}/secrets.json; ls -la ${dataDir}; echo PROBE-""DONE`;

let host: HostProcess | undefined;
let server: ModelServer | undefined;
const cleanups: Array<() => unknown> = [];
afterAll(async () => {
  stopWsClients();
  await host?.stop();
  await server?.close();
  for (const c of cleanups) c();
});

/** Descriptor numbers in `ls -l /proc/…/fd` output. */
function descriptorNumbers(listing: string): number[] {
  return [...listing.matchAll(/\s(\d+) -> /g)].map((m) => Number(m[1]));
}

describe.runIf(process.platform === 'linux')("what an agent's command finds in the real host", () => {
  it('no descriptor but its stdio, no token, no model key, no data folder', { timeout: 180_000 }, async () => {
    // The data folder outside /tmp, as a real one is (~/.config/flightdeck): bubblewrap's private
    // /tmp must not be what hides it.
    const dataDir = realpathSync(mkdtempSync('/var/tmp/fd-host-data-'));
    const repo = makeRepo('fd-host-cmd-');
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }), () => repo.cleanup());
    server = await startModelServer({
      script: [{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: PROBE(dataDir) } }] }, { blocks: [{ type: 'text', text: 'Looked.' }] }],
    });
    host = await startHostProcess({ dataDir, env: ENV_KEYS });
    const client = connectWsClient(host.port, host.token);
    await client.invoke('agents.profiles.save', { name: 'scripted', label: 'Scripted', preset: 'custom', baseUrl: server.url, model: 'scripted-model', maxTokens: 4_096, contextWindow: 200_000, prices: PRICES, apiKey: STORED_KEY, makeDefault: true });
    // The user's own shell, open while the agent works.
    await client.invoke('terminals.create', { target: { kind: 'path', path: repo.path }, cols: 80, rows: 24 });
    const session = await client.invoke('agents.sessions.create', { root: repo.path, mode: 'yolo' });

    const outputs: string[] = [];
    for (const input of [`!${PROBE(dataDir)}`, 'look around']) {
      const { turnId } = await client.invoke('agents.input', { sessionId: session.id, input });
      let events: AgentEvent[] = [];
      const until = Date.now() + 120_000;
      while (!events.some((e) => e.turnId === turnId && e.data.type === 'turn.ended')) {
        if (Date.now() > until) throw new Error(`the turn did not end:\n${host.output()}`);
        await new Promise((r) => setTimeout(r, 100));
        events = (await client.invoke('agents.events.read', { sessionId: session.id, fromSeq: 1, limit: 10_000 })).events;
      }
      const mine = events.filter((e) => e.turnId === turnId);
      const text = mine.flatMap((e) => (e.data.type === 'command.result' ? [e.data.text] : e.data.type === 'tool.result' ? [e.data.content] : []));
      expect(text.join('\n')).toContain('PROBE-DONE');
      outputs.push(text.join('\n'));
    }

    for (const out of outputs) {
      const [fds, rest] = out.slice(out.indexOf('\n/proc/')).split('ENV-FOLLOWS');
      const [env, data] = rest!.split('DATA-FOLLOWS');
      // ls's own directory handle shows in /proc/self/fd; anything else is inherited.
      const extra = fds!.split('\n').filter((l) => /\s(\d+) -> /.test(l) && !/\s[0-2] -> /.test(l));
      expect(extra.filter((l) => !/\/proc\/\d+\/fd$/.test(l) && !/ 255 -> \/dev\/pts\/\d+$/.test(l))).toEqual([]);
      expect(descriptorNumbers(fds!).length).toBeGreaterThanOrEqual(6);
      expect(env).not.toContain(host.token);
      // The terminal's own id (which terminal a command runs in) is the only Flightdeck variable.
      expect(env!.split('\n').filter((l) => l.startsWith('FLIGHTDECK_') && !l.startsWith('FLIGHTDECK_TERMINAL_ID='))).toEqual([]);
      for (const v of Object.values(ENV_KEYS)) expect(env).not.toContain(v);
      expect(data).not.toContain(STORED_KEY);
      expect(data).not.toContain('flightdeck.db');
    }
  });
});
