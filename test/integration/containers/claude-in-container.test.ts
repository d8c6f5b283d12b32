/**
 * Claude Code inside a session's container (the real CLI, copied into the test image) against
 * the scripted model server: the model is reached through the bridge gateway, the tool call's
 * approval is asked and answered on the host, and the file lands in the worktree with the
 * owner's uid. The key never appears in the container's configuration.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { plainText } from '../../../src-main/terminals/agent-command-runner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { startModelServer, type ModelServer } from '../../fixtures/model-server/index';
import { ensureTestImage } from '../../support/container-image';
import { makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN } from '../coder/support';
import { saveTestProfile, TEST_KEY } from '../agents/harness';

const AGENT_UID = 1000;
let image: string;
let app: AppServices;
let server: ModelServer;
const data = tempDir('fd-ctr-claude-data-');
const home = tempDir('fd-ctr-claude-home-');
const repo = makeRepo('fd-ctr-claude-');

beforeAll(async () => {
  image = ensureTestImage({ claude: true });
  execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, repo.path]);
  server = await startModelServer({
    script: [
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: '/app/volumes/workspace/src/new.ts', content: 'export const x = 1;\n' } }] },
      // The model repeats the key (as a confused model might): the console, kept in the engine's log, must not.
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: `Wrote src/new.ts. The key was ${TEST_KEY}.` }] },
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

describe('Claude Code in a container', () => {
  it('writes into the worktree after an approval answered on the host', async () => {
    const s = app.agents.createSession({ root: repo.path });
    app.coder.updateSession({ sessionId: s.id, executor: 'claude-code' });
    await app.containers.setPlacement(s.id, { image, limits: { memoryBytes: 1024 * 1024 * 1024, cpus: 1, pids: 512 } });
    const asked: string[] = [];
    const off = app.hub.subscribe((e) => {
      if (e.topic !== 'agents.approvals.changed') return;
      const a = (e.payload as { approval: { id: string; sessionId: string; status: string; summary: string } }).approval;
      if (a.sessionId !== s.id || a.status !== 'pending') return;
      asked.push(a.summary);
      queueMicrotask(() => app.agents.gate.answer(a.id, 'approve_once'));
    });
    try {
      const r = await app.agents.run(s.id, 'create src/new.ts');
      expect(r, JSON.stringify(r)).toMatchObject({ outcome: 'completed' });
    } finally {
      off();
    }
    // Asked on the host, about the host path (the relay maps /app/volumes/workspace to the worktree).
    expect(asked).toEqual(['write src/new.ts']);
    expect(readFileSync(join(repo.path, 'src/new.ts'), 'utf8')).toBe('export const x = 1;\n');
    expect(statSync(join(repo.path, 'src/new.ts')).uid).toBe(AGENT_UID);
    expect(server.mainRequests().length).toBeGreaterThanOrEqual(2);
    const placed = app.containers.forSession(s.id)!;
    const ins = await new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(placed.id).inspect();
    expect(JSON.stringify(ins)).not.toContain(TEST_KEY);
    // The agent console shows the run readably: the CLI starting, its tool call, its end (and never the key).
    const consoleText = plainText(await app.containers.logs(s.id));
    expect(consoleText).toContain('claude started');
    expect(consoleText).toMatch(/● Write\(\/app\/volumes\/workspace\/src\/new\.ts\)/);
    expect(consoleText).toMatch(/claude done · \d+ turns/);
    expect(consoleText).toContain('Wrote src/new.ts. The key was [redacted].');
    expect(consoleText).not.toContain(TEST_KEY);
  }, 180_000);
});
