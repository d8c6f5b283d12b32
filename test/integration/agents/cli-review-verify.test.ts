import { execFileSync } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startModelServer, type Script } from '../../fixtures/model-server/index.js';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setup(script: Script): Promise<{ data: string; repo: string }> {
  const server = await startModelServer({ script });
  const data = tempDir('fd-cli-rv-');
  const repo = makeRepo();
  cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
  process.env.FD_TEST_KEY = 'sk-cli-rv-0123456789';
  cleanups.push(() => delete process.env.FD_TEST_KEY);
  const r = await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_TEST_KEY', '--default', '--data-dir', data.path);
  expect(r.code).toBe(0);
  return { data: data.path, repo: repo.path };
}

const count = (text: string, needle: string) => text.split(needle).length - 1;

describe('flightdeck chat: /review output, the exit code after auto-verify, /undo conflicts', () => {
  it('/review prints the review once', async () => {
    const review = 'REVIEW-7781: the heading change is fine; add a test for it.';
    const { data, repo } = await setup([{ match: { userPattern: 'Review these uncommitted changes' }, blocks: [{ type: 'text', text: review }] }]);
    writeFileSync(join(repo, 'README.md'), '# changed\n');
    const r = await cli('chat', '--cwd', repo, '--data-dir', data, '/review');
    expect(r.code).toBe(0);
    expect(count(r.out, 'REVIEW-7781')).toBe(1);
    expect(r.out).toContain('Reviewed the uncommitted changes (1 file); the review is above.');
  });

  it('exits 1 and says so on stderr when the tests still fail after the last repair attempt', async () => {
    const write = (path: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content: 'x' } }] });
    const say = (text: string): Script[number] => ({ blocks: [{ type: 'text', text }] });
    const { data, repo } = await setup([write('a.txt'), say('try 1'), write('b.txt'), say('try 2'), say('never reached')]);
    // A real npm project whose tests never pass.
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0', private: true, scripts: { test: 'node -e "process.exit(3)" --' } }));
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'pkg'], { cwd: repo });
    const r = await cli('chat', '--cwd', repo, '--mode', 'auto-edit', '--approve', 'deny', '--data-dir', data, 'fix it');
    expect(r.out).toContain('✗ tests fail (exit 3): npm test');
    expect(r.err).toContain('the tests still fail: npm test exited 3 on auto-verify attempt 2, the last one of this turn.');
    expect(r.code).toBe(1);
  });

  it('/undo conflicts are resolved from the CLI with the same sub-commands', async () => {
    const { data, repo } = await setup([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'src/app.js', content: 'agent\n' } }] },
      { blocks: [{ type: 'text', text: 'created' }] },
    ]);
    const first = await cli('chat', '--cwd', repo, '--mode', 'auto-edit', '--data-dir', data, 'create the app');
    const id = /session: (ses-[a-z0-9]+)/.exec(first.out)![1]!;
    appendFileSync(join(repo, 'src/app.js'), 'mine\n');
    const undo = await cli('chat', '--session', id, '--data-dir', data, '/undo');
    expect(undo.code).toBe(1);
    expect(undo.out).toContain('Nothing undone yet');
    expect(readFileSync(join(repo, 'src/app.js'), 'utf8')).toBe('agent\nmine\n');
    const pre = await cli('chat', '--session', id, '--data-dir', data, '/undo pre');
    expect(pre.code).toBe(0);
    expect(existsSync(join(repo, 'src/app.js'))).toBe(false);
    const redo = await cli('chat', '--session', id, '--data-dir', data, '/redo');
    expect(redo.code).toBe(0);
    expect(readFileSync(join(repo, 'src/app.js'), 'utf8')).toBe('agent\nmine\n');
  });

  it('exits 0 when the last verify run passes after a repair', async () => {
    const { data, repo } = await setup([
      { blocks: [{ type: 'tool_use', name: 'write', input: { path: 'src.txt', content: 'x' } }] },
      { blocks: [{ type: 'text', text: 'done?' }] },
      { match: { userPattern: 'Auto-verify' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'fixed.txt', content: 'x' } }] },
      { blocks: [{ type: 'text', text: 'fixed' }] },
    ]);
    const test = `node -e "process.exit(require('fs').existsSync('fixed.txt') ? 0 : 1)" --`;
    writeFileSync(join(repo, 'package.json'), JSON.stringify({ name: 't', version: '1.0.0', private: true, scripts: { test } }));
    execFileSync('git', ['add', '-A'], { cwd: repo });
    execFileSync('git', ['-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-qm', 'pkg'], { cwd: repo });
    const r = await cli('chat', '--cwd', repo, '--mode', 'auto-edit', '--approve', 'deny', '--data-dir', data, 'fix it');
    expect(r.out).toContain('✓ tests pass');
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
  });
});
