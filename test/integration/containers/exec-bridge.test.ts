/**
 * The exec bridge (container shells and the agent console in the terminal grid) against an
 * engine that accepts connections and never answers: it says so and exits instead of leaving the
 * terminal blank. No engine needed.
 */
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(__dirname, '../../..');
const TSX = resolve(ROOT, 'node_modules/.bin/tsx');

const cleanups: Array<() => unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A TCP "engine" that takes each request and never answers it. */
async function silentEngine(): Promise<{ port: number; requests: () => string }> {
  const sockets: Socket[] = [];
  let seen = '';
  const server: Server = createServer((s) => {
    sockets.push(s);
    s.setEncoding('utf8').on('data', (d: string) => (seen += d));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  cleanups.push(() => {
    sockets.forEach((s) => s.destroy());
    return new Promise((r) => server.close(r));
  });
  return { port: (server.address() as { port: number }).port, requests: () => seen };
}

function bridge(input: object): Promise<{ code: number | null; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(TSX, ['src-main/containers/exec-bridge/main.ts'], { cwd: ROOT, env: { ...process.env, FLIGHTDECK_BRIDGE: JSON.stringify(input) }, stdio: ['ignore', 'ignore', 'pipe'] });
    cleanups.push(() => child.kill('SIGKILL'));
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (c: string) => (stderr += c));
    child.on('close', (code) => done({ code, stderr }));
  });
}

describe('exec bridge', () => {
  it('gives up opening the agent console or a shell on an engine that does not answer, and says why', async () => {
    const engine = await silentEngine();
    const spec = { name: 'stuck', source: 'user', host: `tcp://127.0.0.1:${engine.port}`, tls: null };

    const console_ = await bridge({ engine: spec, container: 'c0ffee', attach: true, deadlineMs: 1_000 });
    expect(console_.code).toBe(125);
    expect(console_.stderr).toContain('The container engine "stuck" (tcp://127.0.0.1:');
    expect(console_.stderr).toContain('did not open the console within 1 s');
    expect(engine.requests()).toMatch(/POST \/v[\d.]+\/containers\/c0ffee\/attach\?/);

    const shell = await bridge({ engine: spec, container: 'c0ffee', user: '1000', workdir: '/app', cmd: ['sh'], deadlineMs: 1_000 });
    expect(shell.code).toBe(125);
    expect(shell.stderr).toContain('did not create the shell within 1 s');
    expect(engine.requests()).toMatch(/POST \/v[\d.]+\/containers\/c0ffee\/exec /);
  }, 60_000);
});
