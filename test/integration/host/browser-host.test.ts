import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import type { AppServices } from '../../../src-main/app/services';
import { startBrowserHost, type BrowserHost } from '../../../src-main/host/browser-host';
import { startTestApp } from '../../support/app';
import { tempDir } from '../../support/temp';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SCRIPT_SRC } from '../../../src-main/platform/csp';

let app: AppServices;
let cleanup: () => void;
let host: BrowserHost;
let base: string;
const TOKEN = 'test-token-0123456789';

beforeAll(async () => {
  ({ app, cleanup } = await startTestApp());
  const renderer = tempDir('fd-renderer-');
  mkdirSync(join(renderer.path, 'assets'));
  writeFileSync(join(renderer.path, 'index.html'), '<!doctype html><title>Flightdeck</title>');
  writeFileSync(join(renderer.path, 'assets', 'app.js'), 'console.log(1)');
  host = await startBrowserHost(app, { port: 0, token: TOKEN, rendererDir: renderer.path });
  base = `http://127.0.0.1:${host.port}`;
});
afterAll(async () => {
  await host.close();
  cleanup();
});

function get(path: string, headers: Record<string, string> = {}): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers }, (res) => {
      let body = '';
      res.on('data', (d: Buffer) => (body += d.toString()));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

function connect(headers: Record<string, string>): Promise<{ ws?: WebSocket; status?: number }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`ws://127.0.0.1:${host.port}/ws`, { headers });
    ws.on('open', () => resolve({ ws }));
    ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode }));
    ws.on('error', () => resolve({ status: -1 }));
  });
}

function call(ws: WebSocket, id: number, channel: string, input: unknown): Promise<unknown> {
  return new Promise((resolve) => {
    const onMsg = (data: WebSocket.RawData) => {
      const frame = JSON.parse(data.toString()) as { type: string; id: number; result: unknown };
      if (frame.type === 'result' && frame.id === id) {
        ws.off('message', onMsg);
        resolve(frame.result);
      }
    };
    ws.on('message', onMsg);
    ws.send(JSON.stringify({ type: 'invoke', id, channel, input }));
  });
}

const cookieName = () => `flightdeck_token_${host.port}`;
const cookie = () => `${cookieName()}=${TOKEN}`;

describe('browser-mode HTTP', () => {
  it('answers health without a token', async () => {
    const r = await get('/healthz');
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ ok: true, version: expect.any(String) });
  });

  it('refuses pages without a token (401) or with a wrong one', async () => {
    expect((await get('/')).status).toBe(401);
    expect((await get('/?token=wrong')).status).toBe(401);
    expect((await get('/assets/app.js')).status).toBe(401);
    expect((await get('/', { Cookie: `${cookieName()}=nope` })).status).toBe(401);
  });

  it('trades a right token for an HttpOnly SameSite=Strict cookie and strips it from the address', async () => {
    const r = await get(`/?token=${TOKEN}`);
    expect(r.status).toBe(302);
    expect(r.headers.location).toBe('/');
    const setCookie = String(r.headers['set-cookie']);
    expect(setCookie).toContain(`${cookieName()}=${TOKEN}`);
    expect(setCookie).toContain('HttpOnly');
    expect(setCookie).toContain('SameSite=Strict');
  });

  it('serves the UI with the cookie (200) and a CSP', async () => {
    const r = await get('/', { Cookie: cookie() });
    expect(r.status).toBe(200);
    expect(r.body).toContain('<title>Flightdeck</title>');
    expect(String(r.headers['content-security-policy'])).toContain("default-src 'self'");
    // Our own scripts and the page's one inline script, by its hash (test/unit/host/early-socket-csp.test.ts).
    expect(String(r.headers['content-security-policy'])).toContain(`${SCRIPT_SRC};`);
    // The page is revalidated on every load; the build's hashed files are kept.
    expect(r.headers['cache-control']).toBe('no-cache');
    const asset = await get('/assets/app.js', { Cookie: cookie() });
    expect(asset.status).toBe(200);
    expect(asset.body).toBe('console.log(1)');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('refuses a foreign Origin (403) even with the token', async () => {
    expect((await get('/', { Cookie: cookie(), Origin: 'http://evil.example' })).status).toBe(403);
    expect((await get('/', { Cookie: cookie(), Origin: base })).status).toBe(200);
  });

  it('refuses a foreign Host header (DNS rebinding) with 403', async () => {
    expect((await get('/', { Cookie: cookie(), Host: 'evil.example:80' })).status).toBe(403);
  });

  it('does not serve files outside the UI folder', async () => {
    const r = await get('/../../../../etc/passwd', { Cookie: cookie() });
    expect(r.body).not.toContain('root:');
  });
});

