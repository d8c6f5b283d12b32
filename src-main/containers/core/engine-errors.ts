/**
 * What a failed engine call means for the user. Every failure the user can act on becomes an
 * AppError whose message says what to do (start Docker, join the `docker` group, fix the
 * certificates, check ssh, upgrade the engine, install the NVIDIA container toolkit, build the
 * image); `details.reason` lets the UI offer the matching action (Retry, Build image).
 */
import { AppError } from '../../../src-preload/contract';

export type EngineFailure = 'engine_down' | 'permission_denied' | 'tls' | 'ssh' | 'timeout' | 'api_too_old' | 'gpu_unavailable' | 'image_missing' | 'not_found' | 'conflict' | 'engine_error';

/**
 * The oldest engine API Flightdeck speaks: 1.40 (Docker 19.03) is the first with DeviceRequests
 * (GPUs) and the host-gateway alias arrived in Docker 20.10 (API 1.41); older engines are told
 * to upgrade rather than half working.
 */
export const MIN_API_VERSION = '1.41';

export function apiVersionAtLeast(version: string, min = MIN_API_VERSION): boolean {
  const [a = 0, b = 0] = version.split('.').map((n) => Number.parseInt(n, 10));
  const [c = 0, d = 0] = min.split('.').map((n) => Number.parseInt(n, 10));
  return a > c || (a === c && b >= d);
}

export function apiTooOld(engine: string, version: string): AppError {
  return new AppError('unavailable', `The Docker engine ${engine} speaks API ${version}; Flightdeck needs ${MIN_API_VERSION} or newer (Docker 20.10+). Upgrade the engine.`, { reason: 'api_too_old' satisfies EngineFailure, apiVersion: version });
}

interface ErrLike {
  code?: unknown;
  errno?: unknown;
  statusCode?: unknown;
  reason?: unknown;
  json?: unknown;
  level?: unknown;
  message?: unknown;
}

function engineMessage(e: ErrLike): string {
  const j = e.json as { message?: unknown } | null | undefined;
  if (j && typeof j.message === 'string') return j.message;
  return typeof e.message === 'string' ? e.message : String(e);
}

const TLS_CODES = /^(ERR_TLS|ERR_SSL|CERT_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT|EPROTO$|ERR_OSSL)/;
/** ssh2's error levels (client-socket, client-timeout, client-authentication, protocol, handshake). */
const SSH_LEVELS = new Set(['client-socket', 'client-timeout', 'client-authentication', 'client-dns', 'protocol', 'handshake']);

/** OpenSSL's own words in a Node TLS error ("…:SSL routines:ssl3_read_bytes:tlsv13 alert certificate required:…" → the last part). */
function opensslReason(msg: string): string {
  const m = /SSL routines:[^:]*:([^:]+)/.exec(msg);
  return (m?.[1] ?? msg).trim();
}

/**
 * What went wrong in a TLS handshake with an engine, in the terms of the certificate folder
 * (ca.pem, cert.pem, key.pem), and what to do. The side that refused decides the fix: our
 * ca.pem does not vouch for the engine's certificate, or the engine (`--tlsverify`) refused our
 * client certificate or got none.
 */
export function tlsCause(code: string, msg: string): string {
  const why = opensslReason(msg);
  if (/^(SELF_SIGNED_CERT_IN_CHAIN|DEPTH_ZERO_SELF_SIGNED_CERT|UNABLE_TO_VERIFY_LEAF_SIGNATURE|UNABLE_TO_GET_ISSUER_CERT(_LOCALLY)?)$/.test(code)) {
    return `the engine's certificate is not signed by the CA in ca.pem (${why}). Put the CA that signed the engine's certificate in ca.pem`;
  }
  if (code === 'ERR_TLS_CERT_ALTNAME_INVALID') return `the engine's certificate is not for this host name (${why}). Use the host name the certificate was made for, or a certificate made for this one`;
  if (code === 'CERT_HAS_EXPIRED' || code === 'CERT_NOT_YET_VALID') return `the engine's certificate is not valid now (${why}). Renew it on the engine`;
  if (/alert (certificate required|handshake failure|bad certificate|unknown ca|certificate unknown|certificate revoked|certificate expired|access denied)/i.test(msg)) {
    return `the engine refused the client certificate (${why}): it requires one signed by its CA. Put that client certificate and its key in cert.pem and key.pem in the certificate folder`;
  }
  return `${why}. Check the engine's certificates (ca.pem, cert.pem, key.pem in the certificate folder)`;
}

