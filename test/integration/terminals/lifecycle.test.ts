import { existsSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BridgeError } from '../../../src-preload/client/client';
import { dropConnections } from '../../fixtures/terminals/ws-client';
import { HeadlessView } from '../../fixtures/terminals/headless-view';
import { makeRepo, tempDir } from '../../support/temp';
import { startTerminalHarness, waitFor, type TerminalHarness } from './support';

async function expectCode(p: Promise<unknown>, code: string): Promise<BridgeError> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(BridgeError);
  expect((e as BridgeError).code).toBe(code);
  return e as BridgeError;
}

describe('terminals over browser mode', () => {
  let h: TerminalHarness;
  const repo = makeRepo('fd-term-repo-');
  const dir = tempDir('fd-term-');
  beforeAll(async () => {
    h = await startTerminalHarness();
  });
  afterAll(async () => {
    await h.cleanup();
    repo.cleanup();
    dir.cleanup();
  });

  it("opens a shell in a project's own path and runs what is typed", async () => {
    const project = await h.client.invoke('projects.add', { path: repo.path });
    const info = await h.client.invoke('terminals.create', { target: { kind: 'project', projectId: project.id }, cols: 100, rows: 30 });
    expect(info.cwd).toBe(project.path);
    expect(info.owner).toEqual({ projectId: project.id });
    expect(info.status).toBe('running');
    const view = new HeadlessView(h.client, info.id);
    await view.attach();
    await h.client.invoke('terminals.write', { id: info.id, data: 'echo hello-$((6*7)); pwd\r' });
    await view.until((o) => o.includes('hello-42') && o.includes(`\r\n${project.path}\r\n`), 20_000, 'hello-42 and the cwd');
    // The user's shell here runs none of this machine's startup files (a pyenv rehash lock left by
    // a killed shell stalled every later prompt for 60 s): its home is the harness's own.
    await h.client.invoke('terminals.write', { id: info.id, data: `printf 'home:%s:\\n' "$HOME"\r` });
    await view.until((o) => /home:\/[^:\r\n]+:\r\n/.test(o), 20_000, 'the shell\'s HOME');
    const home = /home:(\/[^:\r\n]+):\r\n/.exec(view.output)![1]!;
    expect(basename(home)).toMatch(/^fd-term-home-/);
    for (const rc of ['.bashrc', '.profile', '.bash_profile']) expect(existsSync(join(home, rc)), rc).toBe(false);
    const listed = await h.client.invoke('terminals.list', {});
    expect(listed.map((t) => t.id)).toContain(info.id);
    view.dispose();
    expect(await h.client.invoke('terminals.close', { id: info.id })).toEqual({ closed: true });
    await expectCode(h.client.invoke('terminals.write', { id: info.id, data: 'x' }), 'not_found');
  });

  it('refuses bad sizes, oversized input, relative, missing and non-folder paths, unknown projects', async () => {
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'path', path: dir.path }, cols: 0, rows: 10 }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'path', path: dir.path }, cols: 80, rows: 100_000 }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'path', path: 'relative/dir' } } as never), 'invalid_input');
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'path', path: join(dir.path, 'missing') } }), 'path_not_found');
    const file = join(dir.path, 'a-file');
    writeFileSync(file, 'x');
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'path', path: file } }), 'not_a_directory');
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'project', projectId: 'no-such-project' } }), 'not_found');
    // A renderer cannot smuggle its own path in with a project.
    await expectCode(h.client.invoke('terminals.create', { target: { kind: 'project', projectId: 'abcdef12', path: '/' } } as never), 'invalid_input');
    const info = await h.client.invoke('terminals.create', { target: { kind: 'path', path: dir.path } });
    await expectCode(h.client.invoke('terminals.write', { id: info.id, data: 'x'.repeat(64 * 1024 + 1) }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.write', { id: info.id, data: '' }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.resize', { id: info.id, cols: 1, rows: 10 }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.write', { id: '../etc', data: 'x' }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.ack', { id: info.id, attachmentId: 'att-000000', chars: -5 }), 'invalid_input');
    await expectCode(h.client.invoke('terminals.kill', { id: info.id, signal: 'SIGSTOP' } as never), 'invalid_input');
    h.client.invoke('terminals.close', { id: info.id });
  });

  it('resizes reach the pty (the last of a burst wins)', async () => {
    const info = await h.client.invoke('terminals.create', { target: { kind: 'path', path: dir.path }, cols: 80, rows: 24 });
    const view = new HeadlessView(h.client, info.id);
    await view.attach();
    for (let c = 90; c <= 130; c += 10) await h.client.invoke('terminals.resize', { id: info.id, cols: c, rows: 40 });
    // The throttled last resize lands within about 100 ms; ask until the pty reports it.
    let seen = false;
    for (let i = 0; i < 50 && !seen; i++) {
      // The echo of the typed line reads "mark-$((i+1000))"; only the output reads mark-1000+i.
      await h.client.invoke('terminals.write', { id: info.id, data: `stty size; echo mark-$((${i}+1000))\r` });
      await view.until((o) => o.includes(`mark-${i + 1000}\r\n`), 10_000, `mark-${i + 1000}`);
      seen = view.output.includes('40 130\r\n');
    }
    expect(seen).toBe(true);
    expect((await h.client.invoke('terminals.list', {})).find((t) => t.id === info.id)).toMatchObject({ cols: 130, rows: 40 });
    view.dispose();
    await h.client.invoke('terminals.close', { id: info.id });
  });

  it('reports exit codes and the signal that killed a process', async () => {
    const code = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', 'exit 3'], cwd: dir.path, kind: 'command', title: 'exit 3' });
    const done = await h.app.terminals.whenExited(code.id);
    expect(done).toMatchObject({ status: 'exited', exitCode: 3, signal: null });

    const shell = await h.client.invoke('terminals.create', { target: { kind: 'path', path: dir.path } });
    const view = new HeadlessView(h.client, shell.id);
    await view.attach();
    const statuses: string[] = [];
    h.client.on('terminals.status', (i) => statuses.push(`${i.status}:${i.signal}`), shell.id);
    // bash ignores SIGTERM at an interactive prompt; SIGKILL always ends it.
    await h.client.invoke('terminals.kill', { id: shell.id, signal: 'SIGKILL' });
    const killed = await h.app.terminals.whenExited(shell.id);
    expect(killed.exitCode).toBeNull();
    expect(killed.signal).toBe('SIGKILL');
    await waitFor(() => statuses.includes('exited:SIGKILL'), 'the exit status event');

    const sleeper = await h.app.terminals.spawn({ file: '/bin/sleep', args: ['30'], cwd: dir.path, kind: 'command', title: 'sleep' });
    h.app.terminals.kill(sleeper.id, 'SIGTERM');
    expect(await h.app.terminals.whenExited(sleeper.id)).toMatchObject({ exitCode: null, signal: 'SIGTERM' });
    // An exited terminal stays readable until closed.
    expect((await h.client.invoke('terminals.attach', { id: shell.id })).terminal.status).toBe('exited');
    await expectCode(h.client.invoke('terminals.write', { id: shell.id, data: 'ls\r' }), 'conflict');
    view.dispose();
  });

  it("says where an ended terminal's output ends (a flood held back from the main process included), so a view can put its end line after it", async () => {
    // 300,000 two-byte characters: a flood the pty host holds back from the main process, sent on at the end.
    const script = `process.stdout.write('é'.repeat(300000)); process.stdout.write('the-end-' + 6*7); process.exitCode = 3`;
    const t = await h.app.terminals.spawn({ file: process.execPath, args: ['-e', script], cwd: dir.path, kind: 'command', title: 'flood then exit' });
    expect(t.outputEnd).toBeNull();
    const done = await h.app.terminals.whenExited(t.id);
    expect(done.exitCode).toBe(3);
    const all = await h.client.invoke('terminals.attach', { id: t.id });
    expect(all.data.endsWith('the-end-42')).toBe(true);
    // In UTF-16 units, the views' offsets: one per é.
    expect(done.outputEnd).toBe(300_000 + 'the-end-42'.length);
    expect(all.end).toBe(done.outputEnd);
    expect(all.terminal.outputEnd).toBe(done.outputEnd);
    expect((await h.client.invoke('terminals.list', {})).find((x) => x.id === t.id)?.outputEnd).toBe(done.outputEnd);
  });

  it('keeps UTF-8 characters whole when the program writes them byte by byte', async () => {
    const text = 'a€b😀cé日本\n';
    const script = `const b=Buffer.from(${JSON.stringify(text)});let i=0;const t=setInterval(()=>{process.stdout.write(b.subarray(i,i+1));if(++i>=b.length)process.exit(0)},15)`;
    const info = await h.app.terminals.spawn({ file: process.execPath, args: ['-e', `process.stdin.once('data',()=>{${script}})`], cwd: dir.path, kind: 'command', title: 'bytes' });
    const view = new HeadlessView(h.client, info.id);
    await view.attach();
    await h.client.invoke('terminals.write', { id: info.id, data: '\r' });
    await h.app.terminals.whenExited(info.id);
    await view.until((o) => o.includes('本'), 10_000, 'the last character');
    expect(view.output).toContain('a€b😀cé日本');
    expect(view.output).not.toContain('\uFFFD');
    view.dispose();
  });

  it('replays the scrollback to a late view and continues after a dropped connection with no gap and no duplicate', async () => {
    const info = await h.app.terminals.spawn({
      file: '/bin/bash',
      args: ['-c', 'stty -echo; for i in $(seq 1 40); do echo early-$i; done; read go; for i in $(seq 1 2000); do echo line-$i; done; read go; for i in $(seq 2001 4000); do echo line-$i; done; read go'],
      cwd: dir.path,
      kind: 'command',
      title: 'lines',
    });
    const earlyChars = Array.from({ length: 40 }, (_, i) => `early-${i + 1}\r\n`).join('').length;
    await waitFor(() => h.app.terminals.flowStats(info.id).scrollbackChars >= earlyChars, 'the early lines');
    const late = new HeadlessView(h.client, info.id);
    const r = await late.attach();
    expect(r.start).toBe(0);
    expect(r.data).toContain('early-1\r\nearly-2\r\n');
    expect(late.output).toContain('early-40\r\n');

    await h.client.invoke('terminals.write', { id: info.id, data: 'go\r' });
    await late.until((o) => o.includes('line-2000\r\n'), 20_000, 'line-2000');
    // The tab loses its connection; the program prints the rest meanwhile.
    dropConnections();
    h.app.terminals.write(info.id, 'go\r');
    await late.until((o) => o.includes('line-4000\r\n'), 30_000, 'line-4000 after reconnecting');

    const lines = late.output.split('\r\n').filter((l) => /^(early|line)-\d+$/.test(l));
    const expected = [...Array.from({ length: 40 }, (_, i) => `early-${i + 1}`), ...Array.from({ length: 4000 }, (_, i) => `line-${i + 1}`)];
    expect(lines).toEqual(expected);
    expect(late.stream.stats.gaps).toBe(0);
    expect(late.resets).toBe(0);

    // A second tab opening now gets the same text from the scrollback alone.
    const other = h.connect();
    const second = new HeadlessView(other, info.id);
    await second.attach();
    // The replay reaches the emulator in pieces (the window's output scheduler), after attach resolves.
    await second.until((o) => o.length >= late.output.length, 20_000, 'the whole replay');
    expect(second.output).toBe(late.output);
    late.dispose();
    second.dispose();
    await h.client.invoke('terminals.close', { id: info.id });
  });

  it('reads a scrollback without watching it, and attaches from where a view says it holds the output', async () => {
    const info = await h.app.terminals.spawn({ file: '/bin/sh', args: ['-c', 'stty -echo; echo before-the-read; read go; echo after-the-read; read go'], cwd: dir.path, kind: 'command', title: 'since' });
    await waitFor(() => h.app.terminals.flowStats(info.id).scrollbackChars >= 'before-the-read\r\n'.length, 'the first line');
    const ahead = (await h.client.invoke('terminals.history', { id: info.id }))!;
    expect(ahead).toEqual({ data: 'before-the-read\r\n', start: 0, end: 'before-the-read\r\n'.length });
    // Longer than the reader wants: nothing.
    expect(await h.client.invoke('terminals.history', { id: info.id, maxChars: ahead.data.length - 1 })).toBeNull();
    // Reading is not watching: no view counts for flow control.
    expect(h.app.terminals.flowStats(info.id).views).toBe(0);

    await h.client.invoke('terminals.write', { id: info.id, data: 'go\r' });
    await waitFor(() => h.app.terminals.flowStats(info.id).scrollbackEnd >= ahead.end + 'after-the-read\r\n'.length, 'the second line');
    // Read again from where the first read ended: only what came after it (within a budget that fits it, not the whole).
    expect(await h.client.invoke('terminals.history', { id: info.id, since: ahead.end, maxChars: 'after-the-read\r\n'.length })).toEqual({
      data: 'after-the-read\r\n',
      start: ahead.end,
      end: ahead.end + 'after-the-read\r\n'.length,
    });
    const since = await h.client.invoke('terminals.attach', { id: info.id, since: ahead.end });
    expect(since.start).toBe(ahead.end);
    expect(since.data).toBe('after-the-read\r\n');
    expect(since.end).toBe(ahead.end + since.data.length);
    expect(h.app.terminals.flowStats(info.id).views).toBe(1);
    // An offset the scrollback does not hold (past its end): the whole scrollback, from its start.
    const all = await h.client.invoke('terminals.attach', { id: info.id, since: since.end + 5 });
    expect(all.start).toBe(0);
    expect(all.data).toBe('before-the-read\r\nafter-the-read\r\n');
    await expectCode(h.client.invoke('terminals.attach', { id: info.id, since: -1 }), 'invalid_input');
    await h.client.invoke('terminals.close', { id: info.id });
  });
});
