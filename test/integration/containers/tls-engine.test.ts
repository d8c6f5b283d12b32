/**
 * An engine over tcp:// with TLS, as a user adds a remote Docker host with `--tlsverify`: this
 * machine's dockerd behind socat's OPENSSL-LISTEN, which demands a client certificate signed by a
 * throwaway CA (made by the openssl CLI), like dockerd's `--tlsverify`. Reached only through the
 * product's own paths: an engine added with a certificate folder, and DOCKER_HOST /
 * DOCKER_TLS_VERIFY / DOCKER_CERT_PATH discovery. Wrong certificates are refused at once with
 * the `tls` reason (a hang would end as `timeout` at the call's deadline instead).
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { ContainerRunner } from '../../../src-main/containers/container-runner';
import { ContainerService } from '../../../src-main/containers/container-service';
import { workspaceVolumeName } from '../../../src-main/containers/core/workspace-sync';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { forwardDocker, freePort, makeTlsMaterial, untilAnswers, type Forwarder, type TlsMaterial } from '../../support/docker-tcp';
import { gitIn, tempDir } from '../../support/temp';

const SESSION = 'ses_tls_ws';
const SMALL = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };
const docker = new Docker({ socketPath: '/var/run/docker.sock' });

let tls: TlsMaterial;
let socat: Forwarder;
let host: string;
let svc: ContainerService;
let engineVersion: string;
let work: string;
const dirs: Array<{ cleanup(): void }> = [];

/** A certificate folder under the test's folder holding `files` (name in the folder → source). */
function certFolder(name: string, files: Record<string, string>): string {
  const dir = join(work, name);
  mkdirSync(dir, { recursive: true });
  for (const [to, from] of Object.entries(files)) copyFileSync(from, join(dir, to));
  return dir;
}

/** A service as the app makes it: discovered engines plus the user's, kept in its data folder. */
function service(env: NodeJS.ProcessEnv = {}): ContainerService {
  const data = tempDir('fd-tls-data-');
  dirs.push(data);
  return new ContainerService({ dataDir: data.path, logger: silentLogger, env });
}

