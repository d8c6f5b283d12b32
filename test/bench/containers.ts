/**
 * Sessions placed in a container, on the local engine with the tests' cached image
 * (test/support/container-image.ts), against the scripted model server and the built-in loop:
 *
 * - start-up: from creating the session to its first model request, (a) as the app does it —
 *   the container starts lazily at the first command, so the request does not wait on Docker —
 *   and (b) with the container started first, as a "container agent" that boots before it
 *   thinks would; plus create to the first command's result inside the container (the next
 *   model request carries it). Median of a few rounds, each with a fresh session and container.
 * - terminal throughput: the same `head -c 20M /dev/zero | base64` typed into a container shell
 *   (pty → exec bridge → the engine's TTY exec) and into a local shell, bytes counted as the
 *   terminal service delivers them; the ratio container / local.
 *
 * No engine answering is a figure `{ error }`, not a failure of the other benchmarks.
 */
import { startModelServer } from '../fixtures/model-server/index.js';
import type { AppServices } from '../../src-main/app/services';
import { ensureTestImage } from '../support/container-image';
import { startTestApp } from '../support/app';
import { makeRepo } from '../support/temp';

/** Start-up rounds per variant: each makes and removes a container, a few seconds apiece. */
const STARTUP_ROUNDS = 3;
/** Throughput rounds per terminal kind (one warm-up round first is not counted). */
const THROUGHPUT_ROUNDS = 3;
/** The flood's input size; base64 of it is about 4/3 of this plus a newline per 76 characters. */
const FLOOD_MIB = 20;
/** In bytes: busybox's head takes no M suffix. */
const FLOOD_BYTES = FLOOD_MIB * 1024 * 1024;
/** What base64 prints for the flood, without line ends: less received means the command failed. */
const FLOOD_OUTPUT_MIN = Math.ceil(FLOOD_BYTES / 3) * 4;
/** Small limits: start-up should not depend on the machine's size. */
const LIMITS = { memoryBytes: 256 * 1024 * 1024, cpus: 1, pids: 256 };
/** Every typed flood prints this when done; the counted bytes end there. */
const DONE_MARK = 'FLOOD-DONE';

const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

/** Types the flood into an interactive shell and counts output bytes until its end mark. */
async function flood(app: AppServices, termId: string): Promise<{ ms: number; bytes: number }> {
  let bytes = 0;
  let tail = '';
  let t0 = 0;
  const done = new Promise<number>((resolve) => {
    const off = app.terminals.onOutput(termId, (d) => {
      if (t0 === 0) return;
      bytes += Buffer.byteLength(d);
      tail = (tail + d).slice(-200);
      if (tail.includes(`${DONE_MARK}-`)) {
        off();
        resolve(performance.now());
      }
    });
  });
  // The mark is printed split so the echoed command line never matches it.
  t0 = performance.now();
  app.terminals.write(termId, `head -c ${FLOOD_BYTES} /dev/zero | base64; echo ${DONE_MARK}"-"end\r`);
  const t1 = await done;
  if (bytes < FLOOD_OUTPUT_MIN) throw new Error(`the flood printed ${bytes} bytes, not the ${FLOOD_OUTPUT_MIN} of base64 at least: ${JSON.stringify(tail.slice(-120))}`);
  return { ms: t1 - t0, bytes };
}

/** A shell that echoes nothing back, waiting at its prompt (the first output has arrived). */
async function quietShell(app: AppServices, termId: string): Promise<void> {
  let out = '';
  const ready = new Promise<void>((resolve) => {
    const off = app.terminals.onOutput(termId, (d) => {
      out += d;
      if (out.includes('READY-go')) {
        off();
        resolve();
      }
    });
  });
  app.terminals.write(termId, 'stty -echo; echo READY"-"go\r');
  await ready;
}

async function throughput(app: AppServices, termId: string): Promise<{ MBps: number; bytes: number; seconds: number[] }> {
  await quietShell(app, termId);
  await flood(app, termId); // warm-up: page cache, JIT, the engine's exec stream
  const runs: Array<{ ms: number; bytes: number }> = [];
  for (let i = 0; i < THROUGHPUT_ROUNDS; i++) runs.push(await flood(app, termId));
  const mbps = runs.map((r) => r.bytes / 1e6 / (r.ms / 1000));
  return { MBps: round(median(mbps)), bytes: runs[0]!.bytes, seconds: runs.map((r) => round(r.ms / 1000, 2)) };
}

