/**
 * `./.coder/config.json` (seed 001 §7–8): `/model` writes it (through the real CLI), the loop
 * reads `workflow.auto_verify_after_edit`, `max_verify_attempts` and the model from it, it wins
 * over `.flightdeck/config.yml` where both set a key, every value in effect names its file, a
 * new file in a repository is announced with an offer to ignore it, and a malformed file is
 * reported with its path and never overwritten.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../../src-main/cli/main';
import type { Script } from '../../fixtures/model-server/index.js';
import { gitIn, makeRepo, tempDir } from '../../support/temp';
import { spawnCli as cli } from '../../support/cli';
import { harness, type Harness } from './harness';


let h: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  cleanups.splice(0).forEach((c) => c());
  await h?.cleanup();
  h = undefined;
});


function write(root: string, rel: string, text: string): void {
  mkdirSync(join(root, rel, '..'), { recursive: true });
  writeFileSync(join(root, rel), text);
}

/** A real npm project whose test always fails, so auto-verify runs whenever it is allowed to. */
function failingNpmProject(root: string): void {
  write(root, 'package.json', JSON.stringify({ name: 'tiny', version: '1.0.0', private: true, scripts: { test: 'node -e "process.exit(1)" --' } }));
}

const writeTool = (path: string): Script[number] => ({ blocks: [{ type: 'tool_use', name: 'write', input: { path, content: 'x' } }] });
const say = (text: string): Script[number] => ({ blocks: [{ type: 'text', text }] });

