/**
 * A built-in-loop session placed in a container, against the scripted model server: the bash
 * tool runs inside the session's container (its hostname, the owner's uid), writes into the
 * bind-mounted worktree, and the approval it needs is answered on the host like any other.
 */
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { harness, nextApproval, toolThenText, type Harness } from '../agents/harness';
import { ensureTestImage } from '../../support/container-image';
import { makeRepo } from '../../support/temp';

const AGENT_UID = 1000;
let image: string;
let h: Harness | undefined;

beforeAll(() => {
  image = ensureTestImage();
}, 120_000);

afterEach(async () => {
  await h?.app.containers.shutdown();
  await h?.cleanup();
  h = undefined;
});

describe('placement "container" for a built-in-loop session', () => {
  it('runs the bash tool in the container, writes into the worktree, and asks on the host first', async () => {
    const repo = makeRepo('fd-ctr-agent-');
    execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, repo.path]);
    h = await harness(toolThenText('bash', { command: 'hostname; id -u; echo made-in-container > made.txt' }, 'Wrote it.'), { repo: repo.path });
    const id = h.session();
    await h.app.containers.setPlacement(id, { image, limits: { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 } });
    const running = h.app.agents.run(id, 'make a file');
    const a = await nextApproval(h, id);
    expect(a.tool).toBe('bash');
    // Nothing ran before the answer.
    expect(() => statSync(join(repo.path, 'made.txt'))).toThrow();
    h.app.agents.gate.answer(a.id, 'approve_once');
    expect((await running).outcome).toBe('completed');
    const placed = h.app.containers.forSession(id)!;
    const result = h.events(id, 'tool.result')[0]!;
    expect(result.content).toContain(`${placed.id.slice(0, 12)}\n${AGENT_UID}\n`);
    expect(readFileSync(join(repo.path, 'made.txt'), 'utf8')).toBe('made-in-container\n');
    expect(statSync(join(repo.path, 'made.txt')).uid).toBe(AGENT_UID);
    // The provider key never reached the container's configuration.
    const ins = await new Docker({ socketPath: '/var/run/docker.sock' }).getContainer(placed.id).inspect();
    expect(JSON.stringify(ins)).not.toContain('sk-test-');
  }, 120_000);

  it('refuses the command with the reason when the container cannot start (never falls back to the host)', async () => {
    h = await harness(toolThenText('bash', { command: 'echo ran > ran.txt' }, 'ok'));
    const id = h.session({ mode: 'yolo' });
    await h.app.containers.setPlacement(id, { image: 'flightdeck-no-such-image:0' });
    expect((await h.app.agents.run(id, 'try')).outcome).toBe('completed');
    const result = h.events(id, 'tool.result')[0]!;
    expect(result.isError).toBe(true);
    expect(result.content).toMatch(/container could not start.*not on/s);
    expect(() => statSync(join(h!.repo, 'ran.txt'))).toThrow();
  }, 60_000);
});

describe('Claude Code and a session placed in a container', () => {
  it('fails the turn with the reason when the container cannot start, instead of running the CLI on the host', async () => {
    h = await harness([]);
    const id = h.session();
    h.app.coder.updateSession({ sessionId: id, executor: 'claude-code' });
    await h.app.containers.setPlacement(id, { image: 'flightdeck-no-such-image:0' });
    const r = await h.app.agents.run(id, 'do something');
    expect(r.outcome).toBe('failed');
    expect(r.message).toMatch(/container could not start.*not on/s);
    expect(h.events(id, 'error')[0]).toMatchObject({ code: 'unavailable' });
    // Nothing was started: no container, no model request.
    expect(h.app.containers.forSession(id)).toBeNull();
    expect(h.server.mainRequests()).toHaveLength(0);
  }, 60_000);
});
