/**
 * Seed 001 §6: a `!` command returns a structured result — the command, its exit code, and
 * stdout and stderr apart — while its terminal still shows the output live, both streams.
 */
import { mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentEvent } from '../../../src-preload/contract';
import { StreamCapture } from '../../../src-main/terminals/stream-capture';
import { tempDir } from '../../support/temp';
import { spawnCli as cli } from '../../support/cli';
import { harness, type Harness } from './harness';

const COMMAND = "sh -c 'echo out; echo err >&2; exit 3'";

let h: Harness | undefined;
const cleanups: Array<() => void> = [];
afterEach(async () => {
  cleanups.splice(0).forEach((c) => c());
  await h?.cleanup();
  h = undefined;
});


describe('structured ! results', () => {
  it('the CLI prints command, exit code, stdout and stderr apart; the live terminal output has both', async () => {
    const d = tempDir('fd-bang-cli-');
    cleanups.push(d.cleanup);
    const work = join(d.path, 'work');
    mkdirSync(work);
    const tmp = join(d.path, 'tmp');
    mkdirSync(tmp);
    const r = await cli(['chat', '--cwd', work, '--approve', 'allow', '--json', `!${COMMAND}`], { FLIGHTDECK_DATA_DIR: join(d.path, 'data'), TMPDIR: tmp });
    const events = r.stdout
      .split('\n')
      .filter((l) => l.startsWith('{"sessionId"'))
      .map((l) => JSON.parse(l) as AgentEvent);
    const result = events.map((e) => e.data).find((e) => e.type === 'command.result');
    expect(result).toMatchObject({ kind: 'bang', command: COMMAND, exitCode: 3, stdout: 'out\n', stderr: 'err\n', ok: false });
    const tool = events.map((e) => e.data).find((e) => e.type === 'tool.result');
    expect(tool).toMatchObject({ tool: 'bash', exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    // The model reads stderr under its own heading.
    expect(tool?.type === 'tool.result' && tool.content).toBe(`$ ${COMMAND}\nout\n[stderr]\nerr\n[exit code 3]`);
    // The live view (the terminal's output) still shows both streams.
    const live = events
      .map((e) => e.data)
      .filter((e) => e.type === 'tool.output')
      .map((e) => (e.type === 'tool.output' ? e.chunk : ''))
      .join('');
    expect(live).toContain('out\n');
    expect(live).toContain('err\n');
    // The capture folder is gone with the command.
    expect(readdirSync(tmp).filter((n) => n.startsWith('flightdeck-cmd-'))).toEqual([]);
  }, 60_000);

  it('the terminal keeps both streams; an empty output and quoting in the command line are unchanged', async () => {
    h = await harness([]);
    const id = h.session({ mode: 'yolo' });
    await h.app.agents.run(id, `!${COMMAND}`);
    const result = h.events(id, 'command.result')[0]!;
    expect(result).toMatchObject({ exitCode: 3, stdout: 'out\n', stderr: 'err\n' });
    const terminalId = h.events(id, 'tool.output').find((o) => o.terminalId)!.terminalId!;
    const replay = (await h.app.terminals.attach(terminalId, 'test-view')).data;
    expect(replay).toContain('out');
    expect(replay).toContain('err');
    expect(h.app.terminals.get(terminalId).exitCode).toBe(3);

    await h.app.agents.run(id, '!true');
    expect(h.events(id, 'command.result')[1]).toMatchObject({ exitCode: 0, stdout: '', stderr: '', ok: true });
    // Quoting in the command line is untouched by the wrapper: it is passed as an argument.
    await h.app.agents.run(id, `!printf '%s|' "a b" '$HOME' "it's"; exit 0`);
    expect(h.events(id, 'command.result')[2]).toMatchObject({ exitCode: 0, stdout: 'a b|$HOME|it\'s|' });
  }, 60_000);

  it('a capture file over its limit keeps head and tail while the command runs', async () => {
    const capture = await StreamCapture.create(1_000);
    try {
      const { writeFileSync, appendFileSync } = await import('node:fs');
      writeFileSync(join(capture.dir, 'stdout'), 'H'.repeat(600));
      appendFileSync(join(capture.dir, 'stdout'), 'M'.repeat(5_000));
      appendFileSync(join(capture.dir, 'stdout'), 'T'.repeat(600));
      capture.watch();
      await new Promise((r) => setTimeout(r, 600));
      appendFileSync(join(capture.dir, 'stdout'), 'Z'.repeat(100));
      const r = capture.finish()!;
      expect(r.truncated).toBe(true);
      const [head, tail] = r.stdout.split(/\n… \[\d+ bytes of output omitted\] …\n/);
      expect(head).toBe('H'.repeat(500));
      expect(tail).toBe('T'.repeat(400) + 'Z'.repeat(100));
      expect(r.stdout).toContain('[5300 bytes of output omitted]');
    } finally {
      await capture.dispose();
    }
  });
});
