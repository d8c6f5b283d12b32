/**
 * A shell in a session's container, opened in the terminal grid: typed input runs inside the
 * container (its hostname, the owner's uid, the workspace path), a resize reaches the container's
 * TTY, output arrives through the terminal service, and the exit code comes back.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../src-main/app/services';
import { ensureTestImage } from '../../support/container-image';
import { startTestApp } from '../../support/app';
import { waitFor } from '../../support/processes';
import { makeRepo } from '../../support/temp';

const AGENT_UID = 1000;
let image: string;
let app: AppServices;
let cleanup: () => void;
const repo = makeRepo('fd-ctr-term-');

beforeAll(async () => {
  image = ensureTestImage();
  execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, repo.path]);
  const started = await startTestApp();
  app = started.app;
  cleanup = started.cleanup;
}, 120_000);

afterAll(async () => {
  await app.containers.shutdown();
  app.dispose();
  cleanup();
  repo.cleanup();
});

describe('container terminals', () => {
  it('runs a shell in the container through the terminal grid', async () => {
    const session = app.agents.createSession({ root: repo.path });
    await app.containers.setPlacement(session.id, { image, limits: { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 } });
    const t = await app.containers.openTerminal(session.id, { cols: 100, rows: 30 });
    expect(t.owner.sessionId).toBe(session.id);
    let out = '';
    app.terminals.onOutput(t.id, (d) => (out += d));
    const placed = app.containers.forSession(session.id)!;
    app.terminals.write(t.id, 'echo "[$(hostname)|$(id -u)|$(pwd)|$(stty size)]"; echo typed > typed.txt\r');
    await waitFor(() => out.includes(`[${placed.id.slice(0, 12)}|${AGENT_UID}|/app/volumes/workspace|30 100]`), 'the shell output', 60_000, 50);
    app.terminals.resize(t.id, 120, 40);
    await new Promise((r) => setTimeout(r, 300));
    app.terminals.write(t.id, 'echo "size=$(stty size)"; exit 7\r');
    const ended = await app.terminals.whenExited(t.id);
    expect(out).toContain('size=40 120');
    // Line ends arrive once, as the container's TTY wrote them (not \r\r\n through a second ONLCR).
    expect(out).toContain('size=40 120\r\n');
    expect(out).not.toContain('\r\r\n');
    expect(ended.exitCode).toBe(7);
    expect(readFileSync(join(repo.path, 'typed.txt'), 'utf8')).toBe('typed\n');
    expect(statSync(join(repo.path, 'typed.txt')).uid).toBe(AGENT_UID);
  }, 90_000);
});