describe('.coder/config.json', () => {
  it('the CLI\'s /model writes it, announces the new untracked file, ignores it on request, and new sessions use it', async () => {
    const d = tempDir('fd-coder-config-cli-');
    const repo = makeRepo('fd-coder-config-repo-');
    cleanups.push(d.cleanup, repo.cleanup);
    write(repo.path, '.flightdeck/config.yml', '# features\nfeatures:\n  base_branch: main\nagent:\n  model: yaml-model\n');
    gitIn(repo.path, 'add', '.flightdeck/config.yml');
    gitIn(repo.path, 'commit', '-q', '-m', 'features config');
    const env = { FLIGHTDECK_DATA_DIR: join(d.path, 'data') };

    const set = await cli(['chat', '--cwd', repo.path, '/model', 'json-model-7'], env);
    expect(set.code).toBe(0);
    expect(JSON.parse(readFileSync(join(repo.path, '.coder/config.json'), 'utf8'))).toMatchObject({ model: 'json-model-7' });
    // The project's features config is not touched.
    expect(readFileSync(join(repo.path, '.flightdeck/config.yml'), 'utf8')).toBe('# features\nfeatures:\n  base_branch: main\nagent:\n  model: yaml-model\n');
    expect(set.stdout).toContain('.coder/config.json is a new file in this git repository (untracked)');
    expect(set.stdout).toContain('/model --gitignore');
    expect(gitIn(repo.path, 'status', '--porcelain', '-uall')).toContain('?? .coder/config.json');

    // The follow-up, and the listing, through the same CLI code in this process (a spawn costs seconds).
    const inProcess = async (...argv: string[]) => {
      const out: string[] = [];
      const code = await runCli([...argv, '--data-dir', env.FLIGHTDECK_DATA_DIR], { out: (l) => out.push(l), err: (l) => out.push(l) });
      return { code, stdout: out.join('\n') };
    };
    const ignore = await inProcess('chat', '--cwd', repo.path, '/model --gitignore');
    expect(ignore.code).toBe(0);
    expect(readFileSync(join(repo.path, '.gitignore'), 'utf8')).toBe('/.coder/\n');
    expect(gitIn(repo.path, 'status', '--porcelain', '-uall')).not.toContain('.coder/');
    // Already ignored: nothing is added twice.
    expect((await inProcess('chat', '--cwd', repo.path, '/model --gitignore')).stdout).toContain('.coder/ is already ignored');
    expect(readFileSync(join(repo.path, '.gitignore'), 'utf8')).toBe('/.coder/\n');

    // A new session starts on the model from .coder/config.json (it wins over the YAML), and
    // /model names where each setting in effect came from.
    const show = await inProcess('chat', '--cwd', repo.path, '/model');
    expect(show.stdout).toContain('Model: json-model-7');
    expect(show.stdout).toMatch(/agent\.model = json-model-7 {2}— \.coder\/config\.json/);
    expect(show.stdout).toMatch(/workflow\.max_verify_attempts = 2 {2}— default/);
  }, 90_000);

  it('the loop reads auto_verify_after_edit and max_verify_attempts from it, over .flightdeck/config.yml', async () => {
    h = await harness([writeTool('a.txt'), say('one'), writeTool('b.txt'), say('two'), say('never')]);
    failingNpmProject(h.repo);
    write(h.repo, '.flightdeck/config.yml', 'workflow:\n  max_verify_attempts: 5\n  auto_verify_after_edit: true\n');
    write(h.repo, '.coder/config.json', JSON.stringify({ workflow: { max_verify_attempts: 1 } }));
    const id = h.session({ mode: 'auto-edit' });
    await h.app.agents.run(id, 'fix it');
    expect(h.events(id, 'verify.started').map((v) => v.maxAttempts)).toEqual([1]);
    expect(h.events(id, 'verify.skipped').at(-1)?.message).toContain('max_verify_attempts = 1');

    const cfg = h.app.agents.effectiveConfig(id);
    expect(cfg.entries.find((e) => e.key === 'workflow.max_verify_attempts')).toEqual({ key: 'workflow.max_verify_attempts', value: 1, source: '.coder/config.json', path: join(h.repo, '.coder/config.json') });
    expect(cfg.entries.find((e) => e.key === 'workflow.auto_verify_after_edit')).toEqual({ key: 'workflow.auto_verify_after_edit', value: true, source: '.flightdeck/config.yml', path: join(h.repo, '.flightdeck/config.yml') });
    expect(cfg.entries.find((e) => e.key === 'workflow.verify_command')).toMatchObject({ value: null, source: 'default', path: null });

    // Turned off in .coder/config.json while the YAML says on: off wins, and the notice names the file.
    write(h.repo, '.coder/config.json', JSON.stringify({ workflow: { auto_verify_after_edit: false } }));
    const before = h.events(id, 'verify.started').length;
    h.server.setScript([writeTool('c.txt'), say('three')]);
    await h.app.agents.run(id, 'again');
    expect(h.events(id, 'verify.started')).toHaveLength(before);
    expect(h.events(id, 'verify.skipped').at(-1)).toMatchObject({ reason: 'disabled', message: expect.stringContaining('workflow.auto_verify_after_edit is false (set in .coder/config.json)') });
  }, 60_000);

  it('a malformed file is reported with its path, ignored, and never overwritten', async () => {
    h = await harness([writeTool('a.txt'), say('done')]);
    failingNpmProject(h.repo);
    const path = join(h.repo, '.coder/config.json');
    write(h.repo, '.coder/config.json', '{ "workflow": { "max_verify_attempts": 1, } ');
    const id = h.session({ mode: 'auto-edit' });
    expect(h.app.agents.effectiveConfig(id).problem).toContain(`${path} is not valid JSON`);
    await h.app.agents.run(id, 'fix it');
    // The file's settings are not used (the default of 2 attempts applies) and the user is told why.
    expect(h.events(id, 'verify.started')[0]?.maxAttempts).toBe(2);
    expect(h.events(id, 'notice').map((n) => n.text).join('\n')).toContain(`${path} is not valid JSON`);
    const r = await h.app.agents.run(id, '/model other-model');
    expect(r.outcome).toBe('completed');
    expect(h.events(id, 'model.changed').at(-1)?.persistError).toContain(`${path} is not valid JSON`);
    expect(readFileSync(path, 'utf8')).toBe('{ "workflow": { "max_verify_attempts": 1, } ');
    // A key of the wrong type is named; the others still apply.
    write(h.repo, '.coder/config.json', JSON.stringify({ model: 'm', workflow: { max_verify_attempts: 'three' } }));
    const cfg = h.app.agents.effectiveConfig(id);
    expect(cfg.problem).toBe(`${path}: ignored workflow.max_verify_attempts (must be a whole number, 0 or more)`);
    expect(cfg.entries.find((e) => e.key === 'agent.model')).toMatchObject({ value: 'm', source: '.coder/config.json' });
  }, 60_000);

  it('outside a git repository /model writes the file without a .gitignore offer, and --gitignore says why it cannot', async () => {
    h = await harness([]);
    const plain = tempDir('fd-coder-config-plain-');
    cleanups.push(plain.cleanup);
    const id = h.session({ root: plain.path });
    await h.app.agents.run(id, '/model plain-model');
    const set = h.events(id, 'command.result').at(-1)!;
    expect(set.text).not.toContain('.gitignore');
    expect(set.actions).toBeUndefined();
    expect(JSON.parse(readFileSync(join(plain.path, '.coder/config.json'), 'utf8'))).toMatchObject({ model: 'plain-model' });
    const r = await h.app.agents.run(id, '/model --gitignore');
    expect(r.outcome).toBe('failed');
    expect(h.events(id, 'command.result').at(-1)!.text).toBe(`Could not add .coder/ to .gitignore: ${plain.path} is not in a git repository, so there is no .gitignore to add .coder/ to.`);
  }, 60_000);
});