async function reasonOf(p: Promise<unknown>): Promise<{ reason: unknown; message: string }> {
  const e = await p.then(
    () => null,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(AppError);
  return { reason: (e as AppError).details?.reason, message: (e as AppError).message };
}

beforeAll(async () => {
  const d = tempDir('fd-tls-engine-');
  dirs.push(d);
  work = d.path;
  tls = makeTlsMaterial(work);
  socat = forwardDocker(await freePort(), tls);
  host = `tcp://127.0.0.1:${socat.port}`;
  engineVersion = (await docker.version()).Version;
  svc = service();
  svc.addEngine({ name: 'tls-box', host, tls: { verify: true, certDir: tls.clientDir } });
  // socat needs a moment to listen.
  await untilAnswers(() => svc.engine('tls-box').info());
}, 60_000);

afterAll(async () => {
  await svc?.shutdown();
  if (svc) await docker.getVolume(workspaceVolumeName(svc.instance, SESSION)).remove({ force: true }).catch(() => undefined);
  socat?.stop();
  for (const d of dirs) d.cleanup();
});

describe('an engine over tcp:// with TLS client certificates', () => {
  it("added with a certificate folder, answers with the engine's version", async () => {
    const row = (await svc.engineInfos()).find((r) => r.spec.name === 'tls-box')!;
    expect(row.error).toBeNull();
    expect(row.spec).toEqual({ name: 'tls-box', source: 'user', host, tls: { verify: true, certDir: tls.clientDir } });
    expect(row.info).toMatchObject({ name: 'tls-box', host, local: false, product: 'docker', version: engineVersion, nvidia: false });
    expect(row.info!.cpus).toBeGreaterThan(0);
  }, 60_000);

  it('runs a session placed on it: the workspace seeded over TLS, its commit comes back', async () => {
    const image = ensureTestImage({ git: true });
    const repo = join(work, 'repo');
    mkdirSync(repo);
    gitIn(repo, 'init', '-q', '-b', 'work');
    writeFileSync(join(repo, 'README.md'), 'hello over TLS\n');
    gitIn(repo, 'add', 'README.md');
    gitIn(repo, 'commit', '-qm', 'host: first');
    const placed = await svc.place({ sessionId: SESSION, worktree: repo, image, limits: SMALL, engine: 'tls-box' });
    expect(placed.local).toBe(false);
    const r = await new ContainerRunner(svc, SESSION).run({
      cwd: repo,
      command: 'cat README.md; echo "made behind TLS" > tls.txt && git add tls.txt && git -c user.name=Agent -c user.email=agent@example.test commit -qm "agent: tls.txt" && echo committed',
      env: {},
      timeoutMs: 60_000,
      signal: new AbortController().signal,
    });
    expect(r.output).toBe('hello over TLS\ncommitted\n');
    expect(r.exitCode).toBe(0);
    expect(gitIn(repo, 'log', '--format=%s', 'work').trim()).toBe('agent: tls.txt\nhost: first');
    expect(svc.workspaceSyncState(SESSION)?.state).toBe('in_sync');
    await svc.remove(SESSION);
  }, 180_000);

  it('a certificate folder whose ca.pem did not sign the engine is refused with the tls reason', async () => {
    const dir = certFolder('wrong-ca', { 'ca.pem': tls.otherCaPem, 'cert.pem': join(tls.clientDir, 'cert.pem'), 'key.pem': join(tls.clientDir, 'key.pem') });
    svc.addEngine({ name: 'wrong-ca', host, tls: { verify: true, certDir: dir } });
    const { reason, message } = await reasonOf(svc.engine('wrong-ca').info());
    expect(reason).toBe('tls');
    expect(message).toContain('"wrong-ca"');
    expect(message).toContain("the engine's certificate is not signed by the CA in ca.pem");
    const row = (await svc.engineInfos()).find((r) => r.spec.name === 'wrong-ca')!;
    expect(row.info).toBeNull();
    expect(row.error?.message).toBe(message);
  }, 60_000);

  it('a certificate folder without a client certificate is refused by the engine with the tls reason', async () => {
    const dir = certFolder('no-client-cert', { 'ca.pem': tls.caPem });
    svc.addEngine({ name: 'no-client-cert', host, tls: { verify: true, certDir: dir } });
    const { reason, message } = await reasonOf(svc.engine('no-client-cert').info());
    expect(reason).toBe('tls');
    expect(message).toContain('the engine refused the client certificate (tlsv13 alert certificate required)');
    expect(message).toContain('cert.pem and key.pem');
    // OpenSSL's internals (error numbers, source files) are not the user's business.
    expect(message).not.toMatch(/rec_layer|SSL routines|0A00/);
  }, 60_000);

  it('DOCKER_HOST with DOCKER_TLS_VERIFY and DOCKER_CERT_PATH reaches the same engine, first in the list', async () => {
    const s = service({ DOCKER_HOST: host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: tls.clientDir });
    expect(s.engineSpecs()[0]).toEqual({ name: 'DOCKER_HOST', source: 'env', host, tls: { verify: true, certDir: tls.clientDir } });
    const first = (await s.engineInfos())[0]!;
    expect(first.error).toBeNull();
    expect(first.info).toMatchObject({ name: 'DOCKER_HOST', local: false, version: engineVersion });
    // The default engine (no name) is DOCKER_HOST's: a container call goes through TLS.
    const names = await s.engine().call('the container list', (d) => d.listContainers({ all: true }));
    expect(Array.isArray(names)).toBe(true);

    const wrong = service({ DOCKER_HOST: host, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: certFolder('env-wrong-ca', { 'ca.pem': tls.otherCaPem, 'cert.pem': join(tls.clientDir, 'cert.pem'), 'key.pem': join(tls.clientDir, 'key.pem') }) });
    expect((await reasonOf(wrong.engine().info())).reason).toBe('tls');
  }, 60_000);

  it('DOCKER_CERT_PATH without DOCKER_TLS_VERIFY: encrypted with the client certificate, the engine not verified (no ca.pem needed)', async () => {
    const dir = certFolder('env-no-verify', { 'cert.pem': join(tls.clientDir, 'cert.pem'), 'key.pem': join(tls.clientDir, 'key.pem') });
    const s = service({ DOCKER_HOST: host, DOCKER_CERT_PATH: dir });
    expect(s.engineSpecs()[0]).toMatchObject({ name: 'DOCKER_HOST', tls: { verify: false, certDir: dir } });
    expect(await s.engine().info()).toMatchObject({ name: 'DOCKER_HOST', version: engineVersion });
  }, 60_000);
});
