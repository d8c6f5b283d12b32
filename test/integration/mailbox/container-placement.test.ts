/**
 * The mailbox on the container placement: a `new` command with `placement: container` runs its
 * agent's commands in a Docker container with the workspace mounted (real engine, a locally
 * built test image, the scripted model server); a `continue` stays in the container.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import Docker from 'dockerode';
import type { MailboxChange } from '../../../src-main/mailbox/processor';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';
import { projectDefaultPlacement } from '../../../src-main/features/placement';
import { commandText, dropCommand, mailboxHarness, readReport, until, type MailboxHarness } from './support';

/** The test image runs commands as this user; the workspace must be theirs to write. */
const AGENT_UID = 1000;
const docker = new Docker({ socketPath: '/var/run/docker.sock' });
let image: string;
let h: MailboxHarness | undefined;

beforeAll(() => {
  image = ensureTestImage();
}, 180_000);

afterEach(async () => {
  await h?.app.containers.shutdown();
  await h?.cleanup();
  h = undefined;
});

describe('mailbox on the container placement', () => {
  it('runs the task’s commands in the session’s container, then continues there', async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'TASK-IN-CONTAINER' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'hostname > where.txt; id -u >> where.txt' } }] },
      { match: { userPattern: 'where.txt' }, blocks: [{ type: 'text', text: 'Done.\n```json\n{"summary":"wrote where.txt in the container","tags":["container"]}\n```' }] },
      { match: { userPattern: 'TASK-AGAIN' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'hostname > again.txt' } }] },
      { match: { userPattern: 'again.txt' }, blocks: [{ type: 'text', text: 'Again.' }] },
    ]);
    h.app.mailbox.updateSettings({ containerImage: image });
    const p = h.processor({ placements: h.app.mailbox.placements });
    const root = h.root;
    execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, p.workspace]);
    p.start();

    dropCommand(root, 'ctr.md', commandText({ id: 'task-ctr', task: 'TASK-IN-CONTAINER', extra: 'placement: container\ngpus: 0\n' }));
    await until(() => existsSync(join(root, 'commands/processed/ctr.md')), 'ctr.md processed', 150_000);
    const report = readReport(join(root, 'reports/pending/detailed-report-task-ctr.md'), true);
    expect(report.fm.status).toBe('SUCCESS');
    expect(report.text).toContain(`- 运行位置: container (${image})`);
    const sessionId = report.fm.session_id;
    const placed = h.app.containers.forSession(sessionId);
    expect(placed).not.toBeNull();
    expect(h.app.containers.placement(sessionId)).toMatchObject({ image, gpus: { kind: 'none' } });
    const [host, uid] = readFileSync(join(p.workspace, 'where.txt'), 'utf8').trim().split('\n');
    expect(placed!.id.startsWith(host!)).toBe(true);
    expect(uid).toBe(String(AGENT_UID));
    expect(statSync(join(p.workspace, 'where.txt')).uid).toBe(AGENT_UID);
    expect(report.text).toContain('| where.txt | 创建 |');

    // A continue without a placement stays in the session's container.
    dropCommand(root, 'again.md', commandText({ id: 'task-again', type: 'continue', session: sessionId, task: 'TASK-AGAIN' }));
    await until(() => existsSync(join(root, 'commands/processed/again.md')), 'again.md processed', 120_000);
    expect(readFileSync(join(p.workspace, 'again.txt'), 'utf8').trim()).toBe(host);
    // …and its report says where it ran.
    expect(readReport(join(root, 'reports/pending/detailed-report-task-again.md'), true).text).toContain(`- 运行位置: container (${image})`);
  }, 300_000);

  it('gives the container exactly the command file’s memory, CPUs, processes and network; a continue that changes them says so and gets a new container', async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'LIMITED-TASK' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'echo limited > limited.txt' } }] },
      { match: { userPattern: 'limited.txt' }, blocks: [{ type: 'text', text: 'Limited.' }] },
      { match: { userPattern: 'MORE-MEMORY' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'echo more > more.txt' } }] },
      { match: { userPattern: 'more.txt' }, blocks: [{ type: 'text', text: 'More.' }] },
    ]);
    // The mailbox's default image is not the one used: the file's `image` is.
    h.app.mailbox.updateSettings({ containerImage: 'flightdeck-no-such-image:never' });
    const p = h.processor({ placements: h.app.mailbox.placements });
    const root = h.root;
    execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, p.workspace]);
    p.start();

    const engine = h.app.containers.engine().spec.name;
    dropCommand(root, 'limited.md', commandText({ id: 'task-limited', task: 'LIMITED-TASK', extra: `placement: container\ncontainer_engine: ${engine}\nimage: ${image}\nmemory: 256m\ncpus: 0.5\npids: 200\nnetwork: none\n` }));
    await until(() => existsSync(join(root, 'commands/processed/limited.md')), 'limited.md processed', 150_000);
    const report = readReport(join(root, 'reports/pending/report-task-limited.md'), false);
    expect(report.fm.status).toBe('SUCCESS');
    expect(readFileSync(join(p.workspace, 'limited.txt'), 'utf8')).toBe('limited\n');
    const sessionId = report.fm.session_id;
    expect(h.app.containers.placement(sessionId)).toEqual({ engine, image, limits: { memoryBytes: 256 * 1024 ** 2, cpus: 0.5, pids: 200 }, network: 'none' });
    const first = h.app.containers.forSession(sessionId)!;
    const hc = (await docker.getContainer(first.id).inspect()).HostConfig;
    expect({ Memory: hc.Memory, NanoCpus: hc.NanoCpus, PidsLimit: hc.PidsLimit, NetworkMode: hc.NetworkMode }).toEqual({ Memory: 256 * 1024 ** 2, NanoCpus: 5e8, PidsLimit: 200, NetworkMode: 'none' });

    // A continue with other settings: the session's container is replaced, and the report says what changed.
    dropCommand(root, 'more.md', commandText({ id: 'task-more', type: 'continue', session: sessionId, task: 'MORE-MEMORY', extra: 'placement: container\nmemory: 512m\nnetwork: bridge\n' }));
    await until(() => existsSync(join(root, 'commands/processed/more.md')), 'more.md processed', 150_000);
    const more = readReport(join(root, 'reports/pending/report-task-more.md'), false);
    expect(more.fm.status).toBe('SUCCESS');
    expect(more.text).toContain("- This command changed the session's container settings (memory 256 MiB → 512 MiB, network none → bridge): its container was replaced for this task, with the workspace kept; later tasks of the session keep the new settings.");
    const second = h.app.containers.forSession(sessionId)!;
    expect(second.id).not.toBe(first.id);
    const hc2 = (await docker.getContainer(second.id).inspect()).HostConfig;
    expect({ Memory: hc2.Memory, NanoCpus: hc2.NanoCpus, PidsLimit: hc2.PidsLimit, NetworkMode: hc2.NetworkMode }).toEqual({ Memory: 512 * 1024 ** 2, NanoCpus: 5e8, PidsLimit: 200, NetworkMode: 'bridge' });
    await expect(docker.getContainer(first.id).inspect()).rejects.toThrow(/no such container/i);
  }, 300_000);

  it("a task that names no placement runs where its project's config.yml says, with its container settings; a broken config fails the task instead of running it on the host", async () => {
    h = await mailboxHarness([
      { match: { userPattern: 'PROJECT-DEFAULT' }, blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'hostname > project.txt' } }] },
      { match: { userPattern: 'project.txt' }, blocks: [{ type: 'text', text: 'Placed by the project.' }] },
      { match: { userPattern: 'HOST-ANYWAY' }, blocks: [{ type: 'text', text: 'On the host.' }] },
    ]);
    const repo = tempDir('fd-mbx-proj-');
    const config = join(repo.path, '.flightdeck', 'config.yml');
    mkdirSync(dirname(config), { recursive: true });
    writeFileSync(config, `version: 1\nagent:\n  placement:\n    kind: container\n    image: ${image}\n    limits: { memoryBytes: ${256 * 1024 ** 2}, pids: 300 }\n    network: none\n`);
    h.app.mailbox.updateSettings({ containerImage: 'flightdeck-no-such-image:never' });
    const p = h.processor({ placements: h.app.mailbox.placements, projectPlacement: () => projectDefaultPlacement(repo.path) });
    const root = h.root;
    execFileSync('chown', ['-R', `${AGENT_UID}:${AGENT_UID}`, p.workspace]);
    p.start();
    try {
      dropCommand(root, 'proj.md', commandText({ id: 'task-proj', task: 'PROJECT-DEFAULT' }));
      await until(() => existsSync(join(root, 'commands/processed/proj.md')), 'proj.md processed', 150_000);
      const report = readReport(join(root, 'reports/pending/detailed-report-task-proj.md'), true);
      expect(report.fm.status).toBe('SUCCESS');
      expect(report.text).toContain(`- 运行位置: container (${image})`);
      expect(report.text).toContain("The container started from this project's default placement (.flightdeck/config.yml)");
      const placed = h.app.containers.forSession(report.fm.session_id)!;
      expect(readFileSync(join(p.workspace, 'project.txt'), 'utf8').trim()).toBe(placed.id.slice(0, 12));
      const hc = (await docker.getContainer(placed.id).inspect()).HostConfig;
      expect({ Memory: hc.Memory, PidsLimit: hc.PidsLimit, NetworkMode: hc.NetworkMode }).toEqual({ Memory: 256 * 1024 ** 2, PidsLimit: 300, NetworkMode: 'none' });

      // A typo in the project's config: the task fails with the config's message, nothing runs on the host.
      writeFileSync(config, `version: 1\nagent:\n  placement:\n    kind: container\n    netwrok: none\n`);
      const asked = h.server.mainRequests().length;
      dropCommand(root, 'broken.md', commandText({ id: 'task-broken', task: 'never runs' }));
      await until(() => existsSync(join(root, 'commands/processed/broken.md')), 'broken.md processed', 60_000);
      const broken = readReport(join(root, 'reports/pending/report-task-broken.md'), false);
      expect(broken.fm.status).toBe('FAILED');
      expect(broken.text).toMatch(/The project's default placement could not be read: .*config\.yml:5.*netwrok/);
      expect(h.server.mainRequests().length).toBe(asked);

      // A task that names the host needs nothing of the project's placement: the broken config does not fail it.
      dropCommand(root, 'host.md', commandText({ id: 'task-host', task: 'HOST-ANYWAY', extra: 'placement: host\n' }));
      await until(() => existsSync(join(root, 'commands/processed/host.md')), 'host.md processed', 60_000);
      expect(readReport(join(root, 'reports/pending/report-task-host.md'), false).fm.status).toBe('SUCCESS');
    } finally {
      repo.cleanup();
    }
  }, 300_000);

  it('an unknown container_engine fails the task with a report naming the engines there are', async () => {
    h = await mailboxHarness([]);
    const changes: MailboxChange[] = [];
    const p = h.processor({ placements: h.app.mailbox.placements, onChange: (e) => changes.push(e) });
    const root = h.root;
    p.start();
    dropCommand(root, 'nope.md', commandText({ id: 'task-nope', task: 'never runs', extra: `placement: container\ncontainer_engine: no-such-engine\nimage: ${image}\n` }));
    await until(() => existsSync(join(root, 'commands/processed/nope.md')), 'nope.md processed', 60_000);
    const report = readReport(join(root, 'reports/pending/report-task-nope.md'), false);
    expect(report.fm.status).toBe('FAILED');
    const known = h.app.containers.engine().spec.name;
    expect(report.text).toContain(`The container placement could not be set up: There is no Docker engine named "no-such-engine". Known: ${known}`);
    expect(report.text).toContain('The task did not run.');
    expect(changes).toContainEqual(expect.objectContaining({ kind: 'finished', commandId: 'task-nope', status: 'FAILED' }));
    // Nothing was placed and no model was asked.
    expect(h.app.containers.placement(report.fm.session_id)).toBeNull();
    expect(h.server.mainRequests()).toEqual([]);
  }, 120_000);
});
