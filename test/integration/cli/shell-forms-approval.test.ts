/**
 * Issue 26 against the real CLI: the stand-in model asks for shell commands that write in every
 * form the policy must see through (the four reported attacks first); `chat --approve deny`
 * answers every question "deny". Each command must have been asked (and denied), and the
 * repository must be exactly as it was: no file changed, created or emptied, nothing outside it.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cli } from '../../support/cli';
import { startModelServer, type Script } from '../../fixtures/model-server/index.js';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

const REPORTED = ['> a.txt', 'env > created-unasked.txt', 'env >> .gitignore', 'env "X=1; touch ../pwn-x" > chosen.sh'];

/** Each writes or creates a file in the repository if it runs. Split over the two modes to keep the runs short. */
const FORMS_DEFAULT = [
  'env -i > e.txt',
  'nice -n 5 ls > n.txt',
  'ls >| c.txt',
  'ls 2> d.txt',
  'ls &> f.txt',
  'ls <> g.txt',
  'exec 3> h.txt',
  '{ ls; } > i.txt',
  '( ls ) >> a.txt',
  'echo $(touch j.txt)',
  'cat <(touch k.txt)',
  "sh -c 'touch l.txt'",
  "eval 'touch m.txt'",
  'sed -i s/sample/x/ README.md',
  'tee o.txt < README.md',
  'dd if=README.md of=p.txt',
];
const FORMS_AUTO_EDIT = [
  'find . -maxdepth 1 -name README.md -exec touch q.txt \\;',
  "awk 'BEGIN { print \"x\" > \"r.txt\" }'",
  "node -e 'require(\"fs\").writeFileSync(\"s.txt\", \"\")'",
  'f() { touch t.txt; }; f',
  'xargs touch <<< u.txt',
  'timeout 5 touch v.txt',
  'cat README.md | tee -a .gitignore',
  'sort -o w.txt README.md',
  'truncate -s 0 README.md',
  'ln -s README.md z.txt',
  'tar -cf aa.tar README.md',
  "sh <<< 'touch bb.txt'",
  'bash -c "echo x > cc.txt"',
  "y='a[$(touch dd.txt)]'; echo $((y))",
  'PATH=.:$PATH ls > ee.txt',
  'sudo -n touch ff.txt',
];

function git(repo: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
}

describe('flightdeck chat --approve deny: every shell form that writes is asked (issue 26)', () => {
  it.each([
    ['default', FORMS_DEFAULT],
    ['auto-edit', FORMS_AUTO_EDIT],
  ] as const)('%s mode', async (mode, forms) => {
    const commands = [...REPORTED, ...forms];
    const script: Script = [...commands.map((command) => ({ blocks: [{ type: 'tool_use' as const, name: 'bash', input: { command } }] })), { blocks: [{ type: 'text', text: 'done' }] }];
    const server = await startModelServer({ script });
    const data = tempDir('fd-cli-forms-');
    const repo = makeRepo('fd-cli-forms-repo-');
    const outside = join(dirname(repo.path), 'pwn-x');
    cleanups.push(() => server.close(), data.cleanup, repo.cleanup);
    writeFileSync(join(repo.path, 'a.txt'), 'tracked content\n');
    writeFileSync(join(repo.path, '.gitignore'), 'node_modules/\n');
    git(repo.path, 'add', '.');
    git(repo.path, 'commit', '-q', '-m', 'files');
    process.env.FD_TEST_KEY = 'sk-forms-0123456789';
    cleanups.push(() => delete process.env.FD_TEST_KEY);
    expect((await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_TEST_KEY', '--default', '--data-dir', data.path)).code).toBe(0);

    const r = await cli('chat', '--cwd', repo.path, '--mode', mode, '--approve', 'deny', '--data-dir', data.path, 'try the forms');
    expect(r.code, r.out + r.err).toBe(0);
    // Every command was asked, and denied; none ran on a rule.
    const denied = r.lines.filter((l) => l.includes('✘ denied:'));
    expect(denied).toHaveLength(commands.length);
    expect(r.out).not.toContain('Approved for this session');
    expect(r.out).not.toContain('⤷ bash exit');
    // The repository is as committed: nothing modified, created (ignored files included) or emptied.
    expect(git(repo.path, 'status', '--porcelain', '--ignored', '--untracked-files=all')).toBe('');
    expect(readFileSync(join(repo.path, 'a.txt'), 'utf8')).toBe('tracked content\n');
    expect(existsSync(outside)).toBe(false);
  }, 120_000);
});
