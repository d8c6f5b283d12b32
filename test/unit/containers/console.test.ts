import { PassThrough, Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { claudeConsoleText, commandFooter, commandHeader, hasConsole, redactSecrets, toolSummary } from '../../../src-main/containers/core/console';
import type Docker from 'dockerode';
import { ConsoleOff, ConsoleWriter, consoleLive, containerConsole } from '../../../src-main/containers/console-writer';
import { plainText as plain } from '../../../src-main/terminals/agent-command-runner';


describe('agent console text', () => {
  it('shows a command with its continuation lines and its folder, and how it ended unless it succeeded', () => {
    expect(plain(commandHeader('cd src &&\nmake', 'pkg'))).toBe('\npkg $ cd src &&\n> make\n');
    expect(commandFooter({ exitCode: 0, signal: null, timedOut: false })).toBe('');
    expect(plain(commandFooter({ exitCode: 2, signal: null, timedOut: false }))).toBe('[exit 2]\n');
    expect(plain(commandFooter({ exitCode: null, signal: 'SIGTERM', timedOut: true }, 600_000))).toBe('[timed out after 600 s; stopped]\n');
    expect(plain(commandFooter({ exitCode: null, signal: 'SIGKILL', timedOut: false }))).toBe('[stopped by SIGKILL]\n');
  });

  it("renders Claude Code's stream: start, text, tool calls with their argument, clipped results, the end", () => {
    expect(plain(claudeConsoleText(JSON.stringify({ type: 'system', subtype: 'init', model: 'claude-x', permissionMode: 'bypassPermissions' })))).toBe('claude started · claude-x · bypassPermissions\n');
    const assistant = { type: 'assistant', message: { content: [{ type: 'text', text: 'Writing it.\n' }, { type: 'tool_use', name: 'Bash', input: { command: 'npm test\n  --silent', description: 'run' } }] } };
    expect(plain(claudeConsoleText(JSON.stringify(assistant)))).toBe('Writing it.\n● Bash(npm test ⏎ --silent)\n');
    const long = Array.from({ length: 12 }, (_, i) => `line ${i}`).join('\n');
    const result = { type: 'user', message: { content: [{ type: 'tool_result', content: [{ type: 'text', text: long }], is_error: false }] } };
    const shown = plain(claudeConsoleText(JSON.stringify(result)));
    expect(shown).toContain('  line 7\n');
    expect(shown).not.toContain('line 8\n');
    expect(shown).toContain('… 4 more lines');
    expect(plain(claudeConsoleText(JSON.stringify({ type: 'result', subtype: 'success', num_turns: 3, total_cost_usd: 0.01234 })))).toBe('claude done · 3 turns · $0.0123\n');
    expect(plain(claudeConsoleText(JSON.stringify({ type: 'result', subtype: 'error_max_turns', is_error: true, num_turns: 9 })))).toBe('claude ended: error_max_turns · 9 turns\n');
    expect(claudeConsoleText('not json')).toBe('');
    expect(claudeConsoleText(JSON.stringify({ type: 'stream_event', event: {} }))).toBe('');
  });

  it('summarises a tool call by its command, path or pattern, bounded', () => {
    expect(toolSummary({ file_path: '/w/a.ts', content: 'x' })).toBe('/w/a.ts');
    expect(toolSummary({ pattern: 'TODO' })).toBe('TODO');
    expect(toolSummary({ a: 1 })).toBe('{"a":1}');
    expect(toolSummary({ command: 'x'.repeat(500) })).toHaveLength(160);
  });

  it('redacts every occurrence of each secret, and ignores ones too short to look for', () => {
    expect(redactSecrets('key sk-ant-abc123456 and again sk-ant-abc123456; token Bearer t0k3n-xyz', ['sk-ant-abc123456', 't0k3n-xyz', ''])).toBe('key [redacted] and again [redacted]; token Bearer [redacted]');
    expect(redactSecrets('a short abc', ['abc'])).toBe('a short abc');
  });

  it('redacts a secret before a tool call is cut short, so no first part of it is left', () => {
    const key = 'sk-ant-api03-' + 'Q'.repeat(60);
    const line = JSON.stringify({ type: 'assistant', message: { content: [{ type: 'tool_use', name: 'Bash', input: { command: `${'x'.repeat(140)} curl -H "x-api-key: ${key}"` } }] } });
    const shown = claudeConsoleText(line, [key]);
    expect(shown).toContain('● Bash');
    // Cut at 160 characters, the key would straddle the cut: its prefix must not be there either.
    expect(shown).not.toContain('sk-ant-api03');
    const result = JSON.stringify({ type: 'user', message: { content: [{ type: 'tool_result', content: [{ type: 'text', text: `KEY=${key}` }] }] } });
    expect(plain(claudeConsoleText(result, [key]))).toBe('  KEY=[redacted]\n');
  });

  it('knows a container with the console from one made before it', () => {
    expect(hasConsole({ Config: { Tty: true, OpenStdin: true } })).toBe(true);
    expect(hasConsole({ Config: { Tty: false, OpenStdin: false } })).toBe(false);
  });
});

describe('ConsoleWriter', () => {
  it('queues text while the attach opens, writes it in order, and flushes on close', async () => {
    const sink = new PassThrough();
    let got = '';
    sink.on('data', (b: Buffer) => (got += b.toString()));
    let opens = 0;
    const w = new ConsoleWriter(async () => {
      opens++;
      await new Promise((r) => setTimeout(r, 20));
      return sink;
    });
    w.write('a');
    w.write('b');
    await w.close();
    expect(got).toBe('ab');
    expect(opens).toBe(1);
    w.write('after close');
    expect(got).toBe('ab');
  });

  it('shows Ctrl-P as ^P, so output holding the engine\'s detach sequence (Ctrl-P Ctrl-Q) cannot close the attach', async () => {
    const sink = new PassThrough();
    let got = '';
    sink.on('data', (b: Buffer) => (got += b.toString()));
    const w = new ConsoleWriter(async () => sink);
    w.write('a\x10\x11b\n');
    w.write('\x10\x10\x03 rest\n');
    await w.close();
    expect(got).toBe('a^P\x11b\n^P^P\x03 rest\n');
  });

  it('stops for good on a container without a console: no second open, nothing queued', async () => {
    let opens = 0;
    const errors: unknown[] = [];
    const w = new ConsoleWriter(
      async () => {
        opens++;
        throw new ConsoleOff('no stty');
      },
      (e) => errors.push(e),
    );
    w.write('one');
    await new Promise((r) => setTimeout(r, 10));
    w.write('two');
    w.write('three');
    await w.close();
    expect(opens).toBe(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(ConsoleOff);
  });

  it('reopens after the engine closed the attach, and a failed open loses only that text', async () => {
    const sinks: Recorder[] = [];
    let fail = false;
    const w = new ConsoleWriter(async () => {
      if (fail) throw new Error('engine away');
      const s = recorder();
      sinks.push(s);
      return s;
    }, () => undefined);
    w.write('one');
    await tick();
    sinks[0]!.destroy();
    await tick();
    fail = true;
    w.write('lost');
    await tick();
    fail = false;
    w.write('two');
    await tick();
    expect(sinks.map((s) => s.text)).toEqual(['one', 'two']);
  });

  it('gives up an attach that does not open within its deadline: the next write opens a new one, and the late one is closed', async () => {
    const sinks: Recorder[] = [];
    let arriveLate: ((s: Recorder) => void) | null = null;
    const errors: unknown[] = [];
    const w = new ConsoleWriter(
      () => {
        const s = recorder();
        sinks.push(s);
        // The first attach hangs (a wedged engine); later ones open at once.
        return sinks.length === 1 ? new Promise<Recorder>((r) => (arriveLate = r)) : Promise.resolve(s);
      },
      (e) => errors.push(e),
      50,
    );
    w.write('lost while the engine hangs');
    await new Promise((r) => setTimeout(r, 150));
    expect(String(errors[0])).toMatch(/did not open within/);
    w.write('after');
    await tick();
    expect(sinks).toHaveLength(2);
    expect(sinks[1]!.text).toBe('after');
    arriveLate!(sinks[0]!);
    await tick();
    expect(sinks[0]!.destroyed).toBe(true);
    expect(sinks[0]!.text).toBe('');
    await w.close();
  });

  it('drops text the engine does not take, and says so where it resumes', async () => {
    const sink = recorder();
    const w = new ConsoleWriter(async () => sink);
    w.write('x');
    await tick();
    // The engine stops taking text: a megabyte waits unwritten, and what comes next is dropped.
    sink.stuck = true;
    w.write('y'.repeat(1024 * 1024));
    w.write('LOST-TEXT');
    sink.release();
    await tick();
    w.write('z');
    await tick();
    expect(sink.text).not.toContain('LOST-TEXT');
    expect(sink.text).toMatch(/y\n.*some output was dropped here.*\n.*z$/s);
  });
});

type Recorder = Writable & { text: string; stuck: boolean; release: () => void };

/** A sink that records what reached it and can stop taking text, as a stalled engine does. */
function recorder(): Recorder {
  let held: (() => void) | null = null;
  const r = new Writable({
    write(chunk: Buffer, _enc, cb) {
      r.text += chunk.toString();
      if (r.stuck) held = cb;
      else cb();
    },
  }) as Recorder;
  r.text = '';
  r.stuck = false;
  r.release = () => {
    r.stuck = false;
    const cb = held;
    held = null;
    cb?.();
  };
  return r;
}

const tick = () => new Promise((r) => setTimeout(r, 10));

describe('the console check', () => {
  /** A container whose execs answer as `answers` says, one per exec; the attach records its options. */
  function fakeContainer(answers: Array<'hang' | 'fail' | number | null>, attached: PassThrough, attachOptions: unknown[]): Docker.Container {
    let n = 0;
    return {
      id: 'c0ffee000000000000',
      exec: async () => {
        const a = answers[n++];
        if (a === 'hang') return new Promise(() => undefined);
        if (a === 'fail') throw new Error('engine away');
        return {
          start: async () => {
            const s = new PassThrough();
            setImmediate(() => s.end());
            return s;
          },
          inspect: async () => ({ ExitCode: a }),
        };
      },
      attach: async (o: unknown) => {
        attachOptions.push(o);
        return attached;
      },
    } as unknown as Docker.Container;
  }

  it('gives up a check the engine never answers, and takes neither no exit code nor a console not raw yet for an answer', async () => {
    await expect(consoleLive(fakeContainer(['hang'], new PassThrough(), []), 100)).rejects.toThrow('the console check got no answer within 0.1 s');
    await expect(consoleLive(fakeContainer([null], new PassThrough(), []), 100)).rejects.toThrow('the engine gave no exit code');
    expect(await consoleLive(fakeContainer([0], new PassThrough(), []), 100)).toBe(true);
    expect(await consoleLive(fakeContainer([1], new PassThrough(), []), 100)).toBe(false);
    // The main process has not set its TTY raw yet (a restart): not an answer either.
    await expect(consoleLive(fakeContainer([2], new PassThrough(), []), 100)).rejects.toThrow('the console is not ready yet');
  });

  it('asks again after a failed check, then attaches naming the detach sequence it escapes', async () => {
    const sink = new PassThrough();
    let got = '';
    sink.on('data', (b: Buffer) => (got += b.toString()));
    const options: unknown[] = [];
    const errors: unknown[] = [];
    const w = containerConsole(fakeContainer(['fail', 0], sink, options), (e) => errors.push(e));
    w.write('lost while the engine was away');
    await new Promise((r) => setTimeout(r, 20));
    expect(errors).toHaveLength(1);
    w.write('a\x10\x11b');
    await w.close();
    expect(got).toBe('a^P\x11b');
    expect(options).toEqual([expect.objectContaining({ stdin: true, stdout: false, detachKeys: 'ctrl-p,ctrl-q' })]);
  });
});
