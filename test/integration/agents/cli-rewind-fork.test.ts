import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startModelServer } from '../../fixtures/model-server/index.js';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

describe('flightdeck chat "/rewind N" and session fork', () => {
  it('rewinds a session in place, and forks another turn into a new worktree session that continues on its own', async () => {
    const server = await startModelServer({
      script: [
        { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'one.txt', content: 'first\n' } }] },
        { blocks: [{ type: 'text', text: 'wrote one' }] },
        { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'two.txt', content: 'second\n' } }] },
        { blocks: [{ type: 'text', text: 'wrote two' }] },
      ],
    });
    const data = tempDir('fd-cli-rewind-');
    const repo = makeRepo();
    cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
    process.env.FD_TEST_KEY = 'sk-cli-rewind-0123456789';
    cleanups.push(() => delete process.env.FD_TEST_KEY);
    expect((await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_TEST_KEY', '--default', '--data-dir', data.path)).code).toBe(0);
    const first = await cli('chat', '--cwd', repo.path, '--mode', 'auto-edit', '--data-dir', data.path, 'make one');
    const id = /session: (ses-[a-z0-9]+)/.exec(first.out)![1]!;
    expect((await cli('chat', '--session', id, '--data-dir', data.path, 'make two')).code).toBe(0);
    expect(existsSync(join(repo.path, 'two.txt'))).toBe(true);

    // Fork at turn 1 first: the fork has one.txt only; the original keeps both.
    const fork = await cli('session', 'fork', id, '1', '--json', '--data-dir', data.path);
    expect(fork.code).toBe(0);
    const f = JSON.parse(fork.out) as { sessionId: string; root: string; turn: number; files: string[] };
    expect(f.turn).toBe(1);
    expect(f.files).toEqual(['two.txt']);
    expect(readFileSync(join(f.root, 'one.txt'), 'utf8')).toBe('first\n');
    expect(existsSync(join(f.root, 'two.txt'))).toBe(false);
    expect(existsSync(join(repo.path, 'two.txt'))).toBe(true);

    // Then rewind the original in place to turn 0: both files go.
    const r = await cli('chat', '--session', id, '--data-dir', data.path, '/rewind 0');
    expect(r.code).toBe(0);
    expect(r.out).toContain('Rewound to turn 0 (before the first turn)');
    expect(existsSync(join(repo.path, 'one.txt'))).toBe(false);
    expect(existsSync(join(repo.path, 'two.txt'))).toBe(false);
    // The fork is untouched by that.
    expect(readFileSync(join(f.root, 'one.txt'), 'utf8')).toBe('first\n');

    const cont = await cli('chat', '--session', f.sessionId, '--data-dir', data.path, 'fork goes on');
    expect(cont.code).toBe(0);
    const sent = JSON.stringify((server.mainRequests().at(-1)!.body as { messages: unknown[] }).messages);
    expect(sent).toContain('make one');
    expect(sent).not.toContain('make two');

    const bad = await cli('session', 'fork', id, 'x', '--data-dir', data.path);
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('"x" is not a turn number');
  });
});