describe('start-up', () => {
  it('reads the projects\' git state in the background and publishes it', async () => {
    const { makeRepo } = await import('../../support/temp');
    const repo = makeRepo();
    const p = await app.projects.add(repo.path);
    const fresh = await startTestApp(app.dataDir);
    try {
      expect(fresh.app.projects.list()[0]!.git).toBeNull();
      const published = new Promise<unknown>((resolve) => fresh.app.hub.subscribe((e) => e.topic === 'projects.changed' && resolve(e.payload)));
      const second = await startBrowserHost(fresh.app, { port: 0, token: TOKEN });
      expect(await published).toMatchObject({ projects: [{ id: p.id, git: { branch: 'main' } }] });
      await second.close();
    } finally {
      fresh.app.dispose();
      app.projects.remove(p.id);
      repo.cleanup();
    }
  });
});

describe('hostile input before authentication', () => {
  it('a malformed cookie or request target is refused, never crashes the host', async () => {
    expect((await connect({ Cookie: `${cookieName()}=%E0%A4%A`, Origin: base })).status).toBe(401);
    expect((await get('/', { Cookie: `${cookieName()}=%E0%A4%A` })).status).toBe(401);
    // Still serving afterwards.
    expect((await get('/healthz')).status).toBe(200);
  });

  it('a cookie of another instance (another port) is not a token here', async () => {
    expect((await get('/', { Cookie: `flightdeck_token_1=${TOKEN}` })).status).toBe(401);
  });

  it('refuses to start with an empty or short fixed token', async () => {
    await expect(startBrowserHost(app, { port: 0, token: '' })).rejects.toThrow(/at least 16/);
    await expect(startBrowserHost(app, { port: 0, token: 'short' })).rejects.toThrow(/at least 16/);
  });
});

describe('browser-mode WebSocket', () => {
  it('needs the token (401) and the same Origin (403)', async () => {
    expect((await connect({ Origin: base })).status).toBe(401);
    expect((await connect({ Cookie: cookie(), Origin: 'http://evil.example' })).status).toBe(403);
    expect((await connect({ Cookie: cookie() })).status).toBe(403);
  });

  it('carries the contract: results, typed errors and events; cleans up on close', async () => {
    const listenersBefore = app.hub.listenerCount;
    const { ws } = await connect({ Cookie: cookie(), Origin: base });
    expect(ws).toBeDefined();
    const sock = ws!;
    expect(host.connections).toBe(1);
    expect(await call(sock, 1, 'projects.list', {})).toEqual({ ok: true, value: [] });
    expect(await call(sock, 2, 'nope.nothing', {})).toMatchObject({ ok: false, error: { code: 'unknown_channel' } });
    expect(await call(sock, 3, 'projects.add', { path: 12 })).toMatchObject({ ok: false, error: { code: 'invalid_input' } });
    expect(await call(sock, 4, 'projects.add', { path: '/definitely/not/here' })).toMatchObject({ ok: false, error: { code: 'path_not_found' } });

    const event = new Promise<unknown>((resolve) => {
      sock.on('message', (d) => {
        const f = JSON.parse(d.toString()) as { type: string; topic: string; payload: unknown };
        if (f.type === 'event' && f.topic === 'settings.changed') resolve(f.payload);
      });
    });
    sock.send(JSON.stringify({ type: 'subscribe', topic: 'settings.changed' }));
    sock.send('this is not json');
    expect(await call(sock, 5, 'settings.update', { theme: 'dark' })).toMatchObject({ ok: true, value: { theme: 'dark' } });
    expect(await event).toMatchObject({ theme: 'dark' });
    expect(app.hub.listenerCount).toBe(listenersBefore + 1);

    await new Promise<void>((resolve) => {
      sock.on('close', () => resolve());
      sock.close();
    });
    await expect.poll(() => app.hub.listenerCount).toBe(listenersBefore);
  });
});
