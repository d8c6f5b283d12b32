/**
 * `flightdeck chat --cwd DIR` runs exactly in DIR; `chat --worktree [--cwd REPO]` starts the
 * session in a new worktree of the repository and prints where. Against the scripted model
 * server, with the agent's write checked on disk and the user's checkout checked with git status.
 */
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startModelServer, type Script } from '../../fixtures/model-server/index.js';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const KEY = 'sk-cli-worktree-0123456789abcdef';
const write = (path: string, content: string): Script => [
  { match: { userPattern: `write ${path}` }, blocks: [{ type: 'tool_use', name: 'write', input: { path, content } }] },
  { match: { userPattern: path }, blocks: [{ type: 'text', text: `Wrote ${path}.` }] },
];

async function setup(script: Script): Promise<{ data: string; repo: string }> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-cli-wt-data-');
  const repo = makeRepo('fd-cli-wt-repo-');
  cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
  process.env.FD_TEST_KEY = KEY;
  cleanups.push(() => delete process.env.FD_TEST_KEY);
  const r = await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_TEST_KEY', '--default', '--data-dir', data.path);
  expect(r.code).toBe(0);
  return { data: data.path, repo: repo.path };
}

describe('flightdeck chat --worktree / --cwd', () => {
  it('--worktree starts the session in a new worktree, prints its path and branch, and leaves the checkout untouched', async () => {
    const { data, repo } = await setup(write('made-here.txt', 'in the worktree\n'));
    const r = await cli('chat', '--worktree', '--cwd', repo, '--mode', 'auto-edit', '--data-dir', data, 'please write made-here.txt');
    expect(r.code).toBe(0);
    const path = /^worktree: (.+)$/m.exec(r.out)?.[1];
    const branch = /^branch: (\S+) \(from main\)$/m.exec(r.out)?.[1];
    expect(path).toMatch(new RegExp(`^${repo}/\\.trees/session-\\d{8}-\\d{4}$`));
    expect(branch).toBe(`feature/${path!.split('/').pop()}`);
    expect(gitIn(path!, 'branch', '--show-current').trim()).toBe(branch);
    expect(readFileSync(join(path!, 'made-here.txt'), 'utf8')).toBe('in the worktree\n');
    expect(existsSync(join(repo, 'made-here.txt'))).toBe(false);
    expect(gitIn(repo, 'status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(r.out).toContain('Wrote made-here.txt.');

    // --json: the worktree first, then the events.
    const again = await cli('chat', '--worktree', '--cwd', repo, '--json', '--data-dir', data, '/help');
    const first = JSON.parse(again.lines[0]!) as { worktree: { path: string; branch: string; base: string; slug: string } };
    expect(first.worktree).toMatchObject({ base: 'main', branch: `feature/${first.worktree.slug}` });
    expect(first.worktree.path).not.toBe(path);
    expect(readdirSync(join(repo, '.trees')).sort()).toEqual([path!.split('/').pop(), first.worktree.slug].sort());
  }, 60_000);

  it('--cwd DIR runs exactly in DIR (a subfolder stays the root, no worktree); --worktree refuses --session and a folder outside git', async () => {
    const { data, repo } = await setup(write('here.txt', 'in the subfolder\n'));
    const sub = join(repo, 'pkg');
    mkdirSync(sub);
    const r = await cli('chat', '--cwd', sub, '--mode', 'auto-edit', '--data-dir', data, 'please write here.txt');
    expect(r.code).toBe(0);
    expect(readFileSync(join(sub, 'here.txt'), 'utf8')).toBe('in the subfolder\n');
    expect(existsSync(join(repo, 'here.txt'))).toBe(false);
    expect(existsSync(join(repo, '.trees'))).toBe(false);
    expect(r.out).not.toContain('worktree:');

    const both = await cli('chat', '--worktree', '--session', 'ses-abcdef12', '--data-dir', data, 'hi');
    expect(both.code).toBe(2);
    expect(both.err).toContain('--worktree starts a new session');

    const plain = tempDir('fd-cli-wt-plain-');
    cleanups.push(plain.cleanup);
    const outside = await cli('chat', '--worktree', '--cwd', plain.path, '--data-dir', data, 'hi');
    expect(outside.code).toBe(1);
    expect(outside.err).toContain('is not a git repository');
  }, 60_000);
});
