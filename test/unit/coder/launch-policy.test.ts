import { describe, expect, it } from 'vitest';
import { claudeArgs, claudeCredential, claudeEnv, hookSettings, keyHelperCommand, permissionArgs, runSettings } from '../../../src-main/coder/core/launch';
import { formatProjectInstructions, MAX_INSTRUCTIONS_BYTES } from '../../../src-main/coder/project-instructions';
import { confinementVerdict, headlessVerdict } from '../../../src-main/coder/core/hook-policy';
import { engineToolInput, engineToolName, isInside, toolPaths, toolSummary } from '../../../src-main/coder/core/tool-map';
import { makeRedactor, redactDeep } from '../../../src-main/coder/core/redact';

describe('launch flags', () => {
  it('maps each sandbox onto Claude Code permission settings', () => {
    expect(permissionArgs('read-only')).toEqual(['--permission-mode', 'default', '--disallowedTools=Write,Edit,MultiEdit,NotebookEdit']);
    expect(permissionArgs('workspace-write')).toEqual(['--permission-mode', 'default']);
    expect(permissionArgs('danger-full-access')).toEqual(['--dangerously-skip-permissions']);
  });

  it('streams JSON with partial messages, resumes when asked, and never puts the prompt in argv', () => {
    const args = claudeArgs({ sandbox: 'workspace-write', settingsPath: '/t/s.json', resume: 'abc' });
    expect(args.slice(0, 5)).toEqual(['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages']);
    expect(args).toContain('--settings');
    expect(args.slice(-2)).toEqual(['--resume', 'abc']);
    expect(claudeArgs({ sandbox: 'read-only', settingsPath: '/s' })).not.toContain('--resume');
  });

  it('loads no project settings or MCP servers from the working folder; project instructions come as a file', () => {
    for (const sandbox of ['read-only', 'workspace-write', 'danger-full-access'] as const) {
      const args = claudeArgs({ sandbox, settingsPath: '/s' });
      expect(args.join(' ')).toContain('--setting-sources user --strict-mcp-config');
      expect(args).not.toContain('--mcp-config');
      expect(args).not.toContain('--append-system-prompt-file');
    }
    const args = claudeArgs({ sandbox: 'workspace-write', settingsPath: '/s', instructionsPath: '/run/project-instructions.md' });
    expect(args[args.indexOf('--append-system-prompt-file') + 1]).toBe('/run/project-instructions.md');
  });

  it('frames the project instructions as Claude Code frames project memory, and notes a cut file', () => {
    expect(formatProjectInstructions([])).toBeNull();
    const text = formatProjectInstructions([
      { path: '/r/CLAUDE.md', text: 'Use tabs.', truncated: false },
      { path: '/r/.claude/CLAUDE.md', text: 'Be brief.', truncated: true },
    ])!;
    expect(text).toContain('Contents of /r/CLAUDE.md (project instructions, checked into the codebase):\n\nUse tabs.');
    expect(text.indexOf('Use tabs.')).toBeLessThan(text.indexOf('Be brief.'));
    expect(text).toContain(`/r/.claude/CLAUDE.md is longer than ${MAX_INSTRUCTIONS_BYTES} bytes`);
    expect(text.match(/longer than/g)).toHaveLength(1);
  });

  it('routes every tool through one HTTP hook with the run secret', () => {
    expect(hookSettings('http://127.0.0.1:5/pre-tool-use', 's3cret')).toEqual({
      hooks: { PreToolUse: [{ matcher: '*', hooks: [{ type: 'http', url: 'http://127.0.0.1:5/pre-tool-use', headers: { Authorization: 'Bearer s3cret' }, timeout: 86400 }] }] },
    });
  });

  it('passes the profile as ANTHROPIC_* and drops inherited provider settings', () => {
    const env = claudeEnv({
      inherited: { PATH: '/bin', ANTHROPIC_API_KEY: 'old', ANTHROPIC_BASE_URL: 'https://old', CLAUDE_CODE_USE_BEDROCK: '1' },
      backend: { baseUrl: 'https://open.bigmodel.cn/api/anthropic', apiKey: 'k-123456', model: 'glm-4.7', authMode: 'auth-token' },
      sandbox: 'workspace-write',
      isRoot: false,
    });
    expect(env).toEqual({
      PATH: '/bin',
      ANTHROPIC_BASE_URL: 'https://open.bigmodel.cn/api/anthropic',
      ANTHROPIC_MODEL: 'glm-4.7',
      ANTHROPIC_DEFAULT_OPUS_MODEL: 'glm-4.7',
      ANTHROPIC_DEFAULT_SONNET_MODEL: 'glm-4.7',
      ANTHROPIC_DEFAULT_HAIKU_MODEL: 'glm-4.7',
      ANTHROPIC_SMALL_FAST_MODEL: 'glm-4.7',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
  });

  it('never puts the key in the environment: the profile key or an inherited one goes to apiKeyHelper', () => {
    const backend = { baseUrl: 'https://api.anthropic.com', apiKey: 'sk-a', model: 'claude-sonnet-4-5' };
    const anthropic = claudeEnv({ inherited: {}, backend, sandbox: 'read-only', isRoot: false });
    expect(anthropic.ANTHROPIC_API_KEY).toBeUndefined();
    expect(anthropic.ANTHROPIC_DEFAULT_HAIKU_MODEL).toBeUndefined();
    expect(claudeCredential({ inherited: { ANTHROPIC_API_KEY: 'other' }, backend })).toBe('sk-a');
    const inherited = claudeEnv({ inherited: { ANTHROPIC_API_KEY: 'mine', ANTHROPIC_AUTH_TOKEN: 'tok' }, backend: null, sandbox: 'danger-full-access', isRoot: true, overrides: { HOME: '/tmp/h', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: undefined } });
    expect(inherited).toEqual({ IS_SANDBOX: '1', HOME: '/tmp/h' });
    expect(claudeCredential({ inherited: { ANTHROPIC_AUTH_TOKEN: 'tok' }, backend: null })).toBe('tok');
    expect(claudeCredential({ inherited: {}, backend: null })).toBeNull();
  });

  it('settings: the hook, the key helper (a quoted cat of the key file) and the sandbox block', () => {
    expect(keyHelperCommand("/tmp/fd x/it's/key")).toBe(`cat '/tmp/fd x/it'\\''s/key'`);
    const s = runSettings({ hookUrl: 'http://127.0.0.1:5/pre-tool-use', secret: 's', keyHelper: "cat '/k'", sandbox: { enabled: true } });
    expect(s).toMatchObject({ apiKeyHelper: "cat '/k'", sandbox: { enabled: true }, hooks: { PreToolUse: [{ matcher: '*' }] } });
    expect(runSettings({ hookUrl: 'http://h', secret: 's', keyHelper: null, sandbox: null })).not.toHaveProperty('apiKeyHelper');
  });
});

describe('tool mapping', () => {
  it('maps Claude Code tools onto the engine tools', () => {
    expect(['Bash', 'Write', 'Edit', 'MultiEdit', 'NotebookEdit', 'Read', 'Glob', 'Grep', 'LS', 'TodoWrite', 'WebFetch'].map(engineToolName)).toEqual([
      'bash', 'write', 'patch', 'patch', 'patch', 'read', 'glob', 'grep', 'glob', 'todo', 'WebFetch',
    ]);
  });

  it('finds the paths a call touches and describes it', () => {
    const rel = (p: string) => p.replace('/w/', '');
    expect(toolPaths('Write', { file_path: '/w/a.ts', content: 'x' })).toEqual(['/w/a.ts']);
    expect(toolPaths('Grep', { pattern: 'x', path: '/etc' })).toEqual(['/etc']);
    expect(toolPaths('Bash', { command: 'cat /etc/passwd' })).toEqual([]);
    expect(toolSummary('Write', { file_path: '/w/a.ts' }, rel)).toBe('write a.ts');
    expect(toolSummary('Bash', { command: 'npm test\necho done' })).toBe('npm test');
    expect(engineToolInput('Bash', { command: 'ls', description: 'list', timeout: 5 }, rel)).toEqual({ command: 'ls', description: 'list' });
    expect(engineToolInput('Edit', { file_path: '/w/a.ts', old_string: 'a', new_string: 'b' }, rel)).toMatchObject({ path: 'a.ts', old_string: 'a' });
  });

  it('checks containment without being fooled by prefixes', () => {
    expect(isInside('/w/repo', '/w/repo/a')).toBe(true);
    expect(isInside('/w/repo', '/w/repo')).toBe(true);
    expect(isInside('/w/repo', '/w/repo-other/a')).toBe(false);
    expect(isInside('/', '/anything')).toBe(true);
  });
});

describe('hook policy', () => {
  it('refuses paths outside cd except in danger-full-access', () => {
    expect(confinementVerdict('workspace-write', '/w', ['/w/a', '/etc/passwd'])).toMatchObject({ allow: false, reason: expect.stringContaining('/etc/passwd') });
    expect(confinementVerdict('read-only', '/w', ['/w/a'])).toBeNull();
    expect(confinementVerdict('danger-full-access', '/w', ['/etc/passwd'])).toBeNull();
  });

  it('decides headless runs with the engine policy: read-only reads, workspace-write works, the hard floor holds', () => {
    expect(headlessVerdict('read-only', 'read', { path: 'a' }).allow).toBe(true);
    expect(headlessVerdict('read-only', 'bash', { command: 'git status' }).allow).toBe(true);
    expect(headlessVerdict('read-only', 'bash', { command: 'npm install' }).allow).toBe(false);
    expect(headlessVerdict('read-only', 'write', { path: 'a' }).allow).toBe(false);
    expect(headlessVerdict('workspace-write', 'write', { path: 'a' }).allow).toBe(true);
    expect(headlessVerdict('workspace-write', 'bash', { command: 'npm test' }).allow).toBe(true);
    expect(headlessVerdict('workspace-write', 'bash', { command: 'rm -rf /' })).toMatchObject({ allow: false, reason: expect.stringContaining('hard floor') });
    expect(headlessVerdict('danger-full-access', 'bash', { command: 'rm -rf ~' }).allow).toBe(false);
  });
});

describe('redaction', () => {
  it('removes the key wherever it appears, including inside JSON and nested values', () => {
    const redact = makeRedactor(['sk-live-0123456789', null, undefined, 'k']);
    expect(redact('key=sk-live-0123456789; again sk-live-0123456789')).toBe('key=[redacted]; again [redacted]');
    expect(redact('k stays: keep')).toBe('k stays: keep');
    expect(redactDeep({ a: ['x sk-live-0123456789'], b: { c: 'sk-live-0123456789' }, n: 1 }, redact)).toEqual({ a: ['x [redacted]'], b: { c: '[redacted]' }, n: 1 });
    const line = JSON.stringify({ type: 'user', text: 'env: ANTHROPIC_API_KEY=sk-live-0123456789' });
    expect(JSON.parse(redact(line)).text).toBe('env: ANTHROPIC_API_KEY=[redacted]');
  });
});
