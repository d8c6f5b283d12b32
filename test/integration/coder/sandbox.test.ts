/**
 * Claude Code runs with its native sandbox and without its key in reach, against the real
 * CLI and the scripted model server. Every check reads the file system from outside the run.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import { silentLogger } from '../../../src-main/platform/logger';
import { selfIdentity } from '../../../src-main/platform/process-identity';
import { removeKeyFile, writeKeyFile } from '../../../src-main/coder/key-file';
import { runsDir } from '../../../src-main/coder/run-dir';
import { startModelServer } from '../../fixtures/model-server/index';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { CLAUDE_BIN, coderHarness, saveScriptedProfile, TEST_KEY, type CoderHarness } from './support';

let h: CoderHarness | undefined;
const cleanups: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
  for (const c of cleanups.splice(0)) await c();
});

function outside(where: string): string {
  const p = join(where, `fd-coder-outside-${randomBytes(6).toString('hex')}.txt`);
  cleanups.push(() => rmSync(p, { force: true }));
  return p;
}

async function waitUntil(ok: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !ok(); i++) await new Promise((r) => setTimeout(r, 50));
  if (!ok()) throw new Error('timed out');
}

function bashThenText(command: string, text = 'Finished.') {
  return [
    { blocks: [{ type: 'tool_use' as const, name: 'Bash', input: { command, description: 'run it' } }] },
    { blocks: [{ type: 'text' as const, text }] },
  ];
}

describe("Claude Code's Bash runs in its native sandbox", () => {
  it('workspace-write: a write outside cd (/tmp, $HOME) does not exist afterwards; inside cd it does', async () => {
    const inTmp = outside('/tmp');
    const inHome = outside(homedir());
    h = await coderHarness(bashThenText(`touch ${inTmp}; echo tmp=$?; touch ${inHome}; echo home=$?; touch inside.txt; echo in=$?`));
    const r = await h.run({});
    expect(r).toMatchObject({ success: true, result: 'Finished.' });
    expect(existsSync(inTmp)).toBe(false);
    expect(existsSync(inHome)).toBe(false);
    expect(existsSync(join(h.repo, 'inside.txt'))).toBe(true);
    const toolResult = JSON.stringify(h.server.mainRequests()[1]!.body);
    expect(toolResult).toContain('tmp=1');
    expect(toolResult).toContain('in=0');
  });

  it('a linked worktree: git reads and commits on its own branch; the config, another branch and the .git file stay as they were', async () => {
    h = await coderHarness(bashThenText([
      'git status --short; git log --format=%s -1',
      'echo x > x.txt; git add x.txt && git -c user.name=A -c user.email=a@b commit -qm from-claude; echo commit=$?',
      // The worktree is <repo>/.trees/session-1: the repository's git data is ../../.git.
      'echo x >> ../../.git/config; echo config=$?',
      'git update-ref refs/heads/feature/other HEAD; echo other=$?',
      'echo "gitdir: /tmp" > .git; echo gitfile=$?',
    ].join('; ')));
    const wt = join(h.repo, '.trees', 'session-1');
    gitIn(h.repo, 'worktree', 'add', '-q', '-b', 'feature/session-1', wt);
    gitIn(h.repo, 'branch', 'feature/other');
    const git = join(h.repo, '.git');
    const config = readFileSync(join(git, 'config'), 'utf8');
    const other = gitIn(h.repo, 'rev-parse', 'feature/other').trim();
    const r = await h.run({ cd: wt });
    expect(r).toMatchObject({ success: true });
    const toolResult = JSON.stringify(h.server.mainRequests()[1]!.body);
    expect(toolResult).toContain('commit=0');
    expect(toolResult).not.toContain('not a git repository');
    expect(gitIn(h.repo, 'log', '--format=%s', '-1', 'feature/session-1').trim()).toBe('from-claude');
    expect(readFileSync(join(git, 'config'), 'utf8')).toBe(config);
    expect(gitIn(h.repo, 'rev-parse', 'feature/other').trim()).toBe(other);
    expect(readFileSync(join(wt, '.git'), 'utf8')).toBe(`gitdir: ${join(git, 'worktrees', 'session-1')}\n`);
  });

  it('read-only: not even cd is writable by a command', async () => {
    h = await coderHarness(bashThenText('touch ro.txt; echo ro=$?'));
    const r = await h.run({ sandbox: 'read-only' });
    expect(r).toMatchObject({ success: true });
    expect(existsSync(join(h.repo, 'ro.txt'))).toBe(false);
  });

  it('danger-full-access runs unconfined (the choice the others are measured against)', async () => {
    const inHome = outside(homedir());
    h = await coderHarness(bashThenText(`touch ${inHome}`));
    const r = await h.run({ sandbox: 'danger-full-access' });
    expect(r).toMatchObject({ success: true });
    expect(existsSync(inHome)).toBe(true);
  });

  it('refuses to run when the sandbox cannot start, and says so', async () => {
    const inHome = outside(homedir());
    h = await coderHarness(bashThenText(`touch ${inHome}`));
    // No bwrap or socat on this PATH: Claude Code's sandbox cannot start.
    const r = await h.run({}, { envOverrides: { PATH: '/nonexistent' } });
    expect(r).toMatchObject({ success: false, error_kind: 'config_error' });
    if (r.success) throw new Error('unreachable');
    expect(r.error).toMatch(/Claude Code's sandbox could not start \(.*bubblewrap.*\)\. Commands are refused rather than run unconfined/);
    expect(existsSync(inHome)).toBe(false);
    expect(h.server.mainRequests()).toHaveLength(0);
  });
});

describe("Claude Code's Bash beside other runs", () => {
  it("cannot read the secret of a run that started after it (the runs folder is hidden whole, not the run folders there were)", async () => {
    const later = join(runsDir(), `flightdeck-coder-${selfIdentity()}-later${randomBytes(3).toString('hex')}`);
    cleanups.push(() => rmSync(later, { recursive: true, force: true }));
    // The first answer stalls: meanwhile another run starts and writes its settings.
    h = await coderHarness([
      { fault: { kind: 'stall', ms: 1_500 }, blocks: [{ type: 'tool_use' as const, name: 'Bash', input: { command: `cat ${later}/settings.json > stolen.txt 2>&1; echo done`, description: 'run it' } }] },
      { blocks: [{ type: 'text' as const, text: 'Finished.' }] },
    ]);
    const run = h.run({});
    await waitUntil(() => h!.server.mainRequests().length > 0);
    mkdirSync(later, { mode: 0o700 });
    writeFileSync(join(later, 'settings.json'), '{"secret":"hook-secret-of-a-later-run"}');
    const r = await run;
    expect(r).toMatchObject({ success: true, result: 'Finished.' });
    expect(readFileSync(join(h.repo, 'stolen.txt'), 'utf8')).not.toContain('hook-secret-of-a-later-run');
  });
});

describe("Claude Code's tools cannot read its key", () => {
  it('a Bash call sees no key in its environment and cannot read the key file or the hook secret (nor another run\'s)', async () => {
    // Another run of this process, as a concurrent session would have it: its folder and its key.
    const other = mkdtempSync(join(runsDir(), `flightdeck-coder-${selfIdentity()}-`));
    const otherKey = writeKeyFile(other, 'sk-other-run-key-5c1d9e7a');
    // A run of an older build running beside this one: its folder at the top of the temporary folder.
    const earlier = mkdtempSync(join('/tmp', `flightdeck-coder-${selfIdentity()}-`));
    writeFileSync(join(earlier, 'settings.json'), '{"secret":"earlier-build-hook-secret"}');
    cleanups.push(() => rmSync(other, { recursive: true, force: true }), () => removeKeyFile(otherKey), () => rmSync(earlier, { recursive: true, force: true }));
    h = await coderHarness(
      bashThenText('env > tool-env.txt; cat /tmp/flightdeck-keys-*/* /tmp/flightdeck-coder-*/* /tmp/flightdeck-coder-runs-*/*/* > stolen.txt 2>&1; echo done'),
    );
    const r = await h.run({});
    expect(r).toMatchObject({ success: true });
    const env = readFileSync(join(h.repo, 'tool-env.txt'), 'utf8');
    expect(env).toContain('PATH=');
    expect(env).not.toContain(TEST_KEY);
    expect(env).not.toMatch(/^ANTHROPIC_(API_KEY|AUTH_TOKEN)=/m);
    const stolen = readFileSync(join(h.repo, 'stolen.txt'), 'utf8');
    expect(stolen).not.toContain(TEST_KEY);
    expect(stolen).not.toContain('sk-other-run-key');
    expect(stolen).not.toContain('earlier-build-hook-secret');
    // What went back to the model carries no key either; the API calls still authenticated.
    const main = h.server.mainRequests();
    expect(JSON.stringify(main[1]!.body)).not.toContain(TEST_KEY);
    expect(main.every((q) => q.credential === TEST_KEY)).toBe(true);
  });

  it('in a Flightdeck session run by Claude Code, neither `!env` nor a Bash tool call shows the key, nor can it read the stored keys', async () => {
    const data = tempDir('fd-coder-sbx-data-');
    const server = await startModelServer({ script: bashThenText(`env > tool-env.txt; cat ${data.path}/secrets.json > stored.txt 2>&1; echo ok`) });
    const home = tempDir('fd-coder-sbx-home-');
    const repo = makeRepo('fd-coder-sbx-');
    const app = await AppServices.create({ dataDir: data.path, logger: silentLogger, platform: { runtime: 'browser' }, coderEnv: { HOME: home.path, CLAUDE_CODE_MAX_RETRIES: '0' } });
    cleanups.push(async () => {
      app.dispose();
      await server.close();
      data.cleanup();
      home.cleanup();
      repo.cleanup();
    });
    app.coder.updateSettings({ claudePath: CLAUDE_BIN, idleTimeoutS: 30, maxDurationS: 120 });
    saveScriptedProfile(app, server.url);
    const published: AgentEvent[] = [];
    app.hub.subscribe((e) => {
      if (e.topic === 'agents.event') published.push(e.payload as AgentEvent);
    });
    const id = app.agents.createSession({ root: repo.path, mode: 'yolo' }).id;
    app.coder.updateSession({ sessionId: id, executor: 'claude-code' });

    const bang = await app.agents.run(id, '!env');
    expect(bang.outcome).toBe('completed');
    const shown = published.filter((e) => e.sessionId === id && e.data.type === 'command.result').map((e) => JSON.stringify(e.data));
    expect(shown.join('')).toContain('PATH=');
    expect(shown.join('')).not.toContain(TEST_KEY);

    const chat = await app.agents.run(id, 'print the environment');
    expect(chat.outcome).toBe('completed');
    const env = readFileSync(join(repo.path, 'tool-env.txt'), 'utf8');
    expect(env).toContain('PATH=');
    expect(env).not.toContain(TEST_KEY);
    // Flightdeck keeps the profile's key in its data folder (browser mode: a 0600 file): hidden too.
    expect(readFileSync(join(data.path, 'secrets.json'), 'utf8')).toContain(TEST_KEY);
    expect(readFileSync(join(repo.path, 'stored.txt'), 'utf8')).not.toContain(TEST_KEY);
    expect(server.mainRequests()[0]!.credential).toBe(TEST_KEY);
  });
});
