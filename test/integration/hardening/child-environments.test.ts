/**
 * Attack: the app's children carried the browser token and model keys (the pty host and git
 * got the app's whole environment). One builder now makes every child's environment: the pty
 * host gets the allow-list, a user's shell their environment minus Flightdeck's own variables,
 * commands also lose model credentials.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandEnv } from '../../../src-main/agents/tools/command-runner';
import { PtyCommandRunner } from '../../../src-main/terminals/agent-command-runner';
import { tempDir } from '../../support/temp';
import { startTerminalHarness, type TerminalHarness } from '../terminals/support';
import { until } from './support';

const SECRETS = { FLIGHTDECK_TOKEN: 'browser-token-child-env-0123', ANTHROPIC_API_KEY: 'sk-ant-child-env-secret', OPENAI_AUTH_TOKEN: 'auth-token-child-env' };
// FORCE_COLOR as a CI runner or a test runner's worker sets it: it would beat the agent terminal's NO_COLOR.
const USER_VAR = { MY_PROJECT_SETTING: 'kept-for-the-user', FORCE_COLOR: '1' };

let h: TerminalHarness;
const work = tempDir('fd-child-env-');
const home = tempDir('fd-child-env-home-');
const saved: Record<string, string | undefined> = {};

beforeAll(async () => {
  for (const [k, v] of Object.entries({ ...SECRETS, ...USER_VAR, HOME: home.path })) {
    saved[k] = process.env[k];
    process.env[k] = v;
  }
  h = await startTerminalHarness();
});
afterAll(async () => {
  await h.cleanup();
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  work.cleanup();
  home.cleanup();
});

function environOf(pid: number): Record<string, string> {
  return Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter(Boolean)
      .map((kv) => [kv.slice(0, kv.indexOf('=')), kv.slice(kv.indexOf('=') + 1)]),
  );
}

function parseEnv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .split('\n')
      .filter((l) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(l))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

describe.runIf(process.platform === 'linux')('the environments of child processes', () => {
  it('the pty host, a user shell, an agent command and an app command each get what they should', async () => {
    const shell = await h.client.invoke('terminals.create', { target: { kind: 'path', path: work.path }, cols: 80, rows: 24 });
    await h.client.invoke('terminals.write', { id: shell.id, data: 'echo READY-$((40+2))\r' });
    await until(async () => (await h.app.terminals.attach(shell.id, 'probe')).data.includes('READY-42'), 'the shell to answer');

    // The pty host: the allow-list only.
    const ptyHost = environOf(h.app.terminals.processes().hostPid!);
    for (const k of [...Object.keys(SECRETS), ...Object.keys(USER_VAR)]) expect(ptyHost[k]).toBeUndefined();
    expect(ptyHost.PATH).toBe(process.env.PATH);

    // The user's own shell: their environment, without Flightdeck's token.
    const user = environOf(shell.pid!);
    expect(user.FLIGHTDECK_TOKEN).toBeUndefined();
    expect(user.MY_PROJECT_SETTING).toBe('kept-for-the-user');
    expect(user.ANTHROPIC_API_KEY).toBe(SECRETS.ANTHROPIC_API_KEY);

    // An agent's command: no token, no model credentials.
    const runner = new PtyCommandRunner(h.app.terminals);
    const agent = await runner.run({ cwd: work.path, command: 'env', env: commandEnv(process.env), timeoutMs: 30_000, signal: new AbortController().signal });
    const agentEnv = parseEnv(agent.output);
    expect(agentEnv.MY_PROJECT_SETTING).toBe('kept-for-the-user');
    for (const k of Object.keys(SECRETS)) expect(agentEnv[k]).toBeUndefined();
    // No colours for the model: NO_COLOR, and no FORCE_COLOR overriding it (node warned about it in every check's output).
    expect(agentEnv.NO_COLOR).toBe('1');
    expect(agentEnv.FORCE_COLOR).toBeUndefined();

    // A command the app runs without an environment of its own still loses the credentials.
    const app = await h.app.terminals.runCommand({ cwd: work.path, command: 'env' });
    const appEnv = parseEnv(app.output.replace(/\r/g, ''));
    expect(appEnv.MY_PROJECT_SETTING).toBe('kept-for-the-user');
    for (const k of Object.keys(SECRETS)) expect(appEnv[k]).toBeUndefined();
  });
});
