/**
 * `claude` for a session placed in a container, as a host program the Claude Code executor
 * starts exactly like the real CLI (same arguments, stdin prompt, stream-json on stdout, exit
 * code, SIGTERM to stop). It runs the real `claude` inside the session's container:
 *
 * - the run's private files the arguments name (--settings, the project instructions, the key
 *   file of the apiKeyHelper) are copied into the container at the same paths (0600, owned by
 *   the container user) and removed after;
 * - the settings lose their `sandbox` block (the container is the sandbox) and the permission
 *   mode becomes bypassPermissions (the container is the sandboxed boundary), while the PreToolUse hook still decides
 *   every tool call on the host (the same approval dialog as any other run);
 * - loopback endpoints (the hook server, a local model server) are reached through relays on
 *   the engine's bridge gateway (`host.docker.internal` inside); host networking needs none;
 * - the model credential never enters the container: the CLI's endpoint is a relay on the host
 *   (./model-relay) and its key file holds a per-run token the relay swaps for the real key;
 *   nothing secret is in the exec's arguments or environment;
 * - what the CLI does (its text, tool calls and results) is written, readable, to the
 *   container's agent console (../core/console) when the container has one.
 *
 * Input (environment): FLIGHTDECK_BRIDGE = JSON ClaudeBridgeInput.
 */
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, request as httpRequest } from 'node:http';
import { createConnection, createServer, type Server } from 'node:net';
import { PassThrough } from 'node:stream';
import { createInterface } from 'node:readline';
import type { EngineSpec } from '../core/engine-spec';
import { engineError } from '../core/engine-errors';
import { containerArgs, containerEnvFor, hostPaths, keyFileOf, loopbackTarget, type ClaudeBridgeInput } from '../core/claude-in-container';
import { tarFiles } from '../core/tar';
import { dockerClient } from '../engines';
import { newRelayToken, startModelRelay } from './model-relay';
import { claudeConsoleText, hasConsole, redactSecrets } from '../core/console';
import { containerConsole } from '../console-writer';

/** Between the CLI's SIGTERM and SIGKILL inside the container (the executor's own grace is outside). */
const KILL_GRACE_S = 2;

function fail(message: string): never {
  process.stderr.write(`${message}\n`);
  // 127: what a missing CLI exits with, so the executor reports it as a launch failure.
  process.exit(127);
}

async function relay(gateway: string, target: { host: string; port: number }): Promise<{ server: Server; port: number }> {
  const server = createServer((inbound) => {
    const out = createConnection(target.port, target.host);
    inbound.pipe(out).pipe(inbound);
    // Either side closing ends the pair; errors are the connection's end, not the run's.
    inbound.on('error', () => out.destroy());
    out.on('error', () => inbound.destroy());
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, gateway, () => resolve());
  });
  const a = server.address();
  return { server, port: typeof a === 'object' && a ? a.port : 0 };
}

/** Hook requests are tool calls' inputs: a few MB at most (the hook server's own bound is 32 MB). */
const MAX_HOOK_BODY_BYTES = 32 * 1024 * 1024;

/**
 * The approval hook's relay: an HTTP proxy that rewrites the container paths in each request
 * (tool inputs, cwd) to the worktree's host paths before the host's hook server judges them.
 */
async function hookRelay(gateway: string, target: URL, mount: string, worktree: string): Promise<{ server: Server; port: number }> {
  const server = createHttpServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (b: Buffer) => {
      size += b.length;
      if (size > MAX_HOOK_BODY_BYTES) req.destroy();
      else chunks.push(b);
    });
    req.on('end', () => {
      let body = Buffer.concat(chunks);
      try {
        body = Buffer.from(JSON.stringify(hostPaths(JSON.parse(body.toString('utf8')), mount, worktree)));
      } catch {
        // Not JSON: forwarded as is, and the hook server refuses it (fail closed).
      }
      const headers = { ...req.headers, host: target.host, 'content-length': String(body.length) };
      const fwd = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      fwd.on('error', () => {
        res.writeHead(502);
        res.end();
      });
      fwd.end(body);
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, gateway, () => resolve());
  });
  const a = server.address();
  return { server, port: typeof a === 'object' && a ? a.port : 0 };
}

function settingsDir(path: string): string {
  return path.slice(0, path.lastIndexOf('/'));
}

/**
 * The PreToolUse hook as a bash command inside the container: the hook input (stdin) is POSTed
 * to the approval relay over bash's /dev/tcp; the answer's body is the hook's output. Any failure
 * exits 2, which Claude Code treats as "block this tool call".
 */
