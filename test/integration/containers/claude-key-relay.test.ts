/**
 * Issue 20 §3: Claude Code in a container cannot read its own model key. The real CLI runs in
 * the session's container (the test image, real Docker engine) against the stand-in model
 * server; in the middle of its turn the agent looks for the key everywhere it can — its
 * environment, every process's environment, every file of the container — and finds nothing,
 * while its model calls still work through the host's relay, which sends the real key and
 * refuses a wrong token.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index';
import { ensureTestImage } from '../../support/container-image';
import { makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN } from '../coder/support';
import { saveTestProfile, TEST_KEY } from '../agents/harness';

const AGENT_UID = 1000;
// The key in two halves: the command (kept in the CLI's transcript inside) never holds it whole.
const HALF = Math.floor(TEST_KEY.length / 2);
const LOOK = [
  `K1='${TEST_KEY.slice(0, HALF)}'; K2='${TEST_KEY.slice(HALF)}'; K="$K1$K2"`,
  'echo "ENV:$(env | grep -cF "$K")"',
  'echo "PROCENV:$(cat /proc/[0-9]*/environ 2>/dev/null | tr \'\\0\' \'\\n\' | grep -cF "$K")"',
  'echo "FILES:$(find / \\( -path /proc -o -path /sys -o -path /dev \\) -prune -o -type f -print0 2>/dev/null | xargs -0 grep -lF "$K" 2>/dev/null | tr \'\\n\' \' \')"',
  'echo "RELAY:$ANTHROPIC_BASE_URL"',
  'hp=${ANTHROPIC_BASE_URL#http://}; exec 3<>/dev/tcp/${hp%:*}/${hp##*:} && printf \'POST /v1/messages HTTP/1.0\\r\\nx-api-key: not-the-token\\r\\nContent-Length: 2\\r\\n\\r\\n{}\' >&3 && echo "WRONG:$(head -n 1 <&3)"',
].join('\n');

let image: string;
let app: AppServices;
let server: ModelServer;
const data = tempDir('fd-ctr-relay-data-');
const home = tempDir('fd-ctr-relay-home-');
const repo = makeRepo('fd-ctr-relay-');

beforeAll(async () => {
  image = ensureTestImage({ claude: true });
  execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, repo.path]);
  server = await startModelServer({
    script: [
      { blocks: [{ type: 'tool_use', name: 'Bash', input: { command: LOOK, description: 'Look for the model key' } }] },
      { match: { userPattern: 'RELAY:' }, blocks: [{ type: 'text', text: 'Looked everywhere.' }] },
    ],
  });
  app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
  app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 60, maxDurationS: 180 });
  saveTestProfile(app, server.url, { model: 'glm-4.7' });
}, 180_000);

afterAll(async () => {
  await app.containers.shutdown();
  app.dispose();
  await server.close();
  data.cleanup();
  home.cleanup();
  repo.cleanup();
});

/** The text of the tool result the CLI sent back to the model (its next request). */
function toolResultText(): string {
  for (const r of server.mainRequests()) {
    const messages = (r.body as { messages?: Array<{ content: unknown }> }).messages ?? [];
    for (const m of messages) {
      if (!Array.isArray(m.content)) continue;
      for (const block of m.content as Array<{ type: string; content?: unknown }>) {
        if (block.type !== 'tool_result') continue;
        const c = block.content;
        const text = typeof c === 'string' ? c : Array.isArray(c) ? (c as Array<{ text?: string }>).map((x) => x.text ?? '').join('') : '';
        if (text.includes('RELAY:')) return text;
      }
    }
  }
  return '';
}

describe('Claude Code in a container: the model key stays on the host', () => {
  it('the agent finds the key in no environment and no file; its turn works through the relay, which refuses a wrong token', async () => {
    const s = app.agents.createSession({ root: repo.path });
    app.coder.updateSession({ sessionId: s.id, executor: 'claude-code' });
    await app.containers.setPlacement(s.id, { image, limits: { memoryBytes: 1024 * 1024 * 1024, cpus: 1, pids: 512 } });
    const off = app.hub.subscribe((e) => {
      if (e.topic !== 'agents.approvals.changed') return;
      const a = (e.payload as { approval: { id: string; sessionId: string; status: string } }).approval;
      if (a.sessionId === s.id && a.status === 'pending') queueMicrotask(() => app.agents.gate.answer(a.id, 'approve_once'));
    });
    try {
      const r = await app.agents.run(s.id, 'look for your key');
      expect(r, JSON.stringify(r)).toMatchObject({ outcome: 'completed' });
    } finally {
      off();
    }
    const out = toolResultText();
    expect(out, out).toMatch(/^ENV:0$/m);
    expect(out).toMatch(/^PROCENV:0$/m);
    expect(out).toMatch(/^FILES:\s*$/m);
    expect(out).toMatch(/^RELAY:http:\/\/host\.docker\.internal:\d+$/m);
    expect(out).toMatch(/^WRONG:HTTP\/1\.1 401/m);
    // The model calls went through the relay, which sent the real key (the CLI inside never had it).
    const main = server.mainRequests();
    expect(main.length).toBeGreaterThanOrEqual(2);
    expect(main.every((q) => q.credential === TEST_KEY)).toBe(true);
  }, 240_000);
});