export async function run(): Promise<Record<string, unknown>> {
  const server = await startModelServer({ script: [] });
  const repo = makeRepo('fd-bench-ctr-');
  const { app, cleanup } = await startTestApp();
  const sessions: string[] = [];
  try {
    const engines = await app.containers.engineInfos();
    const local = engines.find((e) => e.info?.local);
    if (!local) {
      return { error: `no local Docker engine answers: ${engines.map((e) => `${e.spec.name}: ${e.error?.message ?? 'remote'}`).join('; ') || 'none found'}` };
    }
    const image = ensureTestImage();
    app.agents.profiles.save({
      name: 'bench', label: 'Bench', preset: 'custom', baseUrl: server.url, model: 'bench-model', maxTokens: 1_024, contextWindow: 200_000,
      prices: { inputPerMTok: 3, outputPerMTok: 15, cacheReadPerMTok: 0.3, cacheWritePerMTok: 3.75 }, apiKey: 'sk-bench-0123456789', makeDefault: true,
    });
    const placement = { engine: local.spec.name, image, limits: LIMITS };

    const lazy = { firstRequestMs: [] as number[], firstCommandMs: [] as number[] };
    const eager = { containerStartMs: [] as number[], firstRequestMs: [] as number[] };
    for (let i = 0; i < STARTUP_ROUNDS * 2; i++) {
      const started = i % 2 === 1; // alternate, so both variants see the same machine state
      server.setScript([{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'true' } }] }, { blocks: [{ type: 'text', text: 'Done.' }] }]);
      server.reset();
      const t0 = Date.now();
      const id = app.agents.createSession({ root: repo.path, mode: 'yolo' }).id;
      sessions.push(id);
      await app.containers.setPlacement(id, placement);
      if (started) {
        await app.containers.ensure(id);
        eager.containerStartMs.push(Date.now() - t0);
      }
      const r = await app.agents.run(id, 'run true');
      if (r.outcome !== 'completed') throw new Error(`the bench turn ended ${r.outcome}: ${r.message}`);
      const [first, second] = server.mainRequests();
      if (!first || !second) throw new Error('the scripted model server did not see both requests');
      if (app.containers.forSession(id) === null) throw new Error('the command did not run in a container');
      if (started) eager.firstRequestMs.push(first.receivedAt - t0);
      else {
        lazy.firstRequestMs.push(first.receivedAt - t0);
        lazy.firstCommandMs.push(second.receivedAt - t0);
      }
      await app.containers.remove(id);
    }

    // Terminal throughput: a container shell and a local shell, the same typed command.
    const ctrSession = app.agents.createSession({ root: repo.path }).id;
    sessions.push(ctrSession);
    await app.containers.setPlacement(ctrSession, placement);
    const ctrTerm = await app.containers.openTerminal(ctrSession, { cols: 120, rows: 30 });
    const container = await throughput(app, ctrTerm.id);
    app.terminals.write(ctrTerm.id, 'exit\r');
    await app.terminals.whenExited(ctrTerm.id);
    const localTerm = await app.terminals.spawn({ file: '/bin/sh', args: [], cwd: repo.path, kind: 'shell', title: 'bench local', cols: 120, rows: 30 });
    const localShell = await throughput(app, localTerm.id);
    app.terminals.write(localTerm.id, 'exit\r');
    await app.terminals.whenExited(localTerm.id);

    return {
      engine: `${local.spec.name} (${local.info!.product} ${local.info!.version})`,
      image,
      startup: {
        what: `create session → first model request (built-in loop, scripted model server), median of ${STARTUP_ROUNDS}`,
        lazyContainer: {
          note: 'as the app does it: the container starts at the first command, after the first request',
          createToFirstModelRequestMs: median(lazy.firstRequestMs),
          createToFirstCommandDoneInContainerMs: median(lazy.firstCommandMs),
          samplesFirstCommandMs: lazy.firstCommandMs,
        },
        containerStartedFirst: {
          createToContainerRunningMs: median(eager.containerStartMs),
          createToFirstModelRequestMs: median(eager.firstRequestMs),
          samplesMs: eager.firstRequestMs,
        },
      },
      terminalThroughput: {
        what: `head -c ${FLOOD_BYTES} /dev/zero | base64 typed into a shell, bytes through the terminal service, median of ${THROUGHPUT_ROUNDS} after a warm-up`,
        container: container,
        local: localShell,
        ratioContainerToLocal: round(container.MBps / localShell.MBps, 3),
      },
    };
  } finally {
    for (const id of sessions) {
      // A session whose container was already removed (or never made) has nothing left to remove.
      await app.containers.remove(id).catch(() => undefined);
    }
    await app.containers.shutdown();
    await app.terminals.shutdown();
    cleanup();
    repo.cleanup();
    await server.close();
  }
}
