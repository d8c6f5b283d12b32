/**
 * Parsing state files in the worker thread gives what parsing them on the main thread gives: the
 * same state for a good file, the same error (kind, message, path, line) for a broken one. While
 * the worker loads, when it cannot start, and when it dies with parses asked of it, they are done
 * on the main thread instead, with the same results.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { FeatureError } from '../../../src-main/features/errors';
import { newFeatureState, parseState, serializeState } from '../../../src-main/features/state';
import { StateParser } from '../../../src-main/features/state-parser';

const PATH = '/repo/.trees/alpha/.flightdeck/alpha/state.yml';
const plain = serializeState({
  ...newFeatureState({ slug: 'alpha', now: new Date('2026-02-10T10:30:00Z'), worktreePath: '.trees/alpha', branch: 'feature/alpha', baseBranch: 'main', devPhases: ['types', 'api'] }),
  status: 'in_progress',
});
/** A good state outside the fast loader's subset (a `!` in a comment): the full parser's, in the worker or here. */
const good = `${plain}# edited by hand!\n`;
/** Each fails differently: YAML syntax, a duplicate key, an unknown key, a wrong type, an empty file, a slug the schema refuses. */
const broken = [
  'feature: [unclosed\n',
  good.replace('status: in_progress', 'status: in_progress\nstatus: failed'),
  good.replace('status: in_progress', 'status: in_progress\nsurprise: 1'),
  good.replace('current_phase: 0', 'current_phase: -3'),
  '',
  good.replace('slug: alpha', 'slug: Not A Slug'),
];

/** What a parse gave: the state, or the error's kind, message, path and line. */
async function outcome(p: Promise<unknown>): Promise<unknown> {
  try {
    return { state: await p };
  } catch (e) {
    expect(e).toBeInstanceOf(FeatureError);
    const f = e as FeatureError;
    return { kind: f.kind, message: f.message, path: f.path, line: f.line };
  }
}
const onMainThread = (text: string) => outcome(Promise.resolve().then(() => parseState(text, PATH)));

const parsers: StateParser[] = [];
afterEach(async () => {
  await Promise.all(parsers.splice(0).map((p) => p.dispose()));
});
function parser(o: ConstructorParameters<typeof StateParser>[0] = {}): StateParser {
  const p = new StateParser(o);
  parsers.push(p);
  return p;
}

describe('state parser worker', () => {
  it('gives the same state and the same errors as parsing on the main thread', async () => {
    const p = parser();
    expect(await p.whenReady()).toBe(true);
    for (const text of [good, ...broken]) expect(await outcome(p.parse(text, PATH))).toEqual(await onMainThread(text));
    // Every one of them went to the worker.
    expect(p.counts).toEqual({ fast: 0, worker: broken.length + 1, inline: 0 });
    // Many at once come back each to its own caller.
    const texts = Array.from({ length: 40 }, (_, i) => good.replace('types', `types${i}`));
    const states = (await Promise.all(texts.map((t) => p.parse(t, PATH)))) as Array<{ phases: Array<{ name: string }> }>;
    expect(states.map((s) => s.phases[0]!.name)).toEqual(texts.map((_, i) => `types${i}`));
  }, 30_000);

  it('parses a few files on the main thread without starting a worker; a burst starts one', async () => {
    const p = parser({ minBurst: 5 });
    for (let i = 0; i < 4; i++) expect(await outcome(p.parse(good, PATH))).toEqual(await onMainThread(good));
    expect(p.running).toBe(false);
    // The fifth in a row starts the worker, and is parsed here while it loads.
    expect(await outcome(p.parse(good, PATH))).toEqual(await onMainThread(good));
    expect(p.running).toBe(true);
    expect(p.counts).toEqual({ fast: 0, worker: 0, inline: 5 });
    expect(await p.whenReady()).toBe(true);
    await p.parse(good, PATH);
    expect(p.counts.worker).toBe(1);
  }, 30_000);

  it('reads plain state files with the fast loader here: a burst of them starts no worker', async () => {
    const p = parser({ minBurst: 5 });
    for (let i = 0; i < 40; i++) expect(await outcome(p.parse(plain, PATH))).toEqual(await onMainThread(plain));
    expect(p.running).toBe(false);
    expect(p.counts).toEqual({ fast: 40, worker: 0, inline: 0 });
    // Files the fast loader leaves to the full parser (and broken ones) still make a burst.
    for (const text of [good, ...broken.slice(0, 4)]) expect(await outcome(p.parse(text, PATH))).toEqual(await onMainThread(text));
    expect(p.running).toBe(true);
  }, 30_000);

  it('parses on the main thread while the worker loads, and when none can start', async () => {
    const loading = parser({ minBurst: 1 });
    // The first parse starts the worker and does not wait for it.
    expect(await outcome(loading.parse(good, PATH))).toEqual(await onMainThread(good));
    expect(loading.counts.inline).toBe(1);
    expect(loading.running).toBe(true);

    const none = parser({ minBurst: 1, entry: () => null });
    for (const text of [good, broken[0]!]) expect(await outcome(none.parse(text, PATH))).toEqual(await onMainThread(text));
    expect(none.counts).toEqual({ fast: 0, worker: 0, inline: 2 });
    expect(await none.whenReady()).toBe(false);
  }, 30_000);

  it('a worker that fails to load or dies leaves its parses to the main thread', async () => {
    const failing = parser({ entry: () => ({ source: 'throw new Error("cannot load")', eval: true }) });
    expect(await failing.whenReady()).toBe(false);
    expect(await outcome(failing.parse(good, PATH))).toEqual(await onMainThread(good));

    // A worker that says it is ready and then exits without answering.
    const dying = parser({ entry: () => ({ source: `const { parentPort } = require('node:worker_threads'); parentPort.postMessage({ ready: true }); parentPort.on('message', () => process.exit(3));`, eval: true }) });
    expect(await dying.whenReady()).toBe(true);
    const answers = await Promise.all([dying.parse(good, PATH), dying.parse(broken[0]!, PATH)].map(outcome));
    expect(answers).toEqual([await onMainThread(good), await onMainThread(broken[0]!)]);
    expect(dying.counts.inline).toBe(2);
  }, 30_000);

  it('after three workers failed, parses stay on the main thread and no fourth is started', async () => {
    let started = 0;
    const failing = parser({
      minBurst: 1,
      entry: () => {
        started++;
        return { source: 'throw new Error("cannot load")', eval: true };
      },
    });
    for (let i = 0; i < 3; i++) expect(await failing.whenReady()).toBe(false);
    expect(started).toBe(3);
    // A burst no longer starts one: each parse is done here, with the same result.
    for (const text of [good, broken[0]!]) expect(await outcome(failing.parse(text, PATH))).toEqual(await onMainThread(text));
    expect(await failing.whenReady()).toBe(false);
    expect(failing.running).toBe(false);
    expect(started).toBe(3);
    expect(failing.counts).toEqual({ fast: 0, worker: 0, inline: 2 });
  }, 30_000);

  it('ends an idle worker and starts another for the next burst', async () => {
    const p = parser({ idleMs: 50, minBurst: 1 });
    expect(await p.whenReady()).toBe(true);
    await p.parse(good, PATH);
    await new Promise((r) => setTimeout(r, 300));
    // Ended: the next parse starts a new one (and is done here meanwhile).
    expect(await outcome(p.parse(good, PATH))).toEqual(await onMainThread(good));
    expect(p.counts.inline).toBe(1);
    expect(await p.whenReady()).toBe(true);
    await p.parse(good, PATH);
    expect(p.counts.worker).toBe(2);
  }, 30_000);
});