/**
 * `e` (a dockerode/docker-modem/ssh2/Node error) as the AppError the user reads. `engine` is the
 * engine's name and address for the message. AppErrors pass through.
 */
export function engineError(e: unknown, engine: string): AppError {
  if (e instanceof AppError) return e;
  const x = (e ?? {}) as ErrLike;
  const code = typeof x.code === 'string' ? x.code : '';
  const msg = engineMessage(x);
  const status = typeof x.statusCode === 'number' ? x.statusCode : null;
  const make = (appCode: 'unavailable' | 'permission_denied' | 'not_found' | 'conflict' | 'invalid_input', reason: EngineFailure, text: string) =>
    new AppError(appCode, text, { reason, engine, ...(msg ? { engineMessage: msg } : {}) });

  if (typeof x.level === 'string' && SSH_LEVELS.has(x.level)) {
    const auth = x.level === 'client-authentication';
    return make('unavailable', 'ssh', auth
      ? `ssh refused the login to ${engine}: ${msg}. Load the key into your ssh agent (ssh-add) or check the user name, then retry.`
      : `Could not reach ${engine} over ssh: ${msg}. Check that the host answers ssh and runs Docker, then retry.`);
  }
  if (code === 'EACCES' || code === 'EPERM') {
    return make('permission_denied', 'permission_denied', `Permission denied on the Docker socket of ${engine}. Add your user to the docker group (sudo usermod -aG docker $USER), log out and back in, then retry.`);
  }
  if (code === 'ENOENT' || code === 'ECONNREFUSED' || code === 'ECONNRESET' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EPIPE') {
    return make('unavailable', 'engine_down', `The Docker engine ${engine} is not reachable (${code}). Start Docker (or dockerd) there, or pick another engine, then retry.`);
  }
  if (TLS_CODES.test(code) || /certificate|tls|ssl/i.test(code) || (/certificate|SSL routines|TLS/i.test(msg) && status === null)) {
    return make('unavailable', 'tls', `The TLS connection to ${engine} failed: ${tlsCause(code, msg)}, then retry.`);
  }
  if (status === 400 && /client version .* is too (new|old)|minimum supported API version/i.test(msg)) {
    return make('unavailable', 'api_too_old', `The Docker engine ${engine} refused Flightdeck's API version: ${msg}. Upgrade the engine to Docker 20.10 or newer.`);
  }
  if (/could not select device driver "nvidia"|nvidia-container-cli|unknown or invalid runtime name: nvidia/i.test(msg)) {
    return make('unavailable', 'gpu_unavailable', `${engine} cannot give containers GPUs: ${msg}. Install the NVIDIA driver and the NVIDIA Container Toolkit on that machine and restart Docker, or run without GPUs.`);
  }
  if (status === 404 && /no such image|pull access denied|repository does not exist/i.test(msg)) {
    return make('not_found', 'image_missing', `The image is not on ${engine}: ${msg}. Build the agent image (Settings → Images, or \`containers image-build\`) or choose a local image. Flightdeck never pulls images silently.`);
  }
  if (status === 404) return make('not_found', 'not_found', `Not found on ${engine}: ${msg}`);
  if (status === 409) return make('conflict', 'conflict', `${engine}: ${msg}`);
  if (status === 400) return make('invalid_input', 'engine_error', `${engine} refused the request: ${msg}`);
  return make('unavailable', 'engine_error', `The Docker engine ${engine} failed: ${msg}`);
}

/** The deadline error: the engine took too long to answer. */
export function engineTimeout(engine: string, what: string, ms: number): AppError {
  return new AppError('unavailable', `The Docker engine ${engine} did not answer ${what} within ${Math.round(ms / 1000)} s. Check that it is running and reachable, then retry.`, { reason: 'timeout' satisfies EngineFailure, engine });
}
