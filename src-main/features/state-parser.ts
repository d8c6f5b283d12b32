/**
 * Parsing state files off the main thread. A file in the fast loader's plain subset (yaml-fast.ts:
 * what Flightdeck writes) costs about a tenth of a millisecond and is read here, on the main
 * thread: a worker's start costs more than hundreds of those. The rest go to the full parser,
 * about a millisecond per state file on an idle core, and the first list of a thousand features the app never indexed is that
 * parse a thousand times: on the main thread it competes with every other request (the page
 * itself in browser mode); in one worker thread it runs on the other core while the main thread
 * reads the next files and answers the rest.
 *
 * One worker, started by a burst of parses (PARSER_WORKER_MIN_BURST) and ended after
 * PARSER_IDLE_MS without one. Until it says it is ready (loading the parser and the schema takes
 * a few hundred milliseconds, more under tsx), and if it fails, parses run here as before: the
 * result is the same either way
 * (state-parse-worker.ts runs the same parseStateFully and its errors come back as FeatureErrors).
 * The worker gets text only; reading the file, with its checks, stays in the scanner.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { appRoot } from '../platform/paths';
import { FeatureError, type FeatureErrorKind } from './errors';
import { parsePlainState, parseStateFully, type FeatureState } from './state';

export interface ParseRequest {
  id: number;
  text: string;
  path: string;
}

export type ParseReply =
  | { id: number; state: FeatureState }
  | { id: number; error: { kind: FeatureErrorKind; detail: string; path: string | null; line: number | null } | { message: string } };

/**
 * A reconcile's parses come in one burst (a restart, a checkout touching many features); after
 * this long without one the worker is ended so that its heap (the parser, the schema) is not
 * held for nothing. Starting it again is cheap next to the burst that needs it.
 */
export const PARSER_IDLE_MS = 15_000;
/**
 * Parses in a row (each within PARSER_BURST_GAP_MS of the last) before the worker is started:
 * loading it costs more CPU than a few dozen parses (several hundred milliseconds), so a state
 * file changed by a run, or a handful, is parsed here; a first index of hundreds starts it.
 */
export const PARSER_WORKER_MIN_BURST = 32;
const PARSER_BURST_GAP_MS = 1_000;
/** Workers that may fail (crash, fail to load) before parsing stays on the main thread for good. */
const MAX_WORKER_FAILURES = 3;

/** The worker's entry: the TypeScript source under tsx (tests, browser mode), or the bundled file next to Electron's main. */
function workerEntry(): { source: string; eval: boolean } | null {
  const here = dirname(fileURLToPath(import.meta.url));
  const source = join(here, 'state-parse-worker.ts');
  if (existsSync(source)) {
    // A worker does not inherit the parent's loader hooks: it registers tsx itself, then loads the source.
    const tsx = pathToFileURL(join(appRoot(), 'node_modules', 'tsx', 'dist', 'esm', 'api', 'index.mjs')).href;
    const code = `import(${JSON.stringify(tsx)}).then((api) => { api.register(); return import(${JSON.stringify(pathToFileURL(source).href)}); });`;
    return { source: code, eval: true };
  }
  const bundled = join(here, 'state-parse-worker.js');
  return existsSync(bundled) ? { source: bundled, eval: false } : null;
}

interface Pending {
  text: string;
  path: string;
  resolve: (s: FeatureState) => void;
  reject: (e: unknown) => void;
}

/** The full parse here (the fast loader has already said no). */
function inline(text: string, path: string): Promise<FeatureState> {
  try {
    return Promise.resolve(parseStateFully(text, path));
  } catch (e) {
    return Promise.reject(e as Error);
  }
}

export class StateParser {
  private worker: Worker | null = null;
  private ready = false;
  private readyWaiters: Array<(ok: boolean) => void> = [];
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private failures = 0;
  private idle: NodeJS.Timeout | null = null;
  /** Parses done by the fast loader here, by the full parser in the worker, and by the full parser here (the bench prints them; tests check which ran). */
  readonly counts = { fast: 0, worker: 0, inline: 0 };
  private burst = 0;
  private lastParseAt = 0;

  constructor(private readonly o: { idleMs?: number; minBurst?: number; entry?: () => ReturnType<typeof workerEntry> } = {}) {}

  /** Whether a worker is running (loading or ready). */
  get running(): boolean {
    return this.worker !== null;
  }

