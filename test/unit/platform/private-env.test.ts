import { describe, expect, it } from 'vitest';
import { commandEnv } from '../../../src-main/agents/tools/command-runner';
import { childEnv } from '../../../src-main/platform/child-process';
import { claudeCredential, claudeEnv } from '../../../src-main/coder/core/launch';
import { terminalEnv } from '../../../src-main/terminals/environment';

const inherited = {
  PATH: '/usr/bin',
  HOME: '/home/me',
  FLIGHTDECK_TOKEN: 'browser-mode-token-value',
  FLIGHTDECK_DATA_DIR: '/data',
  ELECTRON_RUN_AS_NODE: '1',
  ANTHROPIC_API_KEY: 'sk-ant-key',
  DEEPSEEK_API_KEY: 'sk-deepseek',
  GLM_AUTH_TOKEN: 'glm-token',
  GITHUB_TOKEN: 'ghp_secretvalue',
  NPM_TOKEN: 'npm_secretvalue',
  AWS_SECRET_ACCESS_KEY: 'aws-secret',
  AWS_ACCESS_KEY_ID: 'AKIAEXAMPLE',
  MYAPP_DB_PASSWORD: 'hunter22',
  STRIPE_SECRET_KEY: 'sk_live_x',
  AWS_REGION: 'eu-west-1',
  NODE_ENV: 'test',
};
const SERVICE_SECRETS = ['GITHUB_TOKEN', 'NPM_TOKEN', 'AWS_SECRET_ACCESS_KEY', 'AWS_ACCESS_KEY_ID', 'MYAPP_DB_PASSWORD', 'STRIPE_SECRET_KEY'];

describe('what leaves Flightdeck for child processes', () => {
  it("agents' commands get neither Flightdeck's variables nor model credentials", () => {
    const env = commandEnv(inherited);
    expect(env.PATH).toBe('/usr/bin');
    for (const k of ['FLIGHTDECK_TOKEN', 'FLIGHTDECK_DATA_DIR', 'ELECTRON_RUN_AS_NODE', 'ANTHROPIC_API_KEY', 'DEEPSEEK_API_KEY', 'GLM_AUTH_TOKEN']) expect(env[k], k).toBeUndefined();
  });

  it("agents' commands and checks get no other services' credentials (forge, registry, cloud, *_PASSWORD…), but keep plain settings", () => {
    for (const env of [commandEnv(inherited), childEnv('command', inherited)]) {
      for (const k of SERVICE_SECRETS) expect(env[k], k).toBeUndefined();
      expect(env.AWS_REGION).toBe('eu-west-1');
      expect(env.NODE_ENV).toBe('test');
    }
    // The user's own shell is theirs.
    expect(childEnv('user', inherited).GITHUB_TOKEN).toBe('ghp_secretvalue');
  });

  it('Claude Code and its tools get no forge or registry tokens; AWS keys only when the user runs Claude Code on Bedrock', () => {
    const plain = claudeEnv({ inherited, backend: null, sandbox: 'workspace-write', isRoot: false });
    for (const k of SERVICE_SECRETS) expect(plain[k], k).toBeUndefined();
    const bedrock = claudeEnv({ inherited: { ...inherited, CLAUDE_CODE_USE_BEDROCK: '1' }, backend: null, sandbox: 'workspace-write', isRoot: false });
    expect(bedrock.AWS_SECRET_ACCESS_KEY).toBe('aws-secret');
    expect(bedrock.GITHUB_TOKEN).toBeUndefined();
  });

  it("Claude Code gets its own Anthropic settings but not the token or other providers' keys", () => {
    const env = claudeEnv({ inherited, backend: null, sandbox: 'workspace-write', isRoot: false });
    // Its own key reaches it through apiKeyHelper, not the environment its tools inherit.
    expect(env.ANTHROPIC_API_KEY).toBeUndefined();
    expect(claudeCredential({ inherited, backend: null })).toBe('sk-ant-key');
    for (const k of ['FLIGHTDECK_TOKEN', 'FLIGHTDECK_DATA_DIR', 'ELECTRON_RUN_AS_NODE', 'DEEPSEEK_API_KEY', 'GLM_AUTH_TOKEN']) expect(env[k], k).toBeUndefined();
  });

  it("the user's own shells keep their environment but never the browser-mode token", () => {
    const saved = process.env.FLIGHTDECK_TOKEN;
    process.env.FLIGHTDECK_TOKEN = 'browser-mode-token-value';
    try {
      const env = terminalEnv('term-1');
      expect(env.FLIGHTDECK_TOKEN).toBeUndefined();
      expect(env.FLIGHTDECK_TERMINAL_ID).toBe('term-1');
    } finally {
      if (saved === undefined) delete process.env.FLIGHTDECK_TOKEN;
      else process.env.FLIGHTDECK_TOKEN = saved;
    }
  });
});
