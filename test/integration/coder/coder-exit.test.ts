import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { groupAlive } from '../../../src-main/coder/process-group';
import { coderHarness, type CoderHarness } from './support';

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

describe('app exit', () => {
  it('leaves no claude behind when the process running it exits mid-run', async () => {
    h = await coderHarness([{ fault: { kind: 'stall', ms: 30_000 }, blocks: [{ type: 'text', text: 'late' }] }]);
    const tsx = resolve(__dirname, '../../../node_modules/.bin/tsx');
    const child = spawn(tsx, [join(__dirname, 'exit-child.ts'), h.server.url, h.repo, h.home], { stdio: ['pipe', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    // Quit once the run is live: the CLI is waiting on the (stalled) model request.
    while (h.server.mainRequests().length === 0) await new Promise((r) => setTimeout(r, 50));
    child.stdin.write('quit\n');
    const code = await new Promise<number | null>((r) => child.on('close', r));
    expect(code).toBe(0);
    const pid = Number(out.trim());
    expect(pid).toBeGreaterThan(0);
    // The exit handler SIGKILLed the group synchronously; the kernel reaps it at once.
    await new Promise((r) => setTimeout(r, 200));
    expect(groupAlive(pid)).toBe(false);
  });
});
