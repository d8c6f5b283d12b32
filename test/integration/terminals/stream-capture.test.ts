/**
 * The wrapper that captures a command's stdout and stderr apart (stream-capture.ts), run by the
 * real shells: bash waits for its tees on a FIFO (no `sleep` process), sh keeps the sleep loop.
 * Both keep the exit code, both streams, only the two FIFOs crossing into the command, and a
 * command whose background child holds its output open does not keep the wrapper waiting.
 */
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { StreamCapture } from '../../../src-main/terminals/stream-capture';
import { tempDir } from '../../support/temp';

const tmp = tempDir('fd-capture-');
afterAll(() => tmp.cleanup());

/** A `sleep` ahead of the real one on PATH that leaves a mark, so a wrapper that starts one is seen. */
const bin = join(tmp.path, 'bin');
const sleepMark = join(tmp.path, 'sleep-started');
mkdirSync(bin);
writeFileSync(join(bin, 'sleep'), `#!/bin/sh\necho started >>'${sleepMark}'\nexec /bin/sleep "$@"\n`);
chmodSync(join(bin, 'sleep'), 0o755);

async function wrapped(shell: string, command: string): Promise<{ code: number | null; terminal: string; stdout: string; stderr: string; sleeps: boolean }> {
  const capture = await StreamCapture.create(64 * 1024);
  try {
    if (existsSync(sleepMark)) writeFileSync(sleepMark, '');
    const child = spawn(shell, capture.args(shell, command, true), { env: { ...process.env, PATH: `${bin}:${process.env.PATH ?? ''}` }, stdio: ['ignore', 'pipe', 'pipe'] });
    let terminal = '';
    child.stdout.on('data', (d: Buffer) => (terminal += d.toString()));
    child.stderr.on('data', (d: Buffer) => (terminal += d.toString()));
    // The wrapper's exit, as the pty host sees its leader's: a background child may still hold the pipes.
    const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
    child.stdout.destroy();
    child.stderr.destroy();
    const got = capture.finish();
    return { code, terminal, stdout: got?.stdout ?? '', stderr: got?.stderr ?? '', sleeps: existsSync(sleepMark) && readFileSync(sleepMark, 'utf8') !== '' };
  } finally {
    await capture.dispose();
  }
}

describe('the stream-capture wrapper', () => {
  for (const shell of ['/bin/bash', '/bin/sh']) {
    it(`${shell}: exit code and both streams kept apart, the terminal shows both, and no descriptor but the FIFOs reaches the command`, async () => {
      const fds = 'for n in 3 4 5 6 7 8 9; do [ -e /proc/self/fd/$n ] && echo "open $n" >&2; done';
      const r = await wrapped(shell, `echo out; echo err >&2; ${fds}; exit 3`);
      expect(r.code).toBe(3);
      expect(r.stdout).toBe('out\n');
      expect(r.stderr).toBe('err\n');
      expect(r.terminal).toContain('out\n');
      expect(r.terminal).toContain('err\n');
    });

    it(`${shell}: a background child holding the output open does not hold the wrapper past its wait`, async () => {
      const r = await wrapped(shell, 'echo started; (/bin/sleep 3; echo late) & exit 0');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe('started\n');
    });
  }

  it('bash waits for its tees without starting a sleep; sh sleeps in its loop (so the mark sees one)', async () => {
    // A background child holds stdout for 0.3 s: the stdout tee ends only then, after the command.
    const late = 'echo out; /bin/sleep 0.3 & exit 0';
    const bash = await wrapped('/bin/bash', late);
    expect(bash).toMatchObject({ code: 0, stdout: 'out\n', sleeps: false });
    const sh = await wrapped('/bin/sh', late);
    expect(sh).toMatchObject({ code: 0, stdout: 'out\n', sleeps: true });
  });
});
