/**
 * The mailbox CLI on a seed-style `--root` folder: `task new|continue|end` write command files,
 * `mailbox run --once` runs them, `reports list` and `adr list` read the results; and a watcher
 * process killed in the middle of a task leaves nothing to run twice.
 */
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readFileSync, rmSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeAdr } from '../../../src-main/mailbox/adr';
import { parseCommandFile } from '../../../src-main/mailbox/command-file';
import { ensureMailbox } from '../../../src-main/mailbox/layout';
import { startModelServer, type ModelServer, type Script } from '../../fixtures/model-server/index.js';
import { startTestApp } from '../../support/app';
import { cli } from '../../support/cli';
import { runCli } from '../../../src-main/cli/main';
import { killGroup } from '../../support/processes';
import { tempDir } from '../../support/temp';
import { saveTestProfile } from '../agents/harness';
import { commandText, dropCommand, ls, readReport, until } from './support';

const ROOT = resolve(__dirname, '../../..');

describe('mailbox CLI', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  async function setup(script: Script): Promise<{ server: ModelServer; data: string; box: string }> {
    const server = await startModelServer({ script });
    const data = tempDir('fd-mbx-cli-data-');
    const box = tempDir('fd-mbx-cli-root-');
    cleanups.push(() => data.cleanup(), () => box.cleanup(), () => server.close());
    const app = await startTestApp(data.path);
    saveTestProfile(app.app, server.url);
    app.app.dispose();
    ensureMailbox(box.path);
    return { server, data: data.path, box: box.path };
  }

  it('task new / continue / end, mailbox run --once, reports list and adr list', async () => {
    const { data, box } = await setup([
      { match: { userPattern: 'TASK-CLI' }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'cli.txt', content: 'from the CLI\n' } }] },
      { match: { userPattern: 'Created cli.txt' }, blocks: [{ type: 'text', text: 'Done.\n```json\n{"summary":"wrote cli.txt","tags":["cli"]}\n```' }] },
      { match: { userPattern: 'TASK-MORE' }, blocks: [{ type: 'text', text: 'More done.' }] },
    ]);
    const made = await cli('task', 'new', 'TASK-CLI write cli.txt', '--root', box, '--constraints', 'only cli.txt', '--json');
    expect(made.code).toBe(0);
    const { id, file } = JSON.parse(made.out) as { id: string; file: string };
    expect(id).toMatch(/^task-[0-9a-f-]{36}$/);
    // English section headings by default.
    expect(readFileSync(file, 'utf8')).toContain('\n## Task\n\nTASK-CLI write cli.txt\n\n## Constraints\n\nonly cli.txt');
    expect(readFileSync(file, 'utf8')).not.toContain('任务描述');

    const run = await cli('mailbox', 'run', '--root', box, '--once', '--json', '--data-dir', data);
    expect(run.err).toBe('');
    expect(run.code).toBe(0);
    const summary = JSON.parse(run.out) as { finished: { commandId: string; status: string; sessionId: string }[]; rejected: unknown[] };
    expect(summary.finished).toHaveLength(1);
    expect(summary.finished[0]).toMatchObject({ commandId: id, status: 'SUCCESS' });
    expect(readFileSync(join(box, 'workspace/cli.txt'), 'utf8')).toBe('from the CLI\n');
    expect(existsSync(join(box, `commands/processed/${id}.md`))).toBe(true);
    const sessionId = summary.finished[0]!.sessionId;
    // The workspace had no mission: it was created from the English template (the default).
    expect(readFileSync(join(box, 'workspace/AGENT_MISSION.md'), 'utf8')).toContain('\n## Next Steps\n');

    const reports = await cli('reports', 'list', '--root', box, '--json');
    const list = JSON.parse(reports.out) as { commandId: string; status: string; tags: string[]; commandFile: string; sessionId: string }[];
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ commandId: id, status: 'SUCCESS', sessionId, commandFile: join(box, `commands/processed/${id}.md`) });
    expect(list[0]!.tags).toContain('cli');

    writeAdr(join(box, 'workspace'), { title: 'Use plain files', context: 'c', failedAttempts: '', decision: 'd', consequences: '' });
    const adrs = JSON.parse((await cli('adr', 'list', '--root', box, '--json')).out) as { number: number; title: string }[];
    expect(adrs).toEqual([expect.objectContaining({ number: 1, title: 'Use plain files' })]);

    // The format's Chinese template is a choice; the text, in any language, is written as given (and read back by the processor).
    const zh = await cli('task', 'continue', sessionId, 'TASK-MORE 再写一点', '--root', box, '--headings', 'zh', '--json');
    expect(zh.code).toBe(0);
    expect(readFileSync((JSON.parse(zh.out) as { file: string }).file, 'utf8')).toContain('\n## 任务描述\n\nTASK-MORE 再写一点\n');
    expect((await cli('task', 'new', 'x', '--root', box, '--headings', 'fr')).code).toBe(2);
    expect((await cli('task', 'end', sessionId, '--root', box)).code).toBe(0);
    // --mission-template zh: a mission created from now on is the format's Chinese template.
    rmSync(join(box, 'workspace/AGENT_MISSION.md'));
    expect((await cli('mailbox', 'run', '--root', box, '--once', '--mission-template', 'fr', '--data-dir', data)).code).toBe(2);
    const run2 = await cli('mailbox', 'run', '--root', box, '--once', '--mission-template', 'zh', '--data-dir', data);
    expect(readFileSync(join(box, 'workspace/AGENT_MISSION.md'), 'utf8')).toContain('\n## 下一步指令 (Next Steps)\n');
    expect(run2.out).toContain('2 processed, 0 rejected');
    const session = JSON.parse(readFileSync(join(box, `sessions/${sessionId}.json`), 'utf8')) as { turn_count: number; status: string };
    expect(session).toMatchObject({ turn_count: 2, status: 'ended' });

    const status = JSON.parse((await cli('mailbox', 'watch', '--root', box, '--json')).out) as Record<string, unknown>;
    expect(status).toMatchObject({ pending: 0, processed: 3, rejected: 0, reports: 3, activeSessions: [] });

    expect((await cli('task', 'new', 'x', '--root', box, '--placement', 'vm')).code).toBe(2);
    expect((await cli('mailbox', 'run', '--once')).code).toBe(2);
  }, 120_000);

  it('task new --placement container writes the container flags as the command file’s keys; bad ones are refused with the file’s reasons', async () => {
    const box = tempDir('fd-mbx-cli-ctr-');
    cleanups.push(() => box.cleanup());
    ensureMailbox(box.path);
    const made = await cli('task', 'new', 'train it', '--root', box.path, '--placement', 'container', '--container-engine', 'gpu-box', '--image', 'flightdeck-agent:cuda', '--gpus', '2', '--memory', '1.5g', '--cpus', '0.5', '--pids', '512', '--network', 'host', '--engine', 'claude-code', '--json');
    expect(made.err).toBe('');
    expect(made.code).toBe(0);
    const { file } = JSON.parse(made.out) as { file: string };
    const parsed = parseCommandFile(readFileSync(file));
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.command).toMatchObject({ placement: 'container', engine: 'claude-code', containerEngine: 'gpu-box', image: 'flightdeck-agent:cuda', gpus: { kind: 'count', count: 2 }, memoryBytes: 1536 * 1024 ** 2, cpus: 0.5, pids: 512, network: 'host' });

    const noPlacement = await cli('task', 'new', 'x', '--root', box.path, '--memory', '8g');
    expect(noPlacement.code).toBe(2);
    expect(noPlacement.err).toContain('--memory goes with --placement container');
    const bad = await cli('task', 'new', 'x', '--root', box.path, '--placement', 'container', '--memory', '2m', '--network', 'nat');
    expect(bad.code).toBe(2);
    expect(bad.err).toContain('memory is "2m" (2097152 bytes); the engine refuses less than 6 MiB');
    expect(bad.err).toContain('network is "nat"; it must be bridge, host or none.');
    // Nothing but the first file was written.
    expect(ls(join(box.path, 'commands/pending'))).toEqual([basename(file)]);
  }, 60_000);

  it('a watcher killed in the middle of a task: the next run reports it as interrupted and runs nothing twice', async () => {
    const { server, data, box } = await setup([
      { match: { userPattern: 'TASK-KILLED' }, fault: { kind: 'stall', ms: 8_000 }, blocks: [{ type: 'tool_use', name: 'write', input: { path: 'killed.txt', content: 'x' } }] },
      { match: { userPattern: 'TASK-NEXT' }, blocks: [{ type: 'text', text: 'next done' }] },
    ]);
    dropCommand(box, 'killed.md', commandText({ id: 'task-killed', task: 'TASK-KILLED' }));
    const child = spawn(resolve(ROOT, 'node_modules/.bin/tsx'), ['src-main/cli/main.ts', 'mailbox', 'run', '--root', box, '--data-dir', data], { cwd: ROOT, stdio: 'ignore', detached: true });
    cleanups.push(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // Already gone.
      }
    });
    await until(() => server.mainRequests().some((r) => r.userText?.includes('TASK-KILLED')), 'the task reached the model', 90_000);
    await killGroup(child.pid!);
    expect(ls(join(box, 'commands/pending'))).toEqual(['killed.md']);

    dropCommand(box, 'next.md', commandText({ id: 'task-next', task: 'TASK-NEXT' }));
    const run = await cli('mailbox', 'run', '--root', box, '--once', '--json', '--data-dir', data);
    const summary = JSON.parse(run.out) as { finished: { commandId: string; status: string }[] };
    expect(summary.finished.map((f) => [f.commandId, f.status]).sort()).toEqual([
      ['task-killed', 'FAILED'],
      ['task-next', 'SUCCESS'],
    ]);
    expect(run.code).toBe(1);
    expect(server.mainRequests().filter((r) => r.userText?.includes('TASK-KILLED'))).toHaveLength(1);
    expect(readReport(join(box, 'reports/pending/report-task-killed.md'), false).text).toContain('was not run again');
    expect(ls(join(box, 'commands/processed'))).toEqual(['killed.md', 'next.md']);
  }, 180_000);

  it('mailbox watch --tail follows monitor.log and claude_runtime.log until stopped', async () => {
    const box = tempDir('fd-mbx-tail-');
    cleanups.push(() => box.cleanup());
    const layout = ensureMailbox(box.path);
    appendFileSync(layout.monitorLog, '[t0] old line\n');
    const lines: string[] = [];
    const stop = new AbortController();
    const done = runCli(['mailbox', 'watch', '--tail', '--root', box.path], { out: (l) => lines.push(l), err: () => {} }, stop.signal);
    await until(() => lines.includes('[t0] old line'), 'the existing tail');
    appendFileSync(layout.runtimeLog, '[t1] [task-x] live output\n');
    appendFileSync(layout.monitorLog, '[t2] task-x: done (SUCCESS)\n');
    await until(() => lines.includes('[t1] [task-x] live output') && lines.includes('[t2] task-x: done (SUCCESS)'), 'the new lines');
    stop.abort('test');
    expect(await done).toBe(0);
  }, 60_000);
});
