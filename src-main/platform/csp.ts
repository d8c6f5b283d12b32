/**
 * The one inline script the UI has (src-renderer/index.html: browser mode opens its socket to
 * the host while the app's scripts load), allowed by its SHA-256 and nothing else inline.
 * test/unit/host/early-socket-csp.test.ts checks this against the page.
 */
export const EARLY_SOCKET_SCRIPT_SHA256 = 'ws/R7O9MUb8QtW6lOvPBgMRyRVxlqlKvXD5mu6dxgPo=';

/** Our own scripts only (and that one inline script), no remote code: the desktop window's and browser mode's. */
export const SCRIPT_SRC = `script-src 'self' 'sha256-${EARLY_SOCKET_SCRIPT_SHA256}'`;
