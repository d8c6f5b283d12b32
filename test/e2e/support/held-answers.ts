import type { Page } from '@playwright/test';

/**
 * Between the page and the host: the host's answers to the named invokes are held back (a host
 * slow to answer, made deterministic) until `release()`. Holding starts when `arm()` is called,
 * or at once with `{ armed: true }`; it covers the connection that asks after that (a reload's
 * included) and ends at the release, after which everything passes.
 */
export async function holdAnswers(page: Page, channels: readonly string[], o: { armed?: boolean } = {}) {
  let armed = o.armed ?? false;
  let holding = true;
  const held: string[] = [];
  let sendHeld: (() => void) | null = null;
  await page.routeWebSocket(/\/ws$/, (ws) => {
    const server = ws.connectToServer();
    // Request ids are per connection: the held answers go back on the connection that asked.
    const ids = new Set<number>();
    if (holding) sendHeld = () => held.splice(0).forEach((m) => ws.send(m));
    ws.onMessage((m) => {
      if (typeof m === 'string' && armed && holding) {
        const f = JSON.parse(m) as { type: string; id?: number; channel?: string };
        if (f.type === 'invoke' && f.channel !== undefined && channels.includes(f.channel)) ids.add(f.id!);
      }
      server.send(m);
    });
    server.onMessage((m) => {
      if (typeof m === 'string' && holding) {
        const f = JSON.parse(m) as { type: string; id?: number };
        if (f.type === 'result' && ids.has(f.id!)) {
          held.push(m);
          return;
        }
      }
      ws.send(m);
    });
  });
  return {
    arm: () => void (armed = true),
    held: () => held.length,
    release: () => {
      holding = false;
      sendHeld?.();
    },
  };
}
