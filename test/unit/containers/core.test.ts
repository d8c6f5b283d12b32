import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { AppError } from '../../../src-preload/contract';
import { apiVersionAtLeast, engineError } from '../../../src-main/containers/core/engine-errors';
import { contextEngine, envEngine, isLocalEngine, parseEngineHost } from '../../../src-main/containers/core/engine-spec';
import { containerBaseUrl, createOptions, deviceRequests, parseGpus, redactInspect, type ContainerRequest } from '../../../src-main/containers/core/container-spec';
import { parseNvidiaSmi, parseStats } from '../../../src-main/containers/core/stats';
import { discoverEngines, dockerOptions } from '../../../src-main/containers/engines';
import { tempDir } from '../../support/temp';

const dirs: Array<{ cleanup(): void }> = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

describe('engine addresses', () => {
  it('parses the Docker CLI spellings', () => {
    expect(parseEngineHost('unix:///var/run/docker.sock')).toEqual({ kind: 'unix', socketPath: '/var/run/docker.sock' });
    expect(parseEngineHost('/run/podman/podman.sock')).toEqual({ kind: 'unix', socketPath: '/run/podman/podman.sock' });
    expect(parseEngineHost('tcp://10.0.0.5')).toEqual({ kind: 'tcp', host: '10.0.0.5', port: 2375 });
    expect(parseEngineHost('tcp://10.0.0.5', true)).toEqual({ kind: 'tcp', host: '10.0.0.5', port: 2376 });
    expect(parseEngineHost('tcp://[::1]:1234')).toEqual({ kind: 'tcp', host: '::1', port: 1234 });
    expect(parseEngineHost('ssh://gpu@box.lan:2222')).toEqual({ kind: 'ssh', user: 'gpu', host: 'box.lan', port: 2222 });
    expect(parseEngineHost('ssh://box')).toEqual({ kind: 'ssh', user: null, host: 'box', port: 22 });
    expect(isLocalEngine({ host: 'unix:///x.sock' })).toBe(true);
    expect(isLocalEngine({ host: 'tcp://127.0.0.1:2375' })).toBe(false);
  });

  it('refuses malformed addresses with a message naming the accepted forms', () => {
    for (const bad of ['', 'docker.sock', 'unix://relative.sock', 'ftp://x', 'ssh://host/path', 'tcp://']) {
      expect(() => parseEngineHost(bad)).toThrow(AppError);
      expect(() => parseEngineHost(bad)).toThrow(/unix:\/\/.*tcp:\/\/.*ssh:\/\//);
    }
  });

  it('reads DOCKER_HOST with its TLS variables', () => {
    expect(envEngine({}, '/home/u')).toBeNull();
    expect(envEngine({ DOCKER_HOST: 'tcp://h:2376', DOCKER_TLS_VERIFY: '1' }, '/home/u')).toEqual({ name: 'DOCKER_HOST', source: 'env', host: 'tcp://h:2376', tls: { verify: true, certDir: '/home/u/.docker' } });
    expect(envEngine({ DOCKER_HOST: 'unix:///s.sock' }, '/home/u')?.tls).toBeNull();
  });

  it('reads a context meta.json and ignores shapes without a docker endpoint', () => {
    expect(contextEngine({ Name: 'gpu', Endpoints: { docker: { Host: 'ssh://me@gpu', SkipTLSVerify: false } } }, null)).toEqual({ name: 'gpu', source: 'context', host: 'ssh://me@gpu', tls: null });
    expect(contextEngine({ Name: 'k', Endpoints: { kubernetes: {} } }, null)).toBeNull();
    expect(contextEngine('nonsense', null)).toBeNull();
    expect(contextEngine({ Name: 't', Endpoints: { docker: { Host: 'tcp://h:2376', SkipTLSVerify: true } } }, '/tls')?.tls).toEqual({ verify: false, certDir: '/tls' });
  });

  it('discovers the socket, DOCKER_HOST, contexts and the current context first', () => {
    const home = tempDir('fd-home-');
    dirs.push(home);
    const meta = join(home.path, '.docker/contexts/meta/abc');
    mkdirSync(meta, { recursive: true });
    writeFileSync(join(meta, 'meta.json'), JSON.stringify({ Name: 'remote-gpu', Endpoints: { docker: { Host: 'ssh://me@gpu' } } }));
    mkdirSync(join(home.path, '.docker/contexts/meta/broken'), { recursive: true });
    writeFileSync(join(home.path, '.docker/contexts/meta/broken/meta.json'), '{not json');
    writeFileSync(join(home.path, '.docker/config.json'), JSON.stringify({ currentContext: 'remote-gpu' }));
    const exists = (p: string) => p === '/var/run/docker.sock' || p === '/run/user/1000/podman/podman.sock';
    const found = discoverEngines({ env: { XDG_RUNTIME_DIR: '/run/user/1000' }, home: home.path, exists, user: [{ name: 'local', source: 'user', host: 'tcp://dup:1', tls: null }] });
    expect(found.map((e) => [e.name, e.host])).toEqual([
      ['remote-gpu', 'ssh://me@gpu'],
      ['local', 'unix:///var/run/docker.sock'],
      ['podman', 'unix:///run/user/1000/podman/podman.sock'],
    ]);
    const withEnv = discoverEngines({ env: { DOCKER_HOST: 'tcp://x:2375' }, home: home.path, exists });
    expect(withEnv[0]).toMatchObject({ name: 'DOCKER_HOST', host: 'tcp://x:2375' });
  });

  it('builds connection options: TLS certificates, ssh with the agent', () => {
    const certs = tempDir('fd-certs-');
    dirs.push(certs);
    for (const f of ['ca.pem', 'cert.pem', 'key.pem']) writeFileSync(join(certs.path, f), `${f}-bytes`);
    const o = dockerOptions({ name: 't', source: 'user', host: 'tcp://h:2376', tls: { verify: true, certDir: certs.path } }) as Record<string, unknown>;
    expect(o.protocol).toBe('https');
    expect(String(o.ca)).toBe('ca.pem-bytes');
    expect(String(o.key)).toBe('key.pem-bytes');
    expect(() => dockerOptions({ name: 't', source: 'user', host: 'tcp://h:2376', tls: { verify: true, certDir: '/nonexistent' } })).toThrow(/ca\.pem is missing/);
    const s = dockerOptions({ name: 's', source: 'user', host: 'ssh://me@h', tls: null }, { SSH_AUTH_SOCK: '/tmp/agent.sock' }) as Record<string, unknown>;
    expect(s).toMatchObject({ protocol: 'ssh', host: 'h', port: 22, username: 'me', sshOptions: { agent: '/tmp/agent.sock' } });
  });
});

describe('engine errors', () => {
  const reason = (e: unknown) => engineError(e, '"x"').details?.reason;
  it('names the fix for each failure', () => {
    expect(reason(Object.assign(new Error('connect EACCES'), { code: 'EACCES' }))).toBe('permission_denied');
    expect(engineError(Object.assign(new Error('connect EACCES'), { code: 'EACCES' }), '"x"').message).toContain('docker group');
    expect(reason(Object.assign(new Error('connect ENOENT'), { code: 'ENOENT' }))).toBe('engine_down');
    expect(reason(Object.assign(new Error('self signed'), { code: 'DEPTH_ZERO_SELF_SIGNED_CERT' }))).toBe('tls');
    const tlsMessage = (code: string, message: string) => engineError(Object.assign(new Error(message), { code }), '"x"').message;
    expect(tlsMessage('ERR_TLS_CERT_ALTNAME_INVALID', "Hostname/IP does not match certificate's altnames")).toContain('not for this host name');
    expect(tlsMessage('CERT_HAS_EXPIRED', 'certificate has expired')).toContain('not valid now');
    expect(tlsMessage('ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE', '80:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../ssl/record/rec_layer_s3.c:1601:')).toBe(
      'The TLS connection to "x" failed: the engine refused the client certificate (sslv3 alert bad certificate): it requires one signed by its CA. Put that client certificate and its key in cert.pem and key.pem in the certificate folder, then retry.',
    );
    expect(reason(Object.assign(new Error('All configured authentication methods failed'), { level: 'client-authentication' }))).toBe('ssh');
    expect(engineError(Object.assign(new Error('x'), { level: 'client-authentication' }), '"x"').message).toContain('ssh-add');
    expect(reason({ statusCode: 400, json: { message: 'client version 1.41 is too new. Maximum supported API version is 1.40' } })).toBe('api_too_old');
    expect(reason({ statusCode: 500, json: { message: 'could not select device driver "nvidia" with capabilities: [[gpu]]' } })).toBe('gpu_unavailable');
    expect(reason({ statusCode: 404, json: { message: 'No such image: foo:1' } })).toBe('image_missing');
    expect(reason({ statusCode: 409, json: { message: 'name in use' } })).toBe('conflict');
    expect(reason(null)).toBe('engine_error');
    const passthrough = new AppError('invalid_input', 'mine');
    expect(engineError(passthrough, 'x')).toBe(passthrough);
  });

  it('compares API versions numerically', () => {
    expect(apiVersionAtLeast('1.41')).toBe(true);
    expect(apiVersionAtLeast('1.43')).toBe(true);
    expect(apiVersionAtLeast('1.9')).toBe(false);
    expect(apiVersionAtLeast('1.40')).toBe(false);
    expect(apiVersionAtLeast('2.0')).toBe(true);
  });
});

describe('container options', () => {
  const req: ContainerRequest = {
    image: 'img:1',
    instance: 'inst',
    sessionId: 'ses_1',
    projectId: null,
    featureId: null,
    owner: { pid: 1, id: '1@2' },
    user: { uid: 1000, gid: 1001 },
    workspace: { kind: 'bind', hostPath: '/w' },
    mailbox: { commands: '/m/c', reports: '/m/r', sessions: '/m/s', logs: '/m/l' },
    limits: { memoryBytes: 1024, cpus: 1.5, pids: 64 },
    network: 'none',
    gpus: { kind: 'count', count: 2 },
    localEngine: true,
    keep: true,
    taskTimeoutMs: 5000,
  };

  it('mounts the seed directory map and carries no secret-looking environment', () => {
    const o = createOptions(req) as { Env: string[]; User: string; Labels: Record<string, string>; HostConfig: Record<string, unknown> };
    expect(o.User).toBe('1000:1001');
    expect((o.HostConfig.Mounts as Array<{ Target: string }>).map((m) => m.Target)).toEqual(['/app/volumes/workspace', '/app/volumes/commands/pending', '/app/volumes/reports/pending', '/app/volumes/sessions', '/app/volumes/logs']);
    expect(o.HostConfig.NanoCpus).toBe(1.5e9);
    expect(o.HostConfig.MemorySwap).toBe(1024);
    // No host gateway without a bridge network.
    expect(o.HostConfig.ExtraHosts).toBeUndefined();
    expect(o.Env.some((e) => /KEY|TOKEN|SECRET/.test(e))).toBe(false);
    expect(o.Labels['dev.flightdeck.keep']).toBe('1');
    expect(() => createOptions({ ...req, localEngine: false })).toThrow(/remote engine cannot bind-mount/);
  });

  it("binds the workspace's git data read-only after the workspace (a bind workspace only)", () => {
    const ro = [{ source: '/w/.git', target: '/app/volumes/workspace/.git' }, { source: '/r/.git', target: '/r/.git' }];
    const mounts = (createOptions({ ...req, readOnlyMounts: ro }) as { HostConfig: { Mounts: Array<Record<string, unknown>> } }).HostConfig.Mounts;
    expect(mounts.slice(0, 3)).toEqual([
      { Type: 'bind', Source: '/w', Target: '/app/volumes/workspace' },
      { Type: 'bind', Source: '/w/.git', Target: '/app/volumes/workspace/.git', ReadOnly: true },
      { Type: 'bind', Source: '/r/.git', Target: '/r/.git', ReadOnly: true },
    ]);
    const volume = (createOptions({ ...req, localEngine: false, workspace: { kind: 'volume', name: 'v' }, readOnlyMounts: ro }) as { HostConfig: { Mounts: Array<Record<string, unknown>> } }).HostConfig.Mounts;
    expect(volume.some((m) => m.ReadOnly)).toBe(false);
  });

  it("points host.docker.internal at Docker's host-gateway, or at the address given (Podman's bridge gateway), or nowhere", () => {
    const hosts = (r: Partial<ContainerRequest>) => (createOptions({ ...req, network: 'bridge', ...r }) as { HostConfig: { ExtraHosts?: string[] } }).HostConfig.ExtraHosts;
    expect(hosts({})).toEqual(['host.docker.internal:host-gateway']);
    expect(hosts({ hostGateway: '10.88.0.1' })).toEqual(['host.docker.internal:10.88.0.1']);
    expect(hosts({ hostGateway: null })).toBeUndefined();
  });

  it('turns GPU requests into the NVIDIA device request', () => {
    expect(deviceRequests(parseGpus('none'))).toEqual([]);
    expect(deviceRequests(parseGpus('all'))).toEqual([{ Driver: 'nvidia', Count: -1, Capabilities: [['gpu']], Options: {} }]);
    expect(deviceRequests(parseGpus('2'))).toEqual([{ Driver: 'nvidia', Count: 2, Capabilities: [['gpu']], Options: {} }]);
    expect(deviceRequests(parseGpus('device=0,2'))).toEqual([{ Driver: 'nvidia', DeviceIDs: ['0', '2'], Capabilities: [['gpu']], Options: {} }]);
    expect(parseGpus('GPU-3f2a-11')).toEqual({ kind: 'ids', ids: ['GPU-3f2a-11'] });
    for (const bad of ['-1', 'many', '0,,1', 'all,1', '1; rm -rf /']) expect(() => parseGpus(bad)).toThrow(/not a GPU request/);
  });

  it('rewrites a loopback model URL to the host gateway on local bridge engines only', () => {
    expect(containerBaseUrl('http://127.0.0.1:8080/v1', 'bridge', true)).toBe('http://host.docker.internal:8080/v1');
    expect(containerBaseUrl('http://localhost:9', 'bridge', true)).toBe('http://host.docker.internal:9');
    expect(containerBaseUrl('http://[::1]:9/', 'bridge', true)).toBe('http://host.docker.internal:9/');
    expect(containerBaseUrl('http://127.0.0.1:8080', 'host', true)).toBe('http://127.0.0.1:8080');
    expect(containerBaseUrl('http://127.0.0.1:8080', 'bridge', false)).toBe('http://127.0.0.1:8080');
    expect(containerBaseUrl('https://api.anthropic.com', 'bridge', true)).toBe('https://api.anthropic.com');
    expect(containerBaseUrl('not a url', 'bridge', true)).toBe('not a url');
  });

  it('redacts secret-looking variables in inspect output', () => {
    const r = redactInspect({ Config: { Env: ['PATH=/bin', 'OPENAI_API_KEY=sk-1', 'GH_TOKEN=ghp', 'NOEQUALS'] } });
    expect(r.Config.Env).toEqual(['PATH=/bin', 'OPENAI_API_KEY=[redacted]', 'GH_TOKEN=[redacted]', 'NOEQUALS']);
  });
});

describe('stats', () => {
  it('computes CPU percent like docker stats and memory without page cache', () => {
    const s = parseStats({
      cpu_stats: { cpu_usage: { total_usage: 3_000 }, system_cpu_usage: 20_000, online_cpus: 2 },
      precpu_stats: { cpu_usage: { total_usage: 1_000 }, system_cpu_usage: 10_000 },
      memory_stats: { usage: 5_000, limit: 10_000, stats: { inactive_file: 1_000 } },
      pids_stats: { current: 3 },
    }, [], 42);
    expect(s).toEqual({ cpuPercent: 40, memoryBytes: 4_000, memoryLimitBytes: 10_000, pids: 3, gpus: [], at: 42 });
    expect(parseStats(null, [], 1).cpuPercent).toBe(0);
  });

  it('reads nvidia-smi CSV and skips garbage', () => {
    expect(parseNvidiaSmi('0, NVIDIA GeForce RTX 3080, 57, 4012, 10240\ngarbage\n1, A100, x, 1, 2\n')).toEqual([{ index: 0, name: 'NVIDIA GeForce RTX 3080', utilizationPercent: 57, memoryUsedMiB: 4012, memoryTotalMiB: 10240 }]);
    // MIG and some boards report figures as [N/A]: the GPU stays listed, its unknown figures are null (not 0).
    expect(parseNvidiaSmi('0, NVIDIA A100-SXM4-40GB, [N/A], 3, 40960\n1, NVIDIA T4, [Not Supported], [N/A], [N/A]\n')).toEqual([
      { index: 0, name: 'NVIDIA A100-SXM4-40GB', utilizationPercent: null, memoryUsedMiB: 3, memoryTotalMiB: 40960 },
      { index: 1, name: 'NVIDIA T4', utilizationPercent: null, memoryUsedMiB: null, memoryTotalMiB: null },
    ]);
  });
});

describe('Claude Code in a container', () => {
  it('switches to bypassPermissions, drops the sandbox block and lists the run files to copy', async () => {
    const { containerArgs, containerEnvFor, hostPaths, keyFileOf, loopbackTarget } = await import('../../../src-main/containers/core/claude-in-container');
    const files: Record<string, string> = {
      '/run/x/settings.json': JSON.stringify({ hooks: {}, apiKeyHelper: "cat '/keys/it'\\''s'", sandbox: { enabled: true } }),
      '/run/x/instr.md': '# be nice',
      "/keys/it's": 'sk-1',
    };
    const plan = containerArgs(['-p', '--settings', '/run/x/settings.json', '--permission-mode', 'default', '--disallowedTools=Write', '--append-system-prompt-file', '/run/x/instr.md'], (p) => files[p]!);
    expect(plan.args).toEqual(['-p', '--settings', '/run/x/settings.json', '--disallowedTools=Write', '--append-system-prompt-file', '/run/x/instr.md', '--permission-mode', 'bypassPermissions']);
    expect(plan.settings!.content.sandbox).toBeUndefined();
    expect(plan.files('{}').map((f) => f.path)).toEqual(['/run/x/settings.json', '/run/x/instr.md', "/keys/it's"]);
    expect(keyFileOf('rm -rf /')).toBeNull();
    expect(loopbackTarget('http://localhost:8080/v1')).toEqual({ host: '127.0.0.1', port: 8080 });
    expect(loopbackTarget('https://api.anthropic.com')).toBeNull();
    const env = containerEnvFor({ ANTHROPIC_BASE_URL: 'u', ANTHROPIC_API_KEY: 'sk', PATH: '/host', CLAUDE_CODE_MAX_RETRIES: '0', HOME: '/root' }, '/tmp/h');
    expect(env).toEqual({ ANTHROPIC_BASE_URL: 'u', CLAUDE_CODE_MAX_RETRIES: '0', HOME: '/tmp/h', IS_SANDBOX: '1' });
    expect(hostPaths({ tool_input: { file_path: '/app/volumes/workspace/a.ts', other: '/app/volumes/workspaceX' }, cwd: '/app/volumes/workspace', n: 1 }, '/app/volumes/workspace', '/w')).toEqual({ tool_input: { file_path: '/w/a.ts', other: '/app/volumes/workspaceX' }, cwd: '/w', n: 1 });
  });

  it('writes a ustar archive tar can read', async () => {
    const { tarFiles } = await import('../../../src-main/containers/core/tar');
    const { execFileSync } = await import('node:child_process');
    const d = tempDir('fd-tar-');
    dirs.push(d);
    writeFileSync(join(d.path, 'a.tar'), tarFiles([{ name: 'tmp/run/settings.json', content: '{"é":1}', mode: 0o600, uid: 1000, gid: 1001 }]));
    expect(execFileSync('tar', ['-tvf', join(d.path, 'a.tar')], { encoding: 'utf8' })).toMatch(/^-rw------- 1000\/1001 +8 .* tmp\/run\/settings\.json\n$/);
    expect(execFileSync('tar', ['-xOf', join(d.path, 'a.tar')], { encoding: 'utf8' })).toBe('{"é":1}');
  });
});

describe('re-attached GPU requests', () => {
  it('reads back what deviceRequests wrote', async () => {
    const { gpusOf } = await import('../../../src-main/containers/container-service');
    for (const g of [parseGpus('none'), parseGpus('all'), parseGpus('3'), parseGpus('0,2')]) expect(gpusOf(deviceRequests(g))).toEqual(g);
  });
});
