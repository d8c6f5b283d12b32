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
