/**
 * How one Coder attempt launches `claude`: arguments, environment and the generated settings
 * (the PreToolUse hook that routes every tool call through Flightdeck's approval path, the
 * native sandbox for its Bash, and the key helper).
 * Pure, so the mapping from seed 000's `sandbox` to Claude Code's permission flags is tested.
 *
 * The credential never enters the CLI's environment, which its Bash and every tool inherit:
 * `apiKeyHelper` (a `cat` of a 0600 file in the run's private settings folder, which the
 * sandbox denies to commands) hands it to the CLI, which sends it as both `x-api-key` and
 * `Authorization: Bearer` — what Anthropic and the Anthropic-compatible providers accept.
 */
import type { Sandbox } from './params';
import { CLAUDE_WRITE_TOOLS } from './tool-map';
import { isAppPrivateEnv, isModelCredentialEnv, isServiceCredentialEnv } from '../../platform/private-env';

/** The provider a run talks to: a Flightdeck profile's endpoint, model and key. */
export interface CoderBackend {
  /** Profile name, for events and cost rows. */
  profile?: string;
  baseUrl: string;
  apiKey: string;
  model: string;
  /**
   * How the provider documents its key: `api-key` (x-api-key, Anthropic) or `auth-token`
   * (Bearer; GLM, MiniMax, DeepSeek). The key helper makes the CLI send both headers, so
   * either works; the profile keeps saying which one the provider expects.
   */
  authMode?: 'api-key' | 'auth-token';
}

/**
 * How long Claude Code waits on the approval hook. An approval may wait on a person for
 * hours; the run's own max_duration and cancel bound it, not this.
 */
export const HOOK_TIMEOUT_S = 24 * 3_600;

/**
 * Inherited variables that would point the CLI at another account or endpoint when a profile
 * is given, or leak the app's own settings into the agent.
 */
const PROVIDER_ENV_PREFIXES = ['ANTHROPIC_', 'CLAUDE_CODE_USE_BEDROCK', 'CLAUDE_CODE_USE_VERTEX', 'CLAUDE_CODE_USE_FOUNDRY', 'AWS_BEARER_TOKEN_BEDROCK'];

export function permissionArgs(sandbox: Sandbox): string[] {
  switch (sandbox) {
    case 'read-only':
      // No file-changing tools at all; Bash goes through the hook, which allows only
      // read-only commands (the engine's plan-mode rules).
      return ['--permission-mode', 'default', `--disallowedTools=${CLAUDE_WRITE_TOOLS.join(',')}`];
    case 'workspace-write':
      // Claude Code's own rules stay on: if the hook cannot answer, writes and commands are
      // refused ("you haven't granted it yet") instead of running unchecked.
      return ['--permission-mode', 'default'];
    case 'danger-full-access':
      return ['--dangerously-skip-permissions'];
  }
}

export interface ArgsInput {
  sandbox: Sandbox;
  settingsPath: string;
  resume?: string | null;
  /**
   * With `resume`: continue the conversation from this message (`--resume-session-at`, its later
   * messages left out) as a new conversation (`--fork-session`): the resumed one stays as it was.
   */
  resumeAt?: string | null;
  model?: string | null;
  /** A file with the project's CLAUDE.md text (project-instructions.ts), appended to the system prompt. */
  instructionsPath?: string | null;
  /** The user's MCP servers (generated file); with `--strict-mcp-config` nothing else is loaded. */
  mcpConfigPath?: string | null;
}

/**
 * What the CLI may load from the working folder: nothing that runs code. The folder is the
 * agent's, so a sandboxed command can write `.claude/settings*.json` (hooks, MCP servers,
 * plugins, apiKeyHelper) or `.mcp.json`, and the next run there would start those unsandboxed,
 * as the user. `user` leaves out project and local settings; `--settings` (ours: the approval
 * hook, sandbox, key helper) and managed policy always apply. `--strict-mcp-config` without
 * `--mcp-config` means no MCP server at all. The project's CLAUDE.md, which `user` also drops,
 * comes back through `instructionsPath`.
 */
export const PROJECT_CONFIG_ARGS = ['--setting-sources', 'user', '--strict-mcp-config'] as const;

/** The prompt goes to stdin: no argument-length limit, nothing in `ps`, no flag confusion. */
export function claudeArgs(a: ArgsInput): string[] {
  const args = ['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages', '--settings', a.settingsPath, ...PROJECT_CONFIG_ARGS, ...permissionArgs(a.sandbox)];
  // A file, not --append-system-prompt: one argument is capped at 128 KiB on Linux, and argv is public in `ps`.
  if (a.instructionsPath) args.push('--append-system-prompt-file', a.instructionsPath);
  if (a.mcpConfigPath) args.push('--mcp-config', a.mcpConfigPath);
  if (a.model) args.push('--model', a.model);
  if (a.resume) args.push('--resume', a.resume);
  if (a.resume && a.resumeAt) args.push('--resume-session-at', a.resumeAt, '--fork-session');
  return args;
}

