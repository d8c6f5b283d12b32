import { test, expect, type WebSocket as PwWebSocket } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { TerminalsPage } from './poms/terminals';
import { makeRepo } from '../support/temp';

/**
 * Browser mode in Chromium: a terminal's output reaches the page over the pty host's direct
 * socket (/ws-terminal, under the page's own CSP), not over the main socket, and a reload gets
 * the same text back (scrollback from the main process, then direct again).
 */
let host: RunningHost;
test.beforeAll(async () => {
  host = await startHost();
});
test.afterAll(async () => {
  await host?.stop();
});

/** Binary (terminal output) frames received per socket path ('opened:<path>' counts the sockets). */
function countBinaryFrames(page: import('@playwright/test').Page): Map<string, number> {
  const counts = new Map<string, number>();
  page.on('websocket', (ws: PwWebSocket) => {
    const path = new URL(ws.url()).pathname;
    counts.set(`opened:${path}`, (counts.get(`opened:${path}`) ?? 0) + 1);
    ws.on('framereceived', (f) => {
      if (typeof f.payload !== 'string') counts.set(path, (counts.get(path) ?? 0) + 1);
    });
  });
  return counts;
}

test('terminal output arrives on the direct socket, and again after a reload', async ({ page }) => {
  const repo = makeRepo('fd-e2e-direct-');
  const frames = countBinaryFrames(page);
  const board = new BoardPage(page);
  const terms = new TerminalsPage(page);
  await board.open(host.url);
  await terms.useCompatibleRendering();
  const name = await board.addProject(repo.path);

  await terms.openFromCard(name);
  const pane = terms.pane(0);
  await expect(pane).toHaveAttribute('data-status', 'running');
  // The pty host started with this terminal and the page was offered its direct socket.
  await expect.poll(() => frames.get('opened:/ws-terminal') ?? 0).toBe(1);
  await terms.type(pane, 'echo ready-$((6*7))');
  await expect(terms.screen(pane)).toContainText('ready-42');
  const mainBefore = frames.get('/ws') ?? 0;
  await terms.type(pane, 'for i in $(seq 1 300); do echo direct-line-$i; done');
  await expect(terms.screen(pane)).toContainText('direct-line-300');
  expect(frames.get('/ws-terminal') ?? 0).toBeGreaterThan(0);
  expect(frames.get('/ws') ?? 0).toBe(mainBefore);

  await page.reload();
  await expect(page.getByTestId('statusbar')).toContainText('Connected');
  const again = terms.pane(0);
  await expect(terms.screen(again)).toContainText('direct-line-300');
  const before = frames.get('/ws-terminal') ?? 0;
  await terms.type(again, 'echo after-$((40+2))');
  await expect(terms.screen(again)).toContainText('after-42');
  await expect.poll(() => frames.get('/ws-terminal') ?? 0).toBeGreaterThan(before);
  repo.cleanup();
});
