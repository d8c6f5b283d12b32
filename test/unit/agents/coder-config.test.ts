import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { coderConfigValues, ignoreCoderConfig, parseCoderConfig, readCoderConfig, updateCoderConfig } from '../../../src-main/agents/orchestrator/coder-config';
import { configEntries, readProjectConfig, updateProjectConfig } from '../../../src-main/agents/orchestrator/project-config';
import { makeRepo, tempDir } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => cleanups.splice(0).forEach((c) => c()));

function folder(files: Record<string, string>): string {
  const d = tempDir('fd-coder-config-');
  cleanups.push(d.cleanup);
  for (const [rel, text] of Object.entries(files)) {
    mkdirSync(join(d.path, rel, '..'), { recursive: true });
    writeFileSync(join(d.path, rel), text);
  }
  return d.path;
}

describe('.coder/config.json values', () => {
  it('reads the keys the specification gives, both spellings of max_verify_attempts, and names wrong types', () => {
    expect(coderConfigValues({ model: 'glm-4.7', profile: 'glm', workflow: { auto_verify_after_edit: false, max_verify_attempts: 4, verify_command: 'pytest -q', todo_auto_init: false } })).toEqual({
      values: { model: 'glm-4.7', profile: 'glm', autoVerifyAfterEdit: false, maxVerifyAttempts: 4, verifyCommand: 'pytest -q', todoAutoInit: false },
      bad: [],
    });
    expect(coderConfigValues({ max_verify_attempts: 0 }).values).toEqual({ maxVerifyAttempts: 0 });
    expect(coderConfigValues({ model: '', workflow: { auto_verify_after_edit: 'yes', max_verify_attempts: -1 } }).bad).toEqual([
      'model (must be a non-empty string)',
      'workflow.auto_verify_after_edit (must be true or false)',
      'workflow.max_verify_attempts (must be a whole number, 0 or more)',
    ]);
    expect(parseCoderConfig('[1]', '/p/.coder/config.json').problem).toBe('/p/.coder/config.json must hold a JSON object ({ … }); its settings are ignored until it is fixed');
    expect(parseCoderConfig('{', '/p/.coder/config.json').problem).toMatch(/^\/p\/\.coder\/config\.json is not valid JSON \(/);
  });

  it('wins over .flightdeck/config.yml key by key; every value names its file or the default', () => {
    const dir = folder({
      '.flightdeck/config.yml': 'agent:\n  model: from-yaml\n  profile: glm\nworkflow:\n  max_verify_attempts: 5\n',
      '.coder/config.json': JSON.stringify({ model: 'from-json', workflow: { max_verify_attempts: 1 } }),
    });
    const c = readProjectConfig(dir);
    expect(c.problem).toBeNull();
    const byKey = Object.fromEntries(configEntries(c).map((e) => [e.key, [e.value, e.source]]));
    expect(byKey).toEqual({
      'agent.profile': ['glm', '.flightdeck/config.yml'],
      'agent.model': ['from-json', '.coder/config.json'],
      'workflow.auto_verify_after_edit': [true, 'default'],
      'workflow.max_verify_attempts': [1, '.coder/config.json'],
      'workflow.verify_command': [null, 'default'],
      'workflow.todo_auto_init': [true, 'default'],
    });
  });

  it('writes model and profile keeping the other keys; refuses to touch a file it cannot parse', () => {
    const dir = folder({ '.coder/config.json': JSON.stringify({ theme: 'dark', workflow: { max_verify_attempts: 3 } }) });
    expect(updateCoderConfig(dir, { model: 'm2', profile: 'p' })).toEqual({ path: join(dir, '.coder/config.json'), created: false });
    expect(JSON.parse(readFileSync(join(dir, '.coder/config.json'), 'utf8'))).toEqual({ theme: 'dark', workflow: { max_verify_attempts: 3 }, model: 'm2', profile: 'p' });
    const fresh = folder({});
    expect(updateCoderConfig(fresh, { model: 'm' }).created).toBe(true);
    const broken = folder({ '.coder/config.json': 'not json' });
    expect(() => updateCoderConfig(broken, { model: 'm' })).toThrow(`${join(broken, '.coder/config.json')} is not valid JSON`);
    expect(readFileSync(join(broken, '.coder/config.json'), 'utf8')).toBe('not json');
  });
});

describe('/model and "Add .coder/ to .gitignore" in a folder whose files link elsewhere', () => {
  it('a .coder committed as a link to another folder is refused: no config.json is written there', () => {
    const root = folder({});
    const elsewhere = folder({});
    symlinkSync(elsewhere, join(root, '.coder'));
    expect(() => updateCoderConfig(root, { model: 'glm-4.7' })).toThrow(/symbolic link.*nothing was changed/);
    expect(existsSync(join(elsewhere, 'config.json'))).toBe(false);
  });

  it('a config.json that is a link is neither read nor replaced', () => {
    const root = folder({ '.coder/x': '' });
    const elsewhere = folder({ 'config.json': '{"model":"theirs"}\n' });
    symlinkSync(join(elsewhere, 'config.json'), join(root, '.coder', 'config.json'));
    expect(() => updateCoderConfig(root, { model: 'glm-4.7' })).toThrow(/symbolic link/);
    expect(readFileSync(join(elsewhere, 'config.json'), 'utf8')).toBe('{"model":"theirs"}\n');
  });

  it('a .gitignore that is a link is neither appended to nor copied into the repository', async () => {
    const r = makeRepo('fd-coder-ignore-');
    cleanups.push(r.cleanup);
    const elsewhere = folder({ 'ssh_config': 'Host *\n  IdentityFile ~/.ssh/id\n' });
    symlinkSync(join(elsewhere, 'ssh_config'), join(r.path, '.gitignore'));
    await expect(ignoreCoderConfig(r.path)).rejects.toThrow(/symbolic link/);
    expect(readFileSync(join(elsewhere, 'ssh_config'), 'utf8')).toBe('Host *\n  IdentityFile ~/.ssh/id\n');
  });

  it('(control) a plain folder gets its config and its ignore entry', async () => {
    const r = makeRepo('fd-coder-ignore-');
    cleanups.push(r.cleanup);
    expect(updateCoderConfig(r.path, { model: 'glm-4.7' }).created).toBe(true);
    expect(JSON.parse(readFileSync(join(r.path, '.coder', 'config.json'), 'utf8'))).toEqual({ model: 'glm-4.7' });
    expect(await ignoreCoderConfig(r.path)).toEqual({ path: join(r.path, '.gitignore'), created: true });
    expect(readFileSync(join(r.path, '.gitignore'), 'utf8')).toBe('/.coder/\n');
  });

  it('the project’s configs are not read through a link: the problem names the link, and never quotes what it points at', () => {
    const root = folder({ '.coder/x': '', '.flightdeck/x': '' });
    const secret = folder({ 'credentials': '[default]\naws_secret_access_key = do-not-show\n' });
    symlinkSync(join(secret, 'credentials'), join(root, '.coder', 'config.json'));
    symlinkSync(join(secret, 'credentials'), join(root, '.flightdeck', 'config.yml'));
    const coder = readCoderConfig(root);
    expect(coder.exists).toBe(true);
    expect(coder.problem).toMatch(/symbolic link/);
    const loaded = readProjectConfig(root);
    expect(loaded.problem).toMatch(/config\.yml.*symbolic link/);
    expect(JSON.stringify([coder, loaded])).not.toContain('do-not-show');
    // And the (unused by the app) project-config writer refuses too, leaving the target alone.
    expect(() => updateProjectConfig(root, [[['agent', 'model'], 'x']])).toThrow(/symbolic link/);
    expect(readFileSync(join(secret, 'credentials'), 'utf8')).toContain('do-not-show');
  });
});
