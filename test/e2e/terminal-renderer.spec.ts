import { test, expect } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { TerminalsPage } from './poms/terminals';
import { makeRepo } from '../support/temp';

/** The part of a page's canvas the test looks at (this config compiles without the DOM's types). */
interface Canvas {
  parentElement: unknown;
  getContext(type: string, options?: unknown): unknown;
}

let host: RunningHost;
test.beforeAll(async () => {
  host = await startHost();
});
test.afterAll(async () => {
  await host?.stop();
});

test('every visible terminal pane draws with WebGL and gives its context back when hidden', async ({ page }) => {
  // Every WebGL canvas the page makes; a renderer that is disposed takes its canvas out of the page.
  await page.addInitScript(() => {
    const g = globalThis as unknown as { __glCanvases: Canvas[]; HTMLCanvasElement: { prototype: Canvas } };
    const made: Canvas[] = [];
    g.__glCanvases = made;
    const proto = g.HTMLCanvasElement.prototype;
    const original = proto.getContext;
    proto.getContext = function (this: Canvas, type: string, options?: unknown) {
      const ctx = original.call(this, type, options);
      if (ctx && (type === 'webgl2' || type === 'webgl')) made.push(this);
      return ctx;
    };
  });
  const liveContexts = () => page.evaluate(() => (globalThis as unknown as { __glCanvases: Canvas[] }).__glCanvases.filter((c) => c.parentElement !== null).length);

  const repo = makeRepo('fd-e2e-gl-');
  const name = repo.path.split('/').pop()!;
  const board = new BoardPage(page);
  const terms = new TerminalsPage(page);
  await board.open(host.url);
  await board.startAdding(repo.path);
  await expect(board.pathHelp).toContainText('Looks good');
  await board.submit();
  await expect(board.card(name)).toBeVisible();

  await terms.openFromCard(name);
  await expect(terms.pane(0)).toHaveAttribute('data-status', 'running');
  // This Chromium has WebGL (SwiftShader): the pane uses it.
  await expect(terms.pane(0).getByTestId('xterm-host')).toHaveAttribute('data-renderer', 'webgl');

  await terms.setLayout('Two side by side');
  await terms.newShellIn(name);
  await expect(terms.panes).toHaveCount(2);
  await expect(terms.pane(1)).toHaveAttribute('data-status', 'running');
  // Both visible panes draw with WebGL, not only the focused one: one context each.
  await expect(terms.pane(0).getByTestId('xterm-host')).toHaveAttribute('data-renderer', 'webgl');
  await expect(terms.pane(1).getByTestId('xterm-host')).toHaveAttribute('data-renderer', 'webgl');
  await expect.poll(liveContexts).toBe(2);

  // One pane: the hidden terminal stays live in the cache, but without its WebGL context.
  await terms.setLayout('One pane');
  await expect(terms.panes).toHaveCount(1);
  await expect.poll(liveContexts).toBe(1);

  // Shown again: it gets a context back (and still only one per visible pane).
  await terms.setLayout('Two side by side');
  await expect(terms.panes).toHaveCount(2);
  await expect.poll(liveContexts).toBe(2);
  await expect(terms.pane(1).getByTestId('xterm-host')).toHaveAttribute('data-renderer', 'webgl');
});
