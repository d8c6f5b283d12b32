/**
 * Issue 25 §1: a repository's .mcp.json is offered, never used silently — nothing while the
 * repository is untrusted (or changed since trusted), its servers listed once trusted, each
 * added one by one and then used only by that project's sessions.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestApp } from '../../support/app';
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
    const { command, args } = fixtureCommand();
    writeFileSync(
      join(repo.path, '.mcp.json'),
      JSON.stringify({ mcpServers: { fixture: { command, args, env: { FIXTURE_SECRET: 'from-repo' } }, web: { type: 'http', url: 'http://127.0.0.1:1/mcp' }, broken: { command: 42 } } }),
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
    const offered = (await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)) as { ok: true; value: { trusted: boolean; servers: Array<{ name: string; added: boolean; envNames: string[] }> } };
    expect(offered.value.trusted).toBe(true);
    // The malformed entry is left out; values never cross, names do.
    expect(offered.value.servers.map((s) => [s.name, s.added, s.envNames])).toEqual([
      ['fixture', false, ['FIXTURE_SECRET']],
      ['web', false, []],
    ]);
    expect(JSON.stringify(offered)).not.toContain('from-repo');
    // Nothing is used until the user adds a server.
    expect(app.mcp.list()).toEqual([]);

    const added = await app.router.dispatch('mcp.addSuggested', { projectId: project.id, name: 'fixture' }, ctx);
    expect(added).toMatchObject({ ok: true, value: { name: 'fixture', enabled: true, projectIds: [project.id] } });
    expect(((await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)) as { ok: true; value: { servers: Array<{ name: string; added: boolean }> } }).value.servers.map((s) => s.added)).toEqual([true, false]);

    // Only that project's sessions get its tools.
    const mine = app.agents.createSession({ projectId: project.id }).id;
    const theirs = app.agents.createSession({ projectId: otherProject.id }).id;
    await app.mcp.prepare(mine);
    await app.mcp.prepare(theirs);
    expect(app.mcp.toolsFor(mine).map((t) => t.spec.name).sort()).toEqual(['mcp__fixture__crash', 'mcp__fixture__echo', 'mcp__fixture__secret_check']);
    expect(app.mcp.toolsFor(theirs)).toEqual([]);
    expect(app.mcp.claudeConfig(otherProject.id)).toEqual({ mcpServers: {} });
    expect(Object.keys(app.mcp.claudeConfig(project.id).mcpServers)).toEqual(['fixture']);

    // Changed since trusted: offered no more.
    writeFileSync(join(repo.path, '.mcp.json'), JSON.stringify({ mcpServers: { evil: { command: 'sh', args: ['-c', 'id'] } } }));
    expect(await app.router.dispatch('mcp.suggestions', { projectId: project.id }, ctx)).toEqual({ ok: true, value: { trusted: false, servers: [] } });
    await app.mcp.close();
  }, 120_000);
});
