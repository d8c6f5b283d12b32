import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { ServerResponse } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json',
};

/** Serves the built renderer; unknown paths fall back to index.html (client-side views). */
export async function serveStatic(root: string, urlPath: string, res: ServerResponse): Promise<void> {
  let rel: string;
  try {
    rel = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    res.writeHead(400).end('bad path');
    return;
  }
  const target = normalize(join(root, rel));
  if (target !== root && !target.startsWith(root + sep)) {
    res.writeHead(404).end('not found');
    return;
  }
  let file = target;
  try {
    const s = await stat(file);
    if (s.isDirectory()) file = join(file, 'index.html');
  } catch {
    file = join(root, 'index.html');
  }
  try {
    const s = await stat(file);
    // The build's hashed files (assets/) are immutable; the page, and any file under its own
    // name, must always be revalidated: a new version changes it in place.
    const hashed = file.startsWith(join(root, 'assets') + sep);
    res.writeHead(200, {
      'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
      'Content-Length': s.size,
      'Cache-Control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    createReadStream(file).pipe(res);
  } catch {
    res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The Flightdeck UI has not been built yet. Run "npm run build" and reload.');
  }
}
