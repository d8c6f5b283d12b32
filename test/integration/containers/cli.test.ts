/**
 * `containers …` on the real engine: engines with their facts, an added engine that is down,
 * ps/stats/reap of this data folder's containers, and image-build of a small local image.
 */
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EventHub } from '../../../src-main/bridge/event-hub';
import { ContainerService, settingsPlacementStore } from '../../../src-main/containers/container-service';
import { SettingsService } from '../../../src-main/settings/settings-service';
import { databasePath, openDatabase } from '../../../src-main/store/db';
import { removeImage } from '../../../src-main/containers/images';
import { silentLogger } from '../../../src-main/platform/logger';
import { execFileSync } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { startModelServer } from '../../fixtures/model-server/index.js';
import { cli } from '../../support/cli';
import { ensureTestImage } from '../../support/container-image';
import { waitFor } from '../../support/processes';
import { makeRepo, tempDir } from '../../support/temp';

const ROOT = resolve(__dirname, '../../..');
const dirs: Array<{ cleanup(): void }> = [];
let image: string;
let data: string;

beforeAll(() => {
  image = ensureTestImage();
  const d = tempDir('fd-ctr-cli-');
  dirs.push(d);
  data = d.path;
}, 120_000);

afterAll(async () => {
  await new ContainerService({ dataDir: data, logger: silentLogger }).reap();
  for (const d of dirs) d.cleanup();
});