function hookScript(host: string, port: number, path: string, authorization: string): string {
  return [
    'export LC_ALL=C',
    'body=$(cat)',
    `exec 3<>/dev/tcp/${host}/${port} || { echo "Flightdeck's approval relay is unreachable" >&2; exit 2; }`,
    `printf 'POST %s HTTP/1.0\r\nHost: ${host}\r\nAuthorization: %s\r\nContent-Type: application/json\r\nContent-Length: %s\r\n\r\n%s' '${path}' '${authorization.replace(/'/g, '')}' "\${#body}" "$body" >&3 || exit 2`,
    'resp=$(cat <&3)',
    `case "$resp" in "HTTP/1."?" 200"*) ;; *) echo "Flightdeck's approval relay failed: \${resp%%$'\r'*}" >&2; exit 2;; esac`,
    `printf '%s' "\${resp#*$'\r\n\r\n'}"`,
    '',
  ].join('\n');
}

async function main(): Promise<void> {
  let input: ClaudeBridgeInput;
  try {
    input = JSON.parse(process.env.FLIGHTDECK_BRIDGE ?? '') as ClaudeBridgeInput;
  } catch {
    fail('flightdeck: no container given to run claude in.');
  }
  const engine: EngineSpec = input.engine;
  const label = `"${engine.name}" (${engine.host})`;
  const docker = dockerClient(engine);
  const container = docker.getContainer(input.container);
  const args = process.argv.slice(2);

  // Endpoints on the host's loopback, reached through relays on the bridge gateway.
  const relays: Server[] = [];
  const rewrites = new Map<string, string>();
  let gateway: string | null = null;
  const gatewayIp = async (): Promise<string> => {
    if (gateway === null) {
      // The container's own gateway on its bridge network: the host, as host.docker.internal names it.
      const ins = await container.inspect().catch((e: unknown) => fail(engineError(e, label).message));
      const settings = ins.NetworkSettings as { Gateway?: string; Networks?: Record<string, { Gateway?: string }> };
      const found = settings.Gateway || Object.values(settings.Networks ?? {}).find((n) => n.Gateway)?.Gateway;
      gateway = found || fail(`flightdeck: the container on ${label} has no bridge gateway to reach the host through.`);
    }
    return gateway;
  };
  const reach = async (url: string): Promise<string> => {
    const t = loopbackTarget(url);
    if (!t || input.network !== 'bridge') return url;
    const gw = await gatewayIp();
    const key = `${t.host}:${t.port}`;
    if (!rewrites.has(key)) {
      const r = await relay(gw, t).catch((e: unknown) => fail(`flightdeck: could not listen on the bridge gateway ${gw}: ${String(e)}`));
      relays.push(r.server);
      rewrites.set(key, `host.docker.internal:${r.port}`);
    }
    const u = new URL(url);
    return url.replace(`${u.protocol}//${u.host}`, `${u.protocol}//${rewrites.get(key)!}`);
  };

  const plan = containerArgs(args, (p) => readFileSync(p, 'utf8'));
  const extraFiles: Array<{ path: string; content: string }> = [];
  // What must never reach the console (kept in the engine's log): the model key and the hook's token.
  const secrets: string[] = [];
  const settings = plan.settings;
  if (settings) {
    const hooks = (settings.content.hooks as { PreToolUse?: Array<{ hooks?: Array<{ url?: string }> }> } | undefined)?.PreToolUse ?? [];
    for (const h of hooks) {
      const list = (h.hooks ?? []) as Array<Record<string, unknown>>;
      for (let i = 0; i < list.length; i++) {
        const hook = list[i]!;
        if (typeof hook.url !== 'string') continue;
        const target = new URL(hook.url);
        // The hook judges host paths: its relay maps the container's (any network mode).
        const gw = input.network === 'bridge' ? await gatewayIp() : '127.0.0.1';
        const r = await hookRelay(gw, target, input.mount, input.worktree ?? input.mount).catch((e: unknown) => fail(`flightdeck: could not start the approval relay: ${String(e)}`));
        relays.push(r.server);
        // Claude Code sends HTTP hooks to loopback or public addresses only (a private gateway is
        // "blocked", and a blocked hook lets the tool run): inside, the hook is a bash command that
        // posts to the relay and fails closed (exit 2 blocks the tool) on any error.
        const auth = (hook.headers as Record<string, string> | undefined)?.Authorization ?? '';
        secrets.push(auth, auth.replace(/^Bearer\s+/i, ''));
        const script = hookScript(gw, r.port, `${target.pathname}${target.search}`, auth);
        const scriptPath = `${settingsDir(settings.path)}/approval-hook.sh`;
        extraFiles.push({ path: scriptPath, content: script });
        list[i] = { type: 'command', command: `bash '${scriptPath}'`, ...(typeof hook.timeout === 'number' ? { timeout: hook.timeout } : {}) };
      }
    }
  }
  const keyFile = keyFileOf(settings?.content.apiKeyHelper);
  let key: string | null = null;
  if (keyFile) {
    try {
      key = readFileSync(keyFile, 'utf8').trim();
      secrets.push(key);
    } catch {
      // Unreadable here means the CLI cannot read it either: the run fails on its own, with nothing to redact.
    }
  }
  const env = containerEnvFor(process.env, input.home);
  // The key stays on the host: the CLI inside gets the relay as its endpoint and a token as its key.
  const token = newRelayToken();
  secrets.push(token);
  if (key !== null && input.network !== 'none') {
    const listen = input.network === 'bridge' ? await gatewayIp() : '127.0.0.1';
    const r = await startModelRelay({ host: listen, upstream: env.ANTHROPIC_BASE_URL || 'https://api.anthropic.com', key, token }).catch((e: unknown) => fail(`flightdeck: could not start the model relay on ${listen}: ${String(e)}`));
    relays.push(r.server);
    env.ANTHROPIC_BASE_URL = `http://${input.network === 'bridge' ? 'host.docker.internal' : '127.0.0.1'}:${r.port}`;
  } else if (env.ANTHROPIC_BASE_URL) {
    env.ANTHROPIC_BASE_URL = await reach(env.ANTHROPIC_BASE_URL);
  }

  // The run's files, at the same paths inside, readable only by the container user; the key file holds the token, never the key.
  const [uid, gid] = input.user.split(':').map((n) => Number(n) || 0) as [number, number];
  const files = [...plan.files(settings ? JSON.stringify(settings.content) : null).map((f) => (f.path === keyFile ? { path: f.path, content: token } : f)), ...extraFiles];
  const tar = Buffer.from(tarFiles(files.map((f) => ({ name: f.path.replace(/^\//, ''), content: f.content, mode: 0o600, uid, gid }))));
  const dirs = [...new Set(files.map((f) => f.path.slice(0, f.path.lastIndexOf('/'))))];
  const mk = await container.exec({ Cmd: ['mkdir', '-p', ...dirs], User: input.user }).catch((e: unknown) => fail(engineError(e, label).message));
  await new Promise<void>((resolve) => void mk.start({ hijack: true, stdin: false }).then((s) => (s.on('end', resolve), s.on('close', resolve), s.resume())));
  await container.putArchive(tar, { path: '/' }).catch((e: unknown) => fail(engineError(e, label).message));

  const pidFile = `/tmp/.flightdeck-claude-${process.pid}-${Date.now()}`;
  const prelude = 'echo $$ > "$1"; shift; mkdir -p "$HOME" 2>/dev/null; exec "$@"';
  const exec = await container
    .exec({ Cmd: ['sh', '-c', prelude, 'flightdeck-claude', pidFile, 'claude', ...plan.args], Env: Object.entries(env).map(([k, v]) => `${k}=${v}`), WorkingDir: input.workdir, User: input.user, AttachStdin: true, AttachStdout: true, AttachStderr: true, Tty: false })
    .catch((e: unknown) => fail(engineError(e, label).message));
  const stream = (await exec.start({ hijack: true, stdin: true }).catch((e: unknown) => fail(engineError(e, label).message))) as NodeJS.ReadWriteStream & { end(): void };
  const out = new PassThrough();
  const err = new PassThrough();
  out.pipe(process.stdout);
  err.pipe(process.stderr);
  docker.modem.demuxStream(stream, out, err);
  // The console is a view: it never holds up or fails the run (its writer queues and drops).
  const ins = await container.inspect().catch(() => null);
  const con = ins && hasConsole(ins) ? containerConsole(container) : null;
  if (con) createInterface({ input: out, crlfDelay: Infinity }).on('line', (line) => con.write(redactSecrets(claudeConsoleText(line, secrets), secrets)));
  // The prompt: stdin to the exec, then end-of-input (half-close) so the CLI starts.
  process.stdin.on('data', (b: Buffer) => stream.write(b));
  process.stdin.on('end', () => stream.end());

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const script = `p=$(cat "$1" 2>/dev/null) || exit 0; kill -TERM -"$p" 2>/dev/null; i=0; while kill -0 "$p" 2>/dev/null && [ $i -lt ${KILL_GRACE_S * 10} ]; do sleep 0.1; i=$((i+1)); done; kill -KILL -"$p" 2>/dev/null; exit 0`;
    void container
      .exec({ Cmd: ['sh', '-c', script, 'flightdeck-kill', pidFile] })
      .then((x) => x.start({ hijack: true, stdin: false }))
      .then((s) => s.resume())
      // The engine went away: nothing left to stop there.
      .catch(() => undefined);
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
  process.on('SIGHUP', stop);

  await new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  const r = await exec.inspect().catch(() => ({ ExitCode: 1 }));
  const rm = await container.exec({ Cmd: ['rm', '-rf', pidFile, ...files.map((f) => f.path)] }).catch(() => null);
  // Cleanup is best effort: the files are 0600 in the container's /tmp and go with the container.
  if (rm) await rm.start({ hijack: true, stdin: false }).then((s) => new Promise((resolve) => (s.on('end', resolve), s.on('close', resolve), s.resume()))).catch(() => undefined);
  for (const s of relays) s.close();
  await con?.close();
  out.end();
  err.end();
  process.exitCode = typeof r.ExitCode === 'number' ? r.ExitCode : 1;
  // Relay connections the CLI left open must not keep this process alive.
  setTimeout(() => process.exit(), 50).unref();
}

void main();
