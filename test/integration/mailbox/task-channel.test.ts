/**
 * `mailbox.task.create` with a container: the contract takes the containers contract's types,
 * the handler writes them as the command file's keys, and what cannot be written is refused
 * with a clear message before any file exists.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AppServices } from '../../../src-main/app/services';
import { parseCommandFile } from '../../../src-main/mailbox/command-file';
import { startTestApp } from '../../support/app';
import { makeRepo } from '../../support/temp';

const ctx = { origin: 'test' as const, connectionId: 'c' };
let app: AppServices;
let cleanup: () => void;
let projectId: string;
const repo = makeRepo('fd-mbx-channel-');

beforeAll(async () => {
  const started = await startTestApp();
  app = started.app;
  cleanup = started.cleanup;
  projectId = (await app.projects.add(repo.path)).id;
}, 60_000);

afterAll(async () => {
  await app.mailbox.unwatch({ projectId });
  app.dispose();
  cleanup();
  repo.cleanup();
});

const call = (payload: unknown) => app.router.dispatch('mailbox.task.create', payload, ctx) as Promise<{ ok: true; value: { commandId: string; file: string } } | { ok: false; error: { code: string; message: string } }>;
const pendingFiles = () => readdirSync(join(app.mailbox.resolve({ projectId }).root, 'commands/pending')).filter((n) => n.endsWith('.md'));

describe('mailbox.task.create with a container', () => {
  it('writes the container settings as the command file’s keys', async () => {
    const r = await call({
      projectId,
      commandType: 'new',
      task: 'Train the model.',
      placement: 'container',
      // An engine that does not exist: the task the watcher then takes fails at once, without a model.
      container: { engine: 'no-such-engine', image: 'flightdeck-agent:cuda', gpus: { kind: 'ids', ids: ['0', 'GPU-3f1c'] }, limits: { memoryBytes: 512 * 1024 ** 2, cpus: 1.5, pids: 300 }, network: 'none' },
    });
    if (!r.ok) throw new Error(r.error.message);
    // Read before the watcher moves it (a file is taken only after it stayed unchanged for a while), else from processed/.
    const processed = join(r.value.file, '../../processed', basename(r.value.file));
    const text = readFileSync(existsSync(r.value.file) ? r.value.file : processed, 'utf8');
    const parsed = parseCommandFile(text);
    if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
    expect(parsed.command).toMatchObject({ id: r.value.commandId, placement: 'container', containerEngine: 'no-such-engine', image: 'flightdeck-agent:cuda', gpus: { kind: 'ids', ids: ['0', 'GPU-3f1c'] }, memoryBytes: 512 * 1024 ** 2, cpus: 1.5, pids: 300, network: 'none', project: projectId });
    expect(text).toContain('\nmemory: 512m\n');
  });

  it('refuses container settings without placement "container", naming the key, and writes nothing', async () => {
    const before = pendingFiles();
    const r = await call({ projectId, commandType: 'new', task: 'x', placement: 'host', container: { limits: { memoryBytes: 1024 ** 3 } } });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.code).toBe('invalid_input');
    expect(r.error.message).toContain('memory is a container setting, but this command says placement: host');
    expect(pendingFiles()).toEqual(before);
  });

  it.each<[string, unknown]>([
    ['a CPU count below the engine’s minimum', { limits: { cpus: 0 } }],
    ['an unknown network', { network: 'nat' }],
    ['a field the contract does not know', { keep: true }],
    ['a GPU id that is not one', { gpus: { kind: 'ids', ids: ['gpu0'] } }],
  ])('refuses %s at the contract', async (_, container) => {
    const r = await call({ projectId, commandType: 'new', task: 'x', placement: 'container', container });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe('invalid_input');
  });
});
