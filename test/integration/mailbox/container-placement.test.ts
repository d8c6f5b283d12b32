/**
 * The mailbox on the container placement: a `new` command with `placement: container` runs its
 * agent's commands in a Docker container with the workspace mounted (real engine, a locally
 * built test image, the scripted model server); a `continue` stays in the container.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ensureTestImage } from '../../support/container-image';
import { commandText, dropCommand, mailboxHarness, readReport, until, type MailboxHarness } from './support';

/** The test image runs commands as this user; the workspace must be theirs to write. */
const AGENT_UID = 1000;
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
  }, 300_000);
});
