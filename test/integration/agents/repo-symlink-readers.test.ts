import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildCoderPrompt, contextPackFor, loadConstraints, readContract } from '../../../src-main/coder/constraints';
import { gatherRepo } from '../../../src-main/features/init';
import { gitIn, makeRepo, tempDir } from '../../support/temp';

/**
 * Files of a repository the app reads by itself and puts into a prompt for a model provider:
 * Claude Code's constraint files (`ai/…`) and `feature init`'s key files. A symlink committed in
 * the repository, or made by an agent in its worktree, must not carry a file from outside into
 * that prompt (`/proc/self/environ` is the app's own environment; a credentials file, a key).
 */
const cleanups: Array<() => unknown> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

const SECRET = 'AWS_SECRET_ACCESS_KEY=do-not-send-me';

/** A secret file outside the repository. */
function outsideSecret(): string {
  const d = tempDir('fd-outside-');
  cleanups.push(() => d.cleanup());
  const file = join(d.path, 'credentials');
  writeFileSync(file, SECRET);
  return file;
}

function repo(): string {
  const r = makeRepo('fd-symlink-readers-');
  cleanups.push(() => r.cleanup());
  return r.path;
}

describe('files of a repository that go into a prompt', () => {
  it("a constraint file that is a symlink to a file outside is left out of Claude Code's prompt and named as refused", async () => {
    const root = repo();
    const secret = outsideSecret();
    mkdirSync(join(root, 'ai/contracts'), { recursive: true });
    symlinkSync(secret, join(root, 'ai/engineering_codex.md'));
    writeFileSync(join(root, 'ai/implementer_guardrails.md'), 'Keep functions small.\n');

    const built = await buildCoderPrompt({ task: 'fix the bug', cd: root, inject: true });
    expect(built.prompt).not.toContain(SECRET);
    expect(built.prompt).toContain('Keep functions small.');
    expect(built.injected.map((f) => f.path)).toEqual(['ai/implementer_guardrails.md']);
    expect(built.refused).toEqual([{ path: 'ai/engineering_codex.md', reason: expect.stringMatching(/symbolic link/) }]);
  });

  it('a contract that is a symlink (or behind a linked folder) is not read for a new conversation’s context pack', async () => {
    const root = repo();
    const secret = outsideSecret();
    mkdirSync(join(root, 'ai'));
    symlinkSync(join(secret, '..'), join(root, 'ai/contracts'));
    writeFileSync(join(secret, '..', 'current.md'), `# Goal\n${SECRET}\n`);
    const pack = await contextPackFor(root, null);
    expect(JSON.stringify(pack)).not.toContain(SECRET);
    expect(pack.contract).toBeNull();
    const loaded = await loadConstraints(root);
    expect(loaded.refused.map((f) => f.path)).toEqual(['ai/contracts/current.md']);
    // Its scope is checked by runs that ask for it: refused, it is an error saying so, not "no contract".
    await expect(readContract(root)).rejects.toThrow(/ai\/contracts\/current\.md is not read: .*symbolic link.*Its change scope cannot be checked/);
  });

  it("feature init does not sample a committed README or package.json that links outside, nor use it to detect the checks", async () => {
    const root = repo();
    const secret = outsideSecret();
    gitIn(root, 'rm', '-q', 'README.md');
    symlinkSync(secret, join(root, 'README.md'));
    writeFileSync(join(secret, '..', 'package.json'), JSON.stringify({ scripts: { test: `echo ${SECRET}` } }));
    symlinkSync(join(secret, '..', 'package.json'), join(root, 'package.json'));
    writeFileSync(join(root, 'Makefile'), 'test:\n\techo ok\n');
    gitIn(root, 'add', '-A');
    gitIn(root, 'commit', '-q', '-m', 'links');

    const gathered = await gatherRepo(root);
    expect(gathered.paths).toEqual(expect.arrayContaining(['README.md', 'package.json', 'Makefile']));
    expect(JSON.stringify(gathered.samples)).not.toContain(SECRET);
    expect([...gathered.contents.values()].join('\n')).not.toContain(SECRET);
    expect(gathered.samples.map((s) => s.path)).toEqual(['Makefile']);
  });
});