  /** Parses and validates a state file's text (parseState): here when the fast loader reads it, else in the worker when it is ready. */
  parse(text: string, path: string): Promise<FeatureState> {
    const plain = parsePlainState(text);
    if (plain) {
      this.counts.fast++;
      return Promise.resolve(plain);
    }
    // Only full parses count towards a burst: they are what the worker is for.
    const now = Date.now();
    this.burst = now - this.lastParseAt > PARSER_BURST_GAP_MS ? 1 : this.burst + 1;
    this.lastParseAt = now;
    const w = this.worker ?? (this.burst >= (this.o.minBurst ?? PARSER_WORKER_MIN_BURST) ? this.start() : null);
    if (!w || !this.ready) {
      this.counts.inline++;
      return inline(text, path);
    }
    this.holdOpen();
    const id = this.nextId++;
    return new Promise<FeatureState>((resolve, reject) => {
      this.pending.set(id, { text, path, resolve, reject });
      w.postMessage({ id, text, path } satisfies ParseRequest);
    });
  }

  /** Starts the worker (if it is not running) and resolves once it is ready: true, or false when parses stay here. */
  whenReady(): Promise<boolean> {
    if (!this.start()) return Promise.resolve(false);
    if (this.ready) return Promise.resolve(true);
    this.worker?.ref();
    return new Promise((r) => this.readyWaiters.push(r));
  }

  /** Ends the worker; parses asked for after this run here until the next one starts. */
  async dispose(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    this.drop(w);
    await w.terminate();
  }

  private start(): Worker | null {
    if (this.worker) return this.worker;
    if (this.failures >= MAX_WORKER_FAILURES) return null;
    const entry = (this.o.entry ?? workerEntry)();
    if (!entry) {
      // Neither the source nor a bundle next to main (a packaging mistake): parse here.
      this.failures = MAX_WORKER_FAILURES;
      return null;
    }
    let w: Worker;
    try {
      w = new Worker(entry.source, { eval: entry.eval });
    } catch {
      // The worker could not be created at all (no threads left): parse here; a later burst tries again.
      this.failures++;
      return null;
    }
    this.worker = w;
    this.ready = false;
    w.on('message', (m: ParseReply | { ready: true }) => {
      if ('ready' in m) {
        if (this.worker !== w) return;
        this.ready = true;
        for (const r of this.readyWaiters.splice(0)) r(true);
        this.settleIdle();
        return;
      }
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      this.counts.worker++;
      if ('state' in m) p.resolve(m.state);
      else if ('kind' in m.error) p.reject(new FeatureError(m.error.kind, m.error.detail, { ...(m.error.path !== null ? { path: m.error.path } : {}), ...(m.error.line !== null ? { line: m.error.line } : {}) }));
      else p.reject(new Error(m.error.message));
      this.settleIdle();
    });
    const failed = () => {
      if (this.worker !== w) return;
      this.failures++;
      this.drop(w);
    };
    // A crash or a load failure: what it had been asked is parsed here (drop), the next burst starts another.
    w.on('error', failed);
    w.on('exit', failed);
    this.settleIdle();
    return w;
  }

  /** Forgets `w`: its unanswered parses are done here, its waiters told to parse here. */
  private drop(w: Worker): void {
    if (this.worker !== w) return;
    this.worker = null;
    this.ready = false;
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    for (const r of this.readyWaiters.splice(0)) r(false);
    const left = [...this.pending.values()];
    this.pending.clear();
    for (const p of left) {
      this.counts.inline++;
      inline(p.text, p.path).then(p.resolve, p.reject);
    }
  }

  /** While parses wait, the worker keeps the process alive (a CLI list must not exit before its answer). */
  private holdOpen(): void {
    if (this.idle) clearTimeout(this.idle);
    this.idle = null;
    this.worker?.ref();
  }

  /** Nothing waits: the worker no longer keeps the process alive, and once loaded ends after PARSER_IDLE_MS. */
  private settleIdle(): void {
    const w = this.worker;
    if (!w || this.pending.size > 0 || this.readyWaiters.length > 0) return;
    w.unref();
    if (!this.ready) return;
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(() => {
      if (this.worker !== w || this.pending.size > 0) return;
      this.drop(w);
      void w.terminate();
    }, this.o.idleMs ?? PARSER_IDLE_MS);
    this.idle.unref();
  }
}

/** The one parser the scanner uses. */
export const stateParser = new StateParser();
