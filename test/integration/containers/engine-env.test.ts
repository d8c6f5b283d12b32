/**
 * DOCKER_HOST names one engine; it must not move the others. docker-modem lays its options over
 * what it reads from DOCKER_HOST itself, so the local socket's client followed DOCKER_HOST to a
 * remote host and "local" read unreachable while the socket answered.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ContainerService } from '../../../src-main/containers/container-service';
import { silentLogger } from '../../../src-main/platform/logger';
import { freePort } from '../../support/docker-tcp';
import { tempDir } from '../../support/temp';

const saved = { host: process.env.DOCKER_HOST, tls: process.env.DOCKER_TLS_VERIFY };
const dirs: Array<{ cleanup(): void }> = [];
afterEach(() => {
  if (saved.host === undefined) delete process.env.DOCKER_HOST;
  else process.env.DOCKER_HOST = saved.host;
  if (saved.tls === undefined) delete process.env.DOCKER_TLS_VERIFY;
  else process.env.DOCKER_TLS_VERIFY = saved.tls;
  for (const d of dirs.splice(0)) d.cleanup();
});

describe('engines with DOCKER_HOST set', () => {
  it('reaches the local socket as itself while DOCKER_HOST names an engine that does not answer', async () => {
    const data = tempDir('fd-engine-env-');
    dirs.push(data);
    // Nothing listens there: the DOCKER_HOST engine is down, the local one is not.
    process.env.DOCKER_HOST = `tcp://127.0.0.1:${await freePort()}`;
    process.env.DOCKER_TLS_VERIFY = '1';
    const svc = new ContainerService({ dataDir: data.path, logger: silentLogger });
    const infos = await svc.engineInfos();
    const local = infos.find((e) => e.spec.name === 'local');
    const env = infos.find((e) => e.spec.name === 'DOCKER_HOST');
    expect(local?.error ?? null).toBeNull();
    expect(local?.info?.cpus).toBeGreaterThan(0);
    expect(env?.info ?? null).toBeNull();
    expect(env?.error?.message).toBeTruthy();
    // The variables are put back for everything else in this process.
    expect(process.env.DOCKER_HOST).toMatch(/^tcp:\/\/127\.0\.0\.1:\d+$/);
    expect(process.env.DOCKER_TLS_VERIFY).toBe('1');
  }, 60_000);
});
