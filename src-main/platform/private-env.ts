/**
 * Which environment variables never leave Flightdeck for the programs it starts: its own
 * (the browser-mode token would let a child drive the app) and, for agents, model credentials
 * (an agent's command has no business with the user's provider keys).
 */
const ELECTRON_INTERNALS = new Set(['ELECTRON_RUN_AS_NODE', 'ELECTRON_NO_ATTACH_CONSOLE', 'ELECTRON_RENDERER_URL']);

export function isAppPrivateEnv(name: string): boolean {
  return name.startsWith('FLIGHTDECK_') || ELECTRON_INTERNALS.has(name);
}

/** Provider keys and tokens by their usual names: ANTHROPIC_API_KEY, DEEPSEEK_API_KEY, …_AUTH_TOKEN. */
export function isModelCredentialEnv(name: string): boolean {
  return /(_API_KEY|_AUTH_TOKEN|_OAUTH_TOKEN)$/.test(name);
}

/**
 * Credentials for other services an agent's command could leak into tool output (and so into
 * the model's context and the transcript) or use on the user's behalf: forge and registry
 * tokens, cloud keys, and anything named like a token, secret or password. The user's own
 * shells keep them; an agent that needs one gets it from the project (a `.env` file, a
 * credential helper), where the user decided so.
 */
const SERVICE_CREDENTIAL_NAMES = new Set([
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'GH_ENTERPRISE_TOKEN',
  'GITHUB_ENTERPRISE_TOKEN',
  'GITLAB_TOKEN',
  'GL_TOKEN',
  'CI_JOB_TOKEN',
  'NPM_TOKEN',
  'NODE_AUTH_TOKEN',
  'YARN_NPM_AUTH_TOKEN',
  'PYPI_TOKEN',
  'TWINE_PASSWORD',
  'CARGO_REGISTRY_TOKEN',
  'HF_TOKEN',
  'HUGGING_FACE_HUB_TOKEN',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'AWS_SESSION_TOKEN',
  'AZURE_CLIENT_SECRET',
  'DOCKER_AUTH_CONFIG',
  'VAULT_TOKEN',
]);
const SECRET_SUFFIX = /(_TOKEN|_SECRET|_SECRET_KEY|_SECRET_ACCESS_KEY|_PASSWORD|_PASSWD|_PRIVATE_KEY|_CLIENT_SECRET|_ACCESS_TOKEN)$/;

export function isServiceCredentialEnv(name: string): boolean {
  const n = name.toUpperCase();
  return SERVICE_CREDENTIAL_NAMES.has(n) || SECRET_SUFFIX.test(n);
}

/** What an agent's (or a check's) command never inherits: model credentials and other services' credentials. */
export function isCommandSecretEnv(name: string): boolean {
  return isModelCredentialEnv(name) || isServiceCredentialEnv(name);
}
