/**
 * This machine's Docker engine offered on a TCP port, as a remote engine is: socat forwards
 * 127.0.0.1:<port> to /var/run/docker.sock, in the clear or behind TLS with client
 * certificates (`OPENSSL-LISTEN … verify=1`, as dockerd's `--tlsverify` does). The certificates
 * are real ones made by the `openssl` CLI in a temporary folder: a CA, a server certificate for
 * 127.0.0.1 and a client certificate, laid out as the Docker CLI's certificate folder
 * (ca.pem, cert.pem, key.pem).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

/** The socket the forwarded engine listens on. */
const DOCKER_SOCKET = '/var/run/docker.sock';
/** Certificates outlive any test run; a day is plenty and keeps them obviously throwaway. */
const CERT_DAYS = '1';

function openssl(cwd: string, ...args: string[]): void {
  execFileSync('openssl', args, { cwd, stdio: 'pipe' });
}

/** A self-signed CA in `dir` (`<name>.pem`, `<name>-key.pem`). */
function makeCa(dir: string, name: string): void {
  openssl(dir, 'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', CERT_DAYS, '-subj', `/CN=${name}`, '-keyout', `${name}-key.pem`, '-out', `${name}.pem`, '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
}

/** A leaf certificate `<name>.pem` / `<name>-key.pem` signed by CA `ca`, with the given extensions. */
function makeLeaf(dir: string, ca: string, name: string, cn: string, ext: string): void {
  writeFileSync(join(dir, `${name}.ext`), ext);
  openssl(dir, 'req', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-subj', `/CN=${cn}`, '-keyout', `${name}-key.pem`, '-out', `${name}.csr`);
  openssl(dir, 'x509', '-req', '-in', `${name}.csr`, '-CA', `${ca}.pem`, '-CAkey', `${ca}-key.pem`, '-CAcreateserial', '-days', CERT_DAYS, '-sha256', '-extfile', `${name}.ext`, '-out', `${name}.pem`);
}

export interface TlsMaterial {
  /** The CA that signed the server and client certificates. */
  caPem: string;
  serverCert: string;
  serverKey: string;
  /** A certificate folder as the Docker CLI expects it: ca.pem, cert.pem, key.pem. */
  clientDir: string;
  /** A second, unrelated CA (a certificate folder trusting it must refuse the server). */
  otherCaPem: string;
  /** OpenSSL configuration for the server side (socat). */
  opensslConf: string;
}

/** Throwaway TLS material for an engine on 127.0.0.1, made under `dir`. */
export function makeTlsMaterial(dir: string): TlsMaterial {
  const pki = join(dir, 'pki');
  mkdirSync(pki, { recursive: true });
  makeCa(pki, 'ca');
  makeCa(pki, 'other-ca');
  makeLeaf(pki, 'ca', 'server', '127.0.0.1', 'subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  makeLeaf(pki, 'ca', 'client', 'flightdeck-test-client', 'extendedKeyUsage=clientAuth\n');
  const clientDir = join(dir, 'client');
  mkdirSync(clientDir, { recursive: true });
  copyFileSync(join(pki, 'ca.pem'), join(clientDir, 'ca.pem'));
  copyFileSync(join(pki, 'client.pem'), join(clientDir, 'cert.pem'));
  copyFileSync(join(pki, 'client-key.pem'), join(clientDir, 'key.pem'));
  // socat's server sets no session id context, so OpenSSL refuses ("internal error") any client
  // that resumes a session with it while client certificates are verified — and Node's https
  // agent resumes from its second connection on (dockerd, Go's TLS, resumes fine). Issuing no
  // session tickets makes every connection a full handshake, like the first.
  const opensslConf = join(pki, 'openssl.cnf');
  writeFileSync(opensslConf, 'openssl_conf = openssl_init\n[openssl_init]\nssl_conf = ssl_sect\n[ssl_sect]\nsystem_default = system_default_sect\n[system_default_sect]\nNumTickets = 0\n');
  return { caPem: join(pki, 'ca.pem'), serverCert: join(pki, 'server.pem'), serverKey: join(pki, 'server-key.pem'), clientDir, otherCaPem: join(pki, 'other-ca.pem'), opensslConf };
}

export interface Forwarder {
  port: number;
  process: ChildProcess;
  stop(): void;
}

/**
 * socat forwarding 127.0.0.1:`port` to the Docker socket: plain TCP, or TLS requiring a client
 * certificate signed by `tls.caPem`. Returns at once; callers wait for it to answer.
 */
export function forwardDocker(port: number, tls?: TlsMaterial): Forwarder {
  const listen = tls
    ? `OPENSSL-LISTEN:${port},bind=127.0.0.1,cert=${tls.serverCert},key=${tls.serverKey},cafile=${tls.caPem},verify=1,fork,reuseaddr`
    : `TCP-LISTEN:${port},bind=127.0.0.1,fork,reuseaddr`;
  const child = spawn('socat', [listen, `UNIX-CONNECT:${DOCKER_SOCKET}`], { stdio: 'ignore', env: tls ? { ...process.env, OPENSSL_CONF: tls.opensslConf } : process.env });
  return {
    port,
    process: child,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    },
  };
}

/** A TCP port on 127.0.0.1 nobody listens on right now (the kernel's pick, so parallel test files do not collide). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => (a && typeof a === 'object' ? resolve(a.port) : reject(new Error('no port'))));
    });
  });
}

/** Polls `probe` until it resolves (the forwarder needs a moment to listen); its last error after `timeoutMs`. */
export async function untilAnswers<T>(probe: () => Promise<T>, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await probe();
    } catch (e) {
      if (Date.now() > deadline) throw e;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}
