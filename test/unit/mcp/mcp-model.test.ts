/** The MCP capability's pure rules: suggested servers refused, secret forms redacted, the bounded memory of failures told. */
import { describe, expect, it } from 'vitest';
import { BoundedSet, expandReferences, isLoaderVariable, redactSecretForms, secretForms, suggestionRefusal } from '../../../src-main/mcp/mcp-model';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { inFolder, McpService } from '../../../src-main/mcp/mcp-service';
import type { SecretStore } from '../../../src-main/agents/provider/secrets';
import type { SettingsService } from '../../../src-main/settings/settings-service';
import type { EventHub } from '../../../src-main/bridge/event-hub';
import { silentLogger } from '../../../src-main/platform/logger';

describe('a suggested server', () => {
  it('is refused when it sets a variable that changes what code runs', () => {
    for (const n of ['LD_PRELOAD', 'LD_LIBRARY_PATH', 'DYLD_INSERT_LIBRARIES', 'NODE_OPTIONS', 'NODE_PATH', 'PYTHONPATH', 'PYTHONSTARTUP', 'PERL5OPT', 'RUBYOPT', 'BASH_ENV', 'JAVA_TOOL_OPTIONS', 'PATH', 'GIT_SSH_COMMAND', 'npm_config_script_shell', 'HOME']) {
      expect(isLoaderVariable(n), n).toBe(true);
    }
    for (const n of ['GITHUB_TOKEN', 'LOG_LEVEL', 'MY_PATH', 'NODE_ENV', 'XLD_PRELOAD']) expect(isLoaderVariable(n), n).toBe(false);
    expect(suggestionRefusal({ command: 'node', args: ['s.js'], env: { NODE_ENV: 'production' } })).toBeNull();
    expect(suggestionRefusal({ command: 'node', env: { LD_PRELOAD: '/x.so' } })).toBe('It sets LD_PRELOAD, which changes what code the program loads or which program runs. Add it yourself in Settings → MCP servers if you mean it.');
    expect(suggestionRefusal({ command: 'node', env: { PATH: '.', NODE_OPTIONS: '-r x' } })).toContain('It sets PATH, NODE_OPTIONS, which change');
  });

  it('is refused when a value reads the user\'s environment with ${…} (Claude Code would expand it)', () => {
    expect(suggestionRefusal({ url: 'https://mcp.example.com', headers: { Authorization: 'Bearer ${GITHUB_TOKEN}' } })).toContain('It reads ${GITHUB_TOKEN} from your environment');
    expect(suggestionRefusal({ command: 'npx', args: ['-y', 'srv', '--key=${API_KEY:-none}'] })).toContain('${API_KEY:-none}');
    expect(suggestionRefusal({ url: 'https://${HOST}/mcp' })).toContain('${HOST}');
    expect(suggestionRefusal({ command: 'node', env: { PRICE: '$5', HOME_DIR: '$HOME' } })).toBeNull();
  });
});

describe('${VAR} in a server', () => {
  it('is filled from the environment, with its default, or left as written', () => {
    const env = { TOKEN: 'abc', EMPTY: '' };
    expect(expandReferences('Bearer ${TOKEN}', env)).toBe('Bearer abc');
    expect(expandReferences('${MISSING:-none}/${EMPTY:-d}/${MISSING}', env)).toBe('none/d/${MISSING}');
    expect(expandReferences('$TOKEN ${1BAD} ${TOKEN', env)).toBe('$TOKEN ${1BAD} ${TOKEN');
  });
});

describe('secret forms', () => {
  it('covers the bare credential of a schemed header and a Basic pair, longest first', () => {
    expect(secretForms(['Bearer abc123'])).toEqual(['Bearer abc123', 'abc123']);
    const basic = `Basic ${Buffer.from('ana:pa55word').toString('base64')}`;
    expect(secretForms([basic])).toEqual([basic, Buffer.from('ana:pa55word').toString('base64'), 'ana:pa55word', 'pa55word']);
    // Short values are not looked for: they would redact ordinary words.
    expect(secretForms(['ab', 'token x'])).toEqual(['token x']);
    expect(redactSecretForms('401: invalid token abc123 (Bearer abc123)', secretForms(['Bearer abc123']))).toBe('401: invalid token *** (***)');
    expect(redactSecretForms('key plainvalue seen', secretForms(['plainvalue']))).toBe('key *** seen');
  });
});

describe('failures told to sessions', () => {
  it('are remembered up to a bound, the oldest forgotten first', () => {
    const s = new BoundedSet(3);
    for (const k of ['a', 'b', 'c', 'd']) s.add(k);
    expect([s.has('a'), s.has('b'), s.has('d'), s.size]).toEqual([false, true, true, 3]);
    s.add('b'); // used again: now the newest
    s.add('e');
    expect([s.has('b'), s.has('c')]).toEqual([true, false]);
    s.deleteWhere((k) => k === 'b');
    expect(s.size).toBe(2);
  });

  it('do not grow with every session the app ever ran', async () => {
    const store = new Map<string, unknown>();
    const settings = { getInternal: (k: string) => store.get(k), setInternal: (k: string, v: unknown) => void store.set(k, v) } as unknown as SettingsService;
    const secrets = { get: () => null, set: () => undefined, delete: () => undefined, problem: () => null } as unknown as SecretStore;
    const hub = { publish: () => undefined } as unknown as EventHub;
    const mcp = new McpService({ settings, secrets, hub, logger: silentLogger, sessionProject: () => null, projectRoot: () => '/', trusted: async () => false });
    mcp.add({ transport: 'stdio', name: 'missing', command: 'no-such-mcp-server-xyz', args: [] });
    let told = 0;
    for (let i = 0; i < 1_200; i++) told += (await mcp.prepare(`session-${i}`)).length;
    // Each session was told once…
    expect(told).toBe(1_200);
    // …and what is remembered of it stays bounded.
    expect((mcp as unknown as { told: BoundedSet }).told.size).toBeLessThanOrEqual(1_000);
    // A session still remembered is not told again.
    expect(await mcp.prepare('session-1199')).toEqual([]);
    // The server's row: failed, with the error in words.
    expect(mcp.get('missing')).toMatchObject({ status: 'failed', lastError: expect.stringContaining('"no-such-mcp-server-xyz" was not found on PATH') });
    await mcp.close();
  });
});

describe.runIf(process.platform !== 'win32')('a command server under Claude Code', () => {
  it('runs in the server folder, not where Claude Code starts it, with its arguments as given', () => {
    const folder = mkdtempSync(join(tmpdir(), 'fd-mcp-folder-'));
    const elsewhere = mkdtempSync(join(tmpdir(), 'fd-mcp-worktree-'));
    try {
      const odd = ['a b', '$HOME', '; touch pwned', '"q"', '-n'];
      const { command, args } = inFolder(process.execPath, ['-e', 'process.stdout.write(JSON.stringify([process.cwd(), ...process.argv.slice(1)]))', ...odd], folder);
      const out = execFileSync(command, args, { cwd: elsewhere, encoding: 'utf8' });
      expect(JSON.parse(out)).toEqual([realpathSync(folder), ...odd]);
      expect(existsSync(join(elsewhere, 'pwned'))).toBe(false);
      // A folder that is gone: the server does not start somewhere else instead.
      rmSync(folder, { recursive: true });
      expect(() => execFileSync(command, args, { cwd: elsewhere, stdio: 'pipe' })).toThrow();
    } finally {
      rmSync(folder, { recursive: true, force: true });
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });
});
