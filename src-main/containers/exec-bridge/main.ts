/**
 * A container shell as an ordinary terminal program: run in a pty by the terminal service,
 * it opens an interactive exec (TTY) in a session's container through dockerode and joins it to
 * its own stdin/stdout. Everything the terminal grid does for a local shell (flow control by
 * unacknowledged characters, scrollback, replay, throttled resizes) therefore applies unchanged:
 * when the pty is paused this process stops being read, and the exec stream backs up to the engine.
 *
 * Input (environment, no secrets): FLIGHTDECK_BRIDGE = JSON { engine: EngineSpec, container,
 * user, workdir, cmd }. Exits with the exec's exit code.
 */
import { execFileSync } from 'node:child_process';
import Docker from 'dockerode';
import type { EngineSpec } from '../core/engine-spec';
import { engineError } from '../core/engine-errors';
import { dockerOptions } from '../engines';

interface BridgeInput {
  engine: EngineSpec;
  container: string;
  user: string;
  workdir: string;
  cmd: string[];
}

function fail(message: string): never {
  process.stderr.write(`\r\n${message}\r\n`);
  process.exit(125);
}

async function main(): Promise<void> {
  let input: BridgeInput;
  try {
    input = JSON.parse(process.env.FLIGHTDECK_BRIDGE ?? '') as BridgeInput;
  } catch {
    fail('flightdeck container shell: no container given.');
  }
  const docker = new Docker(dockerOptions(input.engine));
  const label = `"${input.engine.name}" (${input.engine.host})`;
  const exec = await docker
    .getContainer(input.container)
    .exec({ Cmd: input.cmd, User: input.user, WorkingDir: input.workdir, Tty: true, AttachStdin: true, AttachStdout: true, AttachStderr: true, Env: [`TERM=${process.env.TERM ?? 'xterm-256color'}`, 'COLORTERM=truecolor'] })
    .catch((e: unknown) => fail(engineError(e, label).message));
  const stream = await exec.start({ hijack: true, stdin: true, Tty: true }).catch((e: unknown) => fail(engineError(e, label).message));
  const resize = async () => {
    const w = process.stdout.columns;
    const h = process.stdout.rows;
    // A resize the engine refuses (the exec just ended) changes nothing worth reporting.
    if (w && h) await exec.resize({ w, h }).catch(() => undefined);
  };
  if (process.stdin.isTTY) {
    process.stdin.setRawMode(true);
    // libuv's raw mode keeps ONLCR on, but the container's own TTY already ends lines with
    // \r\n: without this every line would reach the terminal as \r\r\n. stty acts on its stdin,
    // which is this pty. Cosmetic if it fails (no stty): lines then carry one extra \r.
    try {
      execFileSync('stty', ['-onlcr'], { stdio: ['inherit', 'ignore', 'ignore'], timeout: 5_000 });
    } catch {
      // Output stays readable; only the line ends have one \r more.
    }
  }
  stream.pipe(process.stdout);
  process.stdout.on('resize', () => void resize());
  // The TTY has the terminal's size before the first keystroke reaches the shell.
  await resize();
  process.stdin.pipe(stream);
  await new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
  const r = await exec.inspect().catch(() => ({ ExitCode: 1 }));
  process.exit(typeof r.ExitCode === 'number' ? r.ExitCode : 1);
}

void main();