/**
 * Variables that carry a model credential to the CLI; never put in its environment (see the
 * module comment), and denied to sandboxed commands in case something else set them.
 */
export const CREDENTIAL_ENV = ['ANTHROPIC_API_KEY', 'ANTHROPIC_AUTH_TOKEN'] as const;

/** The key the run authenticates with: the profile's, else one the environment carried. */
export function claudeCredential(e: Pick<EnvInput, 'inherited' | 'backend'>): string | null {
  const key = e.backend?.apiKey ?? e.inherited.ANTHROPIC_API_KEY ?? e.inherited.ANTHROPIC_AUTH_TOKEN ?? null;
  return key && key.trim() !== '' ? key : null;
}

/** The `apiKeyHelper` command: prints the key file (the path is ours, quoted for `sh`). */
export function keyHelperCommand(keyFile: string): string {
  return `cat '${keyFile.replace(/'/g, `'\\''`)}'`;
}

export interface RunSettingsInput {
  hookUrl: string;
  secret: string;
  /** null: no key to hand over (the CLI's own login is used). */
  keyHelper: string | null;
  /** Claude Code's `sandbox` block (core of src-main/sandbox/policy.ts); null = none (full access). */
  sandbox: Record<string, unknown> | null;
}

/** The whole `--settings` file of one run. */
export function runSettings(i: RunSettingsInput): Record<string, unknown> {
  return {
    ...hookSettings(i.hookUrl, i.secret),
    ...(i.keyHelper ? { apiKeyHelper: i.keyHelper } : {}),
    ...(i.sandbox ? { sandbox: i.sandbox } : {}),
  };
}

/** `--settings` content: one HTTP PreToolUse hook for every tool, answered by Flightdeck. */
export function hookSettings(hookUrl: string, secret: string): Record<string, unknown> {
  return {
    hooks: {
      PreToolUse: [{ matcher: '*', hooks: [{ type: 'http', url: hookUrl, headers: { Authorization: `Bearer ${secret}` }, timeout: HOOK_TIMEOUT_S }] }],
    },
  };
}

export interface EnvInput {
  inherited: Readonly<Record<string, string | undefined>>;
  backend: CoderBackend | null;
  sandbox: Sandbox;
  /** Root refuses --dangerously-skip-permissions unless told it is a sandbox. */
  isRoot: boolean;
  /** Added last; undefined removes a variable (tests set HOME, CLAUDE_CODE_MAX_RETRIES…). */
  overrides?: Readonly<Record<string, string | undefined>>;
}

export function claudeEnv(e: EnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(e.inherited)) {
    if (v === undefined || isAppPrivateEnv(k)) continue;
    if (e.backend && PROVIDER_ENV_PREFIXES.some((p) => k.startsWith(p))) continue;
    // Other providers' keys are not Claude Code's business (its own come from the backend or ANTHROPIC_*).
    if (isModelCredentialEnv(k) && !k.startsWith('ANTHROPIC_') && !k.startsWith('CLAUDE_CODE_')) continue;
    // Claude Code's tools inherit this environment: other services' tokens stay out, except the
    // cloud keys of a Bedrock/Vertex setup the user configured Claude Code itself with.
    if (isServiceCredentialEnv(k) && !(k.startsWith('AWS_') && e.inherited.CLAUDE_CODE_USE_BEDROCK) && !k.startsWith('ANTHROPIC_') && !k.startsWith('CLAUDE_CODE_')) continue;
    // The key goes through apiKeyHelper instead (claudeCredential): tools inherit this environment.
    if ((CREDENTIAL_ENV as readonly string[]).includes(k)) continue;
    env[k] = v;
  }
  if (e.backend) {
    const b = e.backend;
    env.ANTHROPIC_BASE_URL = b.baseUrl;
    env.ANTHROPIC_MODEL = b.model;
    // Subagents and background work ask for "haiku"/"sonnet" aliases a third-party endpoint
    // does not serve: point every alias at the profile's model.
    if (!/^https:\/\/api\.anthropic\.com\/?$/.test(b.baseUrl)) {
      for (const alias of ['ANTHROPIC_DEFAULT_OPUS_MODEL', 'ANTHROPIC_DEFAULT_SONNET_MODEL', 'ANTHROPIC_DEFAULT_HAIKU_MODEL', 'ANTHROPIC_SMALL_FAST_MODEL']) env[alias] = b.model;
    }
  }
  // Title generation, telemetry and update checks are calls the user did not ask for, billed
  // to their profile; an executor runs only the agent's own turns.
  env.CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC ??= '1';
  if (e.sandbox === 'danger-full-access' && e.isRoot) env.IS_SANDBOX = '1';
  for (const [k, v] of Object.entries(e.overrides ?? {})) {
    if (v === undefined) delete env[k];
    else env[k] = v;
  }
  return env;
}
