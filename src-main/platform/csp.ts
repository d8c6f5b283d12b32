/**
 * The one inline script the UI has (src-renderer/index.html: the remembered theme before the
 * first paint; in browser mode, the socket to the host opened while the app's scripts load),
 * allowed by its SHA-256 and nothing else inline.
 * test/unit/host/early-socket-csp.test.ts checks this against the page.
 */
export const EARLY_SOCKET_SCRIPT_SHA256 = '3Bcdkb/Bctk8LmKD9n1H67Lu0YHDoZkS7OQgvXMztao=';

/** Our own scripts only (and that one inline script), no remote code: the desktop window's and browser mode's. */
export const SCRIPT_SRC = `script-src 'self' 'sha256-${EARLY_SOCKET_SCRIPT_SHA256}'`;
