import { test, expect, type WebSocket as PwWebSocket } from '@playwright/test';
import { startHost, type RunningHost } from './support/host';
import { BoardPage } from './poms/board';
import { TerminalsPage } from './poms/terminals';
import { makeRepo } from '../support/temp';

/**
 * Browser mode in Chromium: a terminal's output reaches the page over the pty host's direct
 * socket (/ws-terminal, under the page's own CSP), not over the main socket, and so do the keys
 * typed into it (the other way); a reload gets the same text back (scrollback from the main
 * process, then direct again).
 */
let host: RunningHost;
test.beforeAll(async () => {
  host = await startHost();
});
test.afterAll(async () => {
  await host?.stop();
});

/**
 * Binary (terminal output) frames received per socket path ('opened:<path>' counts the sockets,
 * 'sent:<path>' the binary frames the page sent: keystrokes), and `terminals.write` requests sent.
 */
function countBinaryFrames(page: import('@playwright/test').Page): Map<string, number> {
  const counts = new Map<string, number>();
  const add = (key: string) => counts.set(key, (counts.get(key) ?? 0) + 1);
  page.on('websocket', (ws: PwWebSocket) => {
    const path = new URL(ws.url()).pathname;
    add(`opened:${path}`);
    ws.on('framereceived', (f) => {
      if (typeof f.payload !== 'string') add(path);
    });
    ws.on('framesent', (f) => {
      if (typeof f.payload !== 'string') add(`sent:${path}`);
      else if (f.payload.includes('"terminals.write"')) add('terminals.write');
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
  const writesBefore = frames.get('terminals.write') ?? 0;
  const keysBefore = frames.get('sent:/ws-terminal') ?? 0;
  const command = 'for i in $(seq 1 300); do echo direct-line-$i; done';
  await terms.type(pane, command);
  await expect(terms.screen(pane)).toContainText('direct-line-300');
  expect(frames.get('/ws-terminal') ?? 0).toBeGreaterThan(0);
  expect(frames.get('/ws') ?? 0).toBe(mainBefore);
  // The keys went to the pty host on the direct socket too, none as a request to the main process.
  expect((frames.get('sent:/ws-terminal') ?? 0) - keysBefore).toBeGreaterThanOrEqual(command.length);
  expect(frames.get('terminals.write') ?? 0).toBe(writesBefore);

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