describe('containers CLI', () => {
  it('lists engines with version, CPUs, memory and the NVIDIA runtime; an added dead engine says why', async () => {
    const add = await cli('containers', 'engine-add', 'gone', 'unix:///tmp/flightdeck-gone.sock', '--data-dir', data);
    expect(add.code).toBe(0);
    const r = await cli('containers', 'engines', '--json', '--data-dir', data);
    expect(r.code).toBe(0);
    const engines = JSON.parse(r.out) as Array<{ spec: { name: string }; info: { cpus: number; memoryBytes: number; nvidia: boolean; apiVersion: string } | null; error: { message: string } | null }>;
    const local = engines.find((e) => e.spec.name === 'local')!;
    expect(local.info!.cpus).toBeGreaterThan(0);
    expect(local.info!.memoryBytes).toBeGreaterThan(0);
    expect(local.info!.nvidia).toBe(false);
    const gone = engines.find((e) => e.spec.name === 'gone')!;
    expect(gone.info).toBeNull();
    expect(gone.error!.message).toMatch(/not reachable.*Start Docker/);
    const text = await cli('containers', 'engines', '--engine', 'local', '--data-dir', data);
    expect(text.out).toMatch(/^local {2}unix:\/\/\/var\/run\/docker\.sock {2}docker \S+ \(API 1\.\d+\) .* \d+ CPUs .* NVIDIA runtime: no$/);
    expect((await cli('containers', 'engine-add', 'gone', 'tcp://h:1', '--data-dir', data)).code).not.toBe(0);
    expect((await cli('containers', 'engine-remove', 'gone', '--data-dir', data)).code).toBe(0);
  }, 60_000);

  it('ps against an engine that does not answer says so and exits 1, instead of "No Flightdeck containers"', async () => {
    expect((await cli('containers', 'engine-add', 'down', 'unix:///tmp/flightdeck-down.sock', '--data-dir', data)).code).toBe(0);
    try {
      const all = await cli('containers', 'ps', '--data-dir', data);
      expect(all.code).toBe(1);
      expect(all.err).toMatch(/^error: the engine down is unreachable, so its containers are not listed: .*not reachable/);
      expect(all.out).not.toBe('No Flightdeck containers.');
      const one = await cli('containers', 'ps', '--engine', 'down', '--data-dir', data);
      expect(one.code).toBe(1);
      expect(one.err).toMatch(/not reachable/);
      expect(one.out).toBe('');
    } finally {
      expect((await cli('containers', 'engine-remove', 'down', '--data-dir', data)).code).toBe(0);
    }
    // With every engine answering, an empty list is the plain answer again.
    const ok = await cli('containers', 'ps', '--engine', 'local', '--data-dir', data);
    expect(ok.code).toBe(0);
  }, 60_000);

  it('ps, stats and reap a container whose process was killed', async () => {
    const wt = tempDir('fd-ctr-cli-wt-');
    dirs.push(wt);
    const child = spawn(process.execPath, ['--import', 'tsx', 'test/fixtures/containers/place-and-hang.ts', data, wt.path, image, 'ses_cli'], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (b: Buffer) => (out += b.toString()));
    await waitFor(() => out.includes('\n'), 'the container id', 60_000, 100);
    const ps = await cli('containers', 'ps', '--data-dir', data);
    expect(ps.out).toMatch(/^flightdeck-ses_cli {2}local {2}running .* session ses_cli /);
    // Its owner is alive: not an orphan.
    expect(ps.out).not.toContain('orphaned');
    expect((JSON.parse((await cli('containers', 'ps', '--json', '--data-dir', data)).out) as Array<{ ownerGone: boolean; ownerPid: number }>)[0]).toMatchObject({ ownerGone: false, ownerPid: child.pid });
    const stats = JSON.parse((await cli('containers', 'stats', '--json', '--data-dir', data)).out) as Array<{ sessionId: string; stats: { memoryLimitBytes: number } }>;
    expect(stats.map((s) => [s.sessionId, s.stats.memoryLimitBytes])).toEqual([['ses_cli', 256 * 1024 * 1024]]);
    // The log is the agent console's text, plain: the command and its output (written asynchronously, hence the retries).
    let logs = '';
    for (let i = 0; i < 20 && !logs.includes('from-the-agent\nfrom-the-agent'); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 250));
      logs = (await cli('containers', 'logs', 'ses_cli', '--data-dir', data)).out;
    }
    expect(logs).toContain('$ echo from-the-agent\nfrom-the-agent');
    expect(logs).not.toContain('\x1b[');
    const none = await cli('containers', 'logs', 'ses_nope', '--data-dir', data);
    expect(none.code).not.toBe(0);
    expect(none.err).toContain('No Flightdeck container belongs to session "ses_nope"');
    expect((await cli('containers', 'reap', '--data-dir', data)).out).toBe('No orphaned containers.');
    // Keep after quit, turned on in the app (the stored placement; the container's label still says no).
    const keep = (on: boolean) => {
      const db = openDatabase(databasePath(data));
      try {
        settingsPlacementStore(new SettingsService(db, new EventHub())).save({ ses_cli: { image, keep: on } });
      } finally {
        db.close();
      }
    };
    keep(true);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect((await cli('containers', 'reap', '--data-dir', data)).out).toBe('No orphaned containers.');
    expect((await cli('containers', 'ps', '--data-dir', data)).out).toMatch(/^flightdeck-ses_cli {2}local {2}running .* session ses_cli {2}kept /);
    // Not a plain "running": whose it is, and that its owner is gone.
    expect((await cli('containers', 'ps', '--data-dir', data)).out).toContain(`running (orphaned: its owner, Flightdeck process ${child.pid}, is gone; kept, so reap leaves it)`);
    keep(false);
    expect((await cli('containers', 'ps', '--data-dir', data)).out).toContain(`running (orphaned: its owner, Flightdeck process ${child.pid}, is gone; "containers reap" removes it)`);
    expect((await cli('containers', 'reap', '--data-dir', data)).out).toBe('Removed 1 orphaned container(s): flightdeck-ses_cli');
    expect((await cli('containers', 'ps', '--data-dir', data)).out).toBe('No Flightdeck containers.');
  }, 90_000);

  it('image-build builds from a context folder and reports steps on stderr', async () => {
    const ctxDir = tempDir('fd-ctr-cli-ctx-');
    dirs.push(ctxDir);
    writeFileSync(join(ctxDir.path, 'Dockerfile'), `FROM ${image}\nRUN echo ok > /ok\n`);
    const tag = `flightdeck-test-cli-build:${process.pid}`;
    try {
      const r = await cli('containers', 'image-build', '--context', ctxDir.path, '--tag', tag, '--json', '--data-dir', data);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ tag });
      expect(r.err).toContain('Step 2/2 : RUN echo ok > /ok');
      const bad = await cli('containers', 'frobnicate', '--data-dir', data);
      expect(bad.code).toBe(2);
    } finally {
      const { Engine } = await import('../../../src-main/containers/engines');
      await removeImage(new Engine({ name: 'local', source: 'default', host: 'unix:///var/run/docker.sock', tls: null }), tag).catch(() => undefined);
    }
  }, 120_000);

  it('chat --placement container runs the bash tool in a container and removes it after', async () => {
    const server = await startModelServer({ script: [{ blocks: [{ type: 'tool_use', name: 'bash', input: { command: 'echo "in $(hostname) as $(id -u)" > where.txt' } }] }, { blocks: [{ type: 'text', text: 'Done.' }] }] });
    const repo = makeRepo('fd-ctr-chat-');
    dirs.push(repo);
    execFileSync('chown', ['-R', '1000:1000', repo.path]);
    process.env.FD_CTR_KEY = 'sk-ctr-cli-0123456789';
    try {
      expect((await cli('profiles', 'set', 'local', '--base-url', server.url, '--model', 'scripted', '--api-key-env', 'FD_CTR_KEY', '--default', '--data-dir', data)).code).toBe(0);
      expect((await cli('chat', '--cwd', repo.path, '--gpus', 'all', '--data-dir', data, 'x')).code).toBe(2);
      expect((await cli('chat', '--cwd', repo.path, '--placement', 'elsewhere', '--data-dir', data, 'x')).code).toBe(2);
      const r = await cli('chat', '--cwd', repo.path, '--placement', 'container', '--image', image, '--approve', 'allow', '--data-dir', data, 'where are you');
      expect(r.code).toBe(0);
      expect(readFileSync(join(repo.path, 'where.txt'), 'utf8')).toMatch(/^in [0-9a-f]{12} as 1000\n$/);
      expect(statSync(join(repo.path, 'where.txt')).uid).toBe(1000);
      expect((await cli('containers', 'ps', '--data-dir', data)).out).toBe('No Flightdeck containers.');
    } finally {
      delete process.env.FD_CTR_KEY;
      await server.close();
    }
  }, 120_000);
});
