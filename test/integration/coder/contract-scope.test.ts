/**
 * The Implementation Contract's scope is enforced, not only reported: a file tool aimed at an
 * out-of-scope path is refused before it runs (with the reason), and what a command changed
 * out of scope anyway is put back after the run and reported. Real claude CLI, scripted model.
 */
import { spawn } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLAUDE_BIN, coderHarness, TEST_KEY, type CoderHarness } from './support';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const CONTRACT = ['# Contract', '## Goal', 'Fix the parser.', '## Allowed paths', '- `src/**`', '## Out of scope', '- `src/legacy/**`', ''].join('\n');

/** The contract and a legacy file, committed; an untracked note of the user's, not committed. */
function seed(repo: string): void {
  mkdirSync(join(repo, 'ai/contracts'), { recursive: true });
  mkdirSync(join(repo, 'src/legacy'), { recursive: true });
  writeFileSync(join(repo, 'ai/contracts/current.md'), CONTRACT);
  writeFileSync(join(repo, 'src/legacy/old.js'), 'legacy\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@e', 'commit', '-qm', 'contract'], { cwd: repo });
  writeFileSync(join(repo, 'notes.txt'), 'my own notes\n');
}

function cli(args: string[], stdin: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const e: NodeJS.ProcessEnv = { ...process.env, ...env };
    for (const k of Object.keys(e)) if (k.startsWith('ANTHROPIC_') && !(k in env)) delete e[k];
    const child = spawn(TSX, ['src-main/cli/main.ts', 'coder', ...args], { cwd: ROOT, env: e, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.stdin.end(stdin);
    child.on('close', (code) => done({ code, stdout, stderr }));
  });
}

describe('contract scope', () => {
  it('with the constraints injected (no --check-contract), a Write to an out-of-scope path is refused before it runs', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'src/legacy/new.js', content: 'added\n' } }] },
      { match: { userPattern: 'Refused by the Implementation Contract' }, blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'src/parser.js', content: 'ok\n' } }] },
      { match: { userPattern: 'File created successfully' }, blocks: [{ type: 'text', text: 'Stayed in scope.' }] },
    ]);
    seed(h.repo);
    const r = await cli(['--claude', CLAUDE_BIN, '--inject'], JSON.stringify({ PROMPT: 'fix the parser', cd: h.repo, timeout: 30 }), {
      HOME: h.home,
      ANTHROPIC_BASE_URL: h.server.url,
      ANTHROPIC_API_KEY: TEST_KEY,
      CLAUDE_CODE_MAX_RETRIES: '0',
    });
    expect(JSON.parse(r.stdout)).toMatchObject({ success: true, result: 'Stayed in scope.' });
    expect(existsSync(join(h.repo, 'src/legacy/new.js'))).toBe(false);
    expect(readFileSync(join(h.repo, 'src/parser.js'), 'utf8')).toBe('ok\n');
    // The model read why, with the scope to stay in.
    const refusal = JSON.stringify(h.server.mainRequests()[1]!.body);
    expect(refusal).toContain('src/legacy/new.js is out of scope (src/legacy/**)');
    expect(refusal).toContain('Allowed paths: src/**');
  }, 90_000);

  it('what a command changed out of scope is reverted after the run and reported as contract_violation', async () => {
    h = await coderHarness([
      {
        blocks: [
          {
            type: 'tool_use',
            name: 'Bash',
            input: { command: 'echo hacked > src/legacy/old.js; echo stray > stray.txt; echo overwritten > notes.txt; echo fine > src/fine.js; echo done', description: 'edit' },
          },
        ],
      },
      { blocks: [{ type: 'text', text: 'Edited.' }] },
    ]);
    seed(h.repo);
    const r = await h.run({ PROMPT: 'fix the parser' }, { checkContract: true });
    expect(r).toMatchObject({ success: false, error_kind: 'contract_violation' });
    if (r.success) throw new Error('unreachable');
    expect(r.error).toContain('src/legacy/old.js (out of scope (src/legacy/**))');
    expect(r.error).toMatch(/Reverted to how they were before the run: .*notes\.txt.*src\/legacy\/old\.js.*stray\.txt/);
    // From outside: each out-of-scope path is as it was; the in-scope change stays.
    expect(readFileSync(join(h.repo, 'src/legacy/old.js'), 'utf8')).toBe('legacy\n');
    expect(readFileSync(join(h.repo, 'notes.txt'), 'utf8')).toBe('my own notes\n');
    expect(existsSync(join(h.repo, 'stray.txt'))).toBe(false);
    expect(readFileSync(join(h.repo, 'src/fine.js'), 'utf8')).toBe('fine\n');
  }, 90_000);
});
