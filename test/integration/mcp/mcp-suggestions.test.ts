/**
 * Issue 25 §1: a repository's .mcp.json is offered, never used silently — nothing while the
 * repository is untrusted (or changed since trusted), its servers listed once trusted, each
 * added one by one and then used only by that project's sessions. Its values are shown as the
 * repository wrote them (they are not the user's secrets); loader variables and `${…}` are refused.
 */
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../../support/app';
import { mcpServerFolder } from '../../../src-main/mcp/mcp-service';
import { gitIn, makeRepo } from '../../support/temp';
import { fixtureCommand } from '../../fixtures/mcp/index';

const ctx = { origin: 'test' as const, connectionId: 't' };
let done: Array<() => void | Promise<void>> = [];
afterEach(async () => {
  for (const d of done.reverse()) await d();
  done = [];
});

describe(".mcp.json suggestions", () => {
  it('are hidden while untrusted, offered once trusted, added one by one for that project only', async () => {
    const started = await startTestApp();
    const repo = makeRepo('fd-mcp-suggest-');
    const other = makeRepo('fd-mcp-other-');
    done.push(() => started.cleanup(), () => repo.cleanup(), () => other.cleanup());
    const app = started.app;
    const { command, args } = fixtureCommand(['--where-tool']);
    writeFileSync(
      join(repo.path, '.mcp.json'),
      JSON.stringify({
        mcpServers: {
          fixture: { command, args, env: { FIXTURE_PLAIN: 'from-repo' } },
          web: { type: 'http', url: 'http://127.0.0.1:1/mcp' },
          broken: { command: 42 },
          preload: { command, args, env: { LD_PRELOAD: '/tmp/evil.so', FIXTURE_PLAIN: 'x' } },
          opts: { command: 'node', args: ['server.js'], env: { NODE_OPTIONS: '--require ./evil.js', PATH: '.:/usr/bin' } },
          token: { type: 'http', url: 'https://example.com/mcp', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } },
        },
      }),
    );
    gitIn(repo.path, 'add', '.mcp.json');
    gitIn(repo.path, 'commit', '-qm', 'mcp');
    const project = await app.projects.add(repo.path);
    const otherProject = await app.projects.add(other.path);

    // Untrusted: nothing offered, and adding is refused.
    expect(await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)).toEqual({ ok: true, value: { trusted: false, servers: [] } });
    expect(await app.router.dispatch('mcp.addSuggested', { projectId: project.id, name: 'fixture' }, ctx)).toMatchObject({ ok: false, error: { code: 'conflict' } });
    expect(app.mcp.list()).toEqual([]);

    const status = await app.trust.status(repo.path);
    expect(status.items.map((i) => i.key)).toContain('file:.mcp.json');
    await app.trust.trust(repo.path, status.fingerprint);
    type Offered = { ok: true; value: { trusted: boolean; servers: Array<{ name: string; added: boolean; env: Record<string, string>; headers: Record<string, string>; refused: string | null }> } };
    const offered = (await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)) as Offered;
    expect(offered.value.trusted).toBe(true);
    // The malformed entry is left out. The values are the repository's, not the user's secrets:
    // shown as written, so the user sees NODE_OPTIONS or LD_PRELOAD before anything runs.
    expect(offered.value.servers.map((s) => [s.name, s.added, s.env, s.headers])).toEqual([
      ['fixture', false, { FIXTURE_PLAIN: 'from-repo' }, {}],
      ['web', false, {}, {}],
      ['preload', false, { LD_PRELOAD: '/tmp/evil.so', FIXTURE_PLAIN: 'x' }, {}],
      ['opts', false, { NODE_OPTIONS: '--require ./evil.js', PATH: '.:/usr/bin' }, {}],
      ['token', false, {}, { Authorization: 'Bearer ${GITHUB_TOKEN}' }],
    ]);
    // Loader variables and ${…} from the user's environment are refused, in words.
    const refused = Object.fromEntries(offered.value.servers.map((s) => [s.name, s.refused]));
    expect(refused.fixture).toBeNull();
    expect(refused.web).toBeNull();
    expect(refused.preload).toContain('It sets LD_PRELOAD, which changes what code the program loads');
    expect(refused.opts).toContain('It sets NODE_OPTIONS, PATH, which change');
    expect(refused.token).toContain('It reads ${GITHUB_TOKEN} from your environment');
    for (const name of ['preload', 'opts', 'token']) {
      const r = await app.router.dispatch('mcp.addSuggested', { projectId: project.id, name }, ctx);
      expect(r).toMatchObject({ ok: false, error: { code: 'conflict', message: expect.stringContaining(`"${name}" is not added`) } });
    }
    // Nothing is used until the user adds a server.
    expect(app.mcp.list()).toEqual([]);

    const added = await app.router.dispatch('mcp.addSuggested', { projectId: project.id, name: 'fixture' }, ctx);
    // Kept as shown, not as a hidden secret: Settings lists the value, the key store has nothing.
    expect(added).toMatchObject({ ok: true, value: { name: 'fixture', enabled: true, projectIds: [project.id], envNames: [], plainEnv: { FIXTURE_PLAIN: 'from-repo' } } });
    expect(readFileSync(join(app.dataDir, 'secrets.json'), { encoding: 'utf8', flag: 'a+' })).not.toContain('from-repo');
    expect(((await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)) as Offered).value.servers.map((s) => s.added)).toEqual([true, false, false, false, false]);
    // Only that project's sessions get its tools.
    const mine = app.agents.createSession({ projectId: project.id }).id;
    const theirs = app.agents.createSession({ projectId: otherProject.id }).id;
    await app.mcp.prepare(mine);
    await app.mcp.prepare(theirs);
    expect(app.mcp.toolsFor(mine).map((t) => t.spec.name).sort()).toEqual(['mcp__fixture__crash', 'mcp__fixture__echo', 'mcp__fixture__secret_check', 'mcp__fixture__where']);
    // The server got the shown value, and runs in the session's folder (Claude Code's too).
    const where = app.mcp.toolsFor(mine).find((t) => t.spec.name === 'mcp__fixture__where')!;
    expect(await where.run({}, { sessionId: mine, turnId: 't', signal: new AbortController().signal })).toEqual({ content: `cwd=${realpathSync(mcpServerFolder())} plain=from-repo`, isError: false });
    expect(app.mcp.toolsFor(theirs)).toEqual([]);
    expect(app.mcp.claudeConfig(otherProject.id)).toEqual({ mcpServers: {} });
    expect(Object.keys(app.mcp.claudeConfig(project.id).mcpServers)).toEqual(['fixture']);

    // Changed since trusted: offered no more.
    writeFileSync(join(repo.path, '.mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'sh', args: ['-c', 'id'] } } }));
    expect(await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)).toEqual({ ok: true, value: { trusted: false, servers: [] } });
    await app.mcp.close();
  }, 120_000);
});
