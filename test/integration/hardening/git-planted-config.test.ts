/**
 * Attack: an agent plants settings in the repository that make git run a program
 * (core.fsmonitor, a hook via core.hooksPath, an alias, credential.helper, diff.external, a
 * textconv driver) and waits for the app's next refresh: the program used to run with the
 * app's whole environment, browser token and model keys included. The app's own git calls now
 * turn each of them off and run with an allow-listed environment.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { workingDiff } from '../../../src-main/agents/orchestrator/git-diff';
import { gitWorkTree, preImage } from '../../../src-main/agents/orchestrator/undo';
import type { AppServices } from '../../../src-main/app/services';
import { changedPaths, snapshotWorkspace } from '../../../src-main/coder/workspace-state';
import { startBrowserHost, type BrowserHost } from '../../../src-main/host/browser-host';
import { startTestApp } from '../../support/app';
import { makeRepo, tempDir } from '../../support/temp';
import { connectWsClient, stopWsClients } from '../../fixtures/terminals/ws-client';

const TOKEN = 'browser-token-must-stay-home-0123';
const KEY = 'sk-ant-planted-config-must-not-see-this';
const HOOKS = ['post-index-change', 'reference-transaction', 'post-checkout', 'pre-commit', 'pre-auto-gc', 'post-rewrite'];

let app: AppServices;
let cleanupApp: () => void;
let host: BrowserHost;
const saved = { token: process.env.FLIGHTDECK_TOKEN, key: process.env.ANTHROPIC_API_KEY };
const repo = makeRepo('fd-planted-');
const leaks = tempDir('fd-planted-leaks-');
const tools = tempDir('fd-planted-tools-');

/** Each planted program writes its environment to `<leaks>/<what>.<pid>`. */
function plant(): void {
  const spy = join(tools.path, 'spy');
  writeFileSync(spy, `#!/bin/sh\nenv > "${leaks.path}/$1.$$"\n[ "$1" = fsmonitor ] && exit 1\nexit 0\n`);
  chmodSync(spy, 0o755);
  const hooks = join(tools.path, 'hooks');
  mkdirSync(hooks);
  for (const h of HOOKS) {
    writeFileSync(join(hooks, h), `#!/bin/sh\n${spy} hook-${h}\n`);
    chmodSync(join(hooks, h), 0o755);
  }
  const set = (k: string, v: string) => execFileSync('git', ['config', k, v], { cwd: repo.path });
  set('core.fsmonitor', `${spy} fsmonitor`);
  set('core.hooksPath', hooks);
  set('alias.st', `!${spy} alias`);
  set('alias.status', `!${spy} alias-status`);
  set('credential.helper', `!${spy} credential`);
  set('diff.external', `${spy} diff-external`);
  set('diff.spy.textconv', `${spy} textconv`);
  writeFileSync(join(repo.path, '.gitattributes'), '*.md diff=spy\n');
  // A tracked file with changed content and an old mtime: status must look at it, diff shows it.
  writeFileSync(join(repo.path, 'README.md'), '# sample\nchanged by the agent\n');
  utimesSync(join(repo.path, 'README.md'), new Date('2001-01-01'), new Date('2001-01-01'));
}

function leaked(): string[] {
  return readdirSync(leaks.path);
}

beforeAll(async () => {
  plant();
  process.env.FLIGHTDECK_TOKEN = TOKEN;
  process.env.ANTHROPIC_API_KEY = KEY;
  ({ app, cleanup: cleanupApp } = await startTestApp());
  host = await startBrowserHost(app, { port: 0, token: TOKEN, rendererDir: tools.path });
});

afterAll(async () => {
  stopWsClients();
  await host.close();
  cleanupApp();
  if (saved.token === undefined) delete process.env.FLIGHTDECK_TOKEN;
  else process.env.FLIGHTDECK_TOKEN = saved.token;
  if (saved.key === undefined) delete process.env.ANTHROPIC_API_KEY;
  else process.env.ANTHROPIC_API_KEY = saved.key;
  repo.cleanup();
  leaks.cleanup();
  tools.cleanup();
});

describe('settings planted in a repository run nothing when the app reads it', () => {
  it('validate, add, refresh (over the real bridge), the agent diff, the coder snapshot and undo pre-images', async () => {
    const client = connectWsClient(host.port, TOKEN);
    expect(await client.invoke('projects.validatePath', { path: repo.path })).toMatchObject({ ok: true, root: repo.path });
    const project = await client.invoke('projects.add', { path: repo.path });
    expect(project.git).toMatchObject({ branch: 'main', dirty: true });
    await client.invoke('projects.refresh', { id: project.id });
    await client.invoke('projects.refresh', {});

    const diff = await workingDiff(repo.path);
    // The real diff, not what an external program or a text conversion made of it.
    expect(diff.diff).toContain('+changed by the agent');
    const before = await snapshotWorkspace(repo.path);
    writeFileSync(join(repo.path, 'new.md'), 'x\n');
    const after = await snapshotWorkspace(repo.path);
    expect(await changedPaths(before, after)).toEqual(expect.arrayContaining(['new.md']));
    expect(await gitWorkTree(repo.path)).toBe(true);
    expect(await preImage(repo.path, 'README.md')).toMatch(/^[0-9a-f]{40}$/);

    expect(leaked()).toEqual([]);
  });

  it('(control) the same settings do run, with the secrets, for a git started the old way', () => {
    const run = (args: string[], input?: string) => {
      try {
        execFileSync('git', args, { cwd: repo.path, env: process.env, input, stdio: ['pipe', 'ignore', 'ignore'] });
      } catch {
        // Some of the planted programs make git fail; what they wrote is what counts.
      }
    };
    utimesSync(join(repo.path, 'README.md'), new Date('2002-01-01'), new Date('2002-01-01'));
    run(['status', '--porcelain']);
    run(['diff', 'HEAD']);
    run(['diff', '--no-ext-diff', 'HEAD']);
    run(['st']);
    run(['credential', 'fill'], 'protocol=https\nhost=example.com\n\n');
    const kinds = new Set(leaked().map((f) => f.split('.')[0]));
    expect([...kinds].sort()).toEqual(expect.arrayContaining(['alias', 'credential', 'diff-external', 'fsmonitor', 'hook-post-index-change', 'textconv']));
    for (const f of leaked()) {
      const env = readFileSync(join(leaks.path, f), 'utf8');
      expect(env).toContain(KEY);
      expect(env).toContain(TOKEN);
    }
  });
});
