/**
 * A container shell as an ordinary terminal program: run in a pty by the terminal service,
 * it opens an interactive exec (TTY) in a session's container through dockerode and joins it to
 * its own stdin/stdout. Everything the terminal grid does for a local shell (flow control by
 * unacknowledged characters, scrollback, replay, throttled resizes) therefore applies unchanged:
 * when the pty is paused this process stops being read, and the exec stream backs up to the engine.
 *
 * With `attach`, it shows the container's agent console instead (../core/console): a read-only
 * `docker attach` of the main process's TTY, replaying what it already showed; keys typed in the
 * terminal go nowhere (the agent is driven from the session, not from here).
 *
 * Input (environment, no secrets): FLIGHTDECK_BRIDGE = JSON { engine: EngineSpec, container,
 * user, workdir, cmd } or { engine, container, attach: true }. Exits 125 when the terminal could
 * not be opened (the engine refused or did not answer in time), else with the exec's exit code
 * (0 when an attached console ends with its container).
 */
import { execFileSync } from 'node:child_process';
import Docker from 'dockerode';
import type { EngineSpec } from '../core/engine-spec';
import { engineError } from '../core/engine-errors';
import { dockerClient, ENGINE_CALL_DEADLINE_MS, withDeadline } from '../engines';

/** `deadlineMs`: how long opening may take (the engine deadline unless given; tests give a short one). */
type BridgeInput = { engine: EngineSpec; container: string; deadlineMs?: number } & ({ attach: true } | { attach?: undefined; user: string; workdir: string; cmd: string[] });

/**
 * libuv's raw mode keeps ONLCR on, but the container's own TTY already ends lines with \r\n:
 * without this every line would reach the terminal as \r\r\n. stty acts on its stdin, which is
 * this pty.
 */
function rawPty(): void {
  if (!process.stdin.isTTY) return;
  process.stdin.setRawMode(true);
  try {
    execFileSync('stty', ['-onlcr'], { stdio: ['inherit', 'ignore', 'ignore'], timeout: 5_000 });
  } catch {
    // Cosmetic if it fails (no stty): lines then carry one extra \r.
  }
}

class NoAnswer extends Error {}

/**
 * An engine call that opens the terminal, under the engine deadline: a wedged engine (a remote
 * one whose ssh link hangs, a daemon stuck on a lock) says so in the terminal instead of leaving
 * it blank for as long as it stays open.
 */
function opened<T>(p: Promise<T>, input: BridgeInput, label: string, what: string): Promise<T> {
  const ms = input.deadlineMs ?? ENGINE_CALL_DEADLINE_MS;
  return withDeadline(p, ms, () => new NoAnswer(`The container engine ${label} did not ${what} within ${ms / 1000} s: check that it is running and reachable, then open the terminal again.`)).catch((e: unknown) =>
    fail(e instanceof NoAnswer ? e.message : engineError(e, label).message),
  );
}

function waitEnd(stream: NodeJS.ReadableStream): Promise<void> {
  return new Promise<void>((resolve) => {
    stream.on('end', resolve);
    stream.on('close', resolve);
    stream.on('error', () => resolve());
  });
}

/** The agent console: read-only, from the start of what the engine kept. */
async function attachConsole(docker: Docker, input: BridgeInput, label: string): Promise<never> {
  const c = docker.getContainer(input.container);
  const stream = await opened(c.attach({ stream: true, stdout: true, stderr: true, logs: true }), input, label, 'open the console');
  rawPty();
  // No cursor: nothing is typed here.
  process.stdout.write(`\x1b[?25l\x1b[2mAgent console of ${input.container.slice(0, 12)} on ${input.engine.name}, read-only: the agent's commands and their output as they run.\x1b[0m\r\n`);
  stream.pipe(process.stdout);
  // Typed keys are read and dropped: the pty must not fill up, and nothing here drives the agent.
  process.stdin.resume();
  await waitEnd(stream);
  // Why it ended, as the engine tells it now: stopped, removed by hand, or the engine went away.
  const why = await withDeadline(c.inspect(), ENGINE_CALL_DEADLINE_MS, () => new Error(`no answer within ${ENGINE_CALL_DEADLINE_MS / 1000} s`)).then(
    // `docker rm -f` kills the container first: its attach ends while the engine is still removing it.
    (ins) => ({ text: ins.State.Running ? 'the engine closed the console; open it again' : ins.State.Status === 'removing' ? 'the container was removed' : 'the container stopped', code: 0 }),
    (e: unknown) => {
      const err = engineError(e, label);
      return err.details?.reason === 'not_found' ? { text: 'the container was removed', code: 0 } : { text: err.message, code: 1 };
    },
  );
  process.stdout.write(`\r\n\x1b[2m[${why.text}]\x1b[0m\r\n`);
  process.exit(why.code);
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
  const docker = dockerClient(input.engine);
  const label = `"${input.engine.name}" (${input.engine.host})`;
  if (input.attach) return attachConsole(docker, input, label);
  const exec = await opened(
    docker
      .getContainer(input.container)
      .exec({ Cmd: input.cmd, User: input.user, WorkingDir: input.workdir, Tty: true, AttachStdin: true, AttachStdout: true, AttachStderr: true, Env: [`TERM=${process.env.TERM ?? 'xterm-256color'}`, 'COLORTERM=truecolor'] }),
    input,
    label,
    'create the shell',
  );
  const stream = await opened(exec.start({ hijack: true, stdin: true, Tty: true }), input, label, 'start the shell');
  const resize = async () => {
    const w = process.stdout.columns;
    const h = process.stdout.rows;
    // A resize the engine refuses (the exec just ended) changes nothing worth reporting.
    if (w && h) await exec.resize({ w, h }).catch(() => undefined);
  };
  rawPty();
  stream.pipe(process.stdout);
  process.stdout.on('resize', () => void resize());
  // The TTY has the terminal's size before the first keystroke reaches the shell.
  await resize();
  process.stdin.pipe(stream);
  await waitEnd(stream);
  const r = await exec.inspect().catch(() => ({ ExitCode: 1 }));
  process.exit(typeof r.ExitCode === 'number' ? r.ExitCode : 1);
}

void main();
