/**
 * The page's one inline script (browser mode's early socket, src-renderer/index.html) runs only
 * if every Content-Security-Policy the page gets allows it by its hash: the page's own meta tag,
 * browser mode's header, the desktop window's header. Change the script and forget a hash, and
 * the socket quietly opens late again (the transport opens its own): this test says so instead.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { EARLY_SOCKET_SCRIPT_SHA256, SCRIPT_SRC } from '../../../src-main/platform/csp';
import { appRoot } from '../../../src-main/platform/paths';

const html = readFileSync(join(appRoot(), 'src-renderer', 'index.html'), 'utf8');
/** Scripts without a src, whatever their other attributes: the inline ones. */
const inline = [...html.matchAll(/<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
const metaCsp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1] ?? '';
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('base64');

describe('the early socket script and the CSPs', () => {
  it('is the only inline script, and its hash is the one the hosts allow', () => {
    expect(inline).toHaveLength(1);
    expect(sha256(inline[0]!)).toBe(EARLY_SOCKET_SCRIPT_SHA256);
    expect(SCRIPT_SRC).toBe(`script-src 'self' 'sha256-${EARLY_SOCKET_SCRIPT_SHA256}'`);
  });

  it('reads the theme where the app keeps it', () => {
    // (The renderer's module needs the DOM's types, which this file is compiled without: its source is read.)
    const key = /const THEME_KEY = '([^']+)'/.exec(readFileSync(join(appRoot(), 'src-renderer', 'src', 'lib', 'use-theme.ts'), 'utf8'))?.[1];
    expect(key).toBeTruthy();
    expect(inline[0]).toContain(`localStorage.getItem('${key}')`);
  });

  it("the page's own policy allows it by that hash (and so nothing else inline)", () => {
    const scriptSrc = metaCsp.split(';').map((d) => d.trim()).find((d) => d.startsWith('script-src'));
    expect(scriptSrc).toBe(SCRIPT_SRC);
  });
  // Browser mode's header and the desktop window's: test/integration/host/browser-host.test.ts and test/unit/electron/main.test.ts.
});
