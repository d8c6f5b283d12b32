/**
 * The host process of the feature-runs memory bench: the app's services (as `serve` opens them,
 * without the HTTP front) in a process of their own, so its memory figures are the app's and
 * not the bench runner's or the scripted model server's. Driven by the bench over the IPC
 * channel of `fork`; it exits when that channel closes (the bench ended or died).
 */
import { AppServices } from '../../src-main/app/services';
import { silentLogger } from '../../src-main/platform/logger';
import { saveTestProfile } from '../integration/agents/harness';

export type HostRequest =
  | { type: 'init'; modelUrl: string; maxParallel: number }
  | { type: 'enqueue'; projectPath: string; slug: string }
  | { type: 'cancel'; projectPath: string; slug: string }
  | { type: 'memory' }
  | { type: 'running' };

export type HostMessage =
  | { type: 'ready' }
  | { type: 'enqueued'; slug: string; status: string }
  | { type: 'done'; slug: string; outcome: string; message: string | null }
  | { type: 'memory'; rss: number; heapUsed: number; heapTotal: number; external: number; arrayBuffers: number }
  | { type: 'running'; count: number }
  | { type: 'error'; message: string };

const dataDir = process.argv[2];
if (!dataDir || !process.send) throw new Error('feature-runs-host: run me with fork(), the data folder as the first argument');

const app = await AppServices.create({ dataDir, logger: silentLogger, platform: { runtime: 'browser' } });
const send = (m: HostMessage) => process.send!(m);
const gc = (globalThis as { gc?: () => void }).gc;

process.on('message', (raw) => {
  const m = raw as HostRequest;
  try {
    if (m.type === 'init') {
      // Short backoff: a retry must not be what keeps a run in flight.
      app.agents.backoff = { baseMs: 5, maxMs: 40 };
      saveTestProfile(app, m.modelUrl);
      app.featureRuns.setMaxParallel(m.maxParallel);
      send({ type: 'ready' });
    } else if (m.type === 'enqueue') {
      app.featureRuns.enqueue({ projectPath: m.projectPath, slug: m.slug }).then(
        ({ done, status }) => {
          send({ type: 'enqueued', slug: m.slug, status });
          void done.then((r) => send({ type: 'done', slug: m.slug, outcome: r.outcome, message: r.message }));
        },
        (e: unknown) => send({ type: 'error', message: `enqueue ${m.slug}: ${e instanceof Error ? e.message : String(e)}` }),
      );
    } else if (m.type === 'cancel') {
      app.featureRuns.cancel(m.projectPath, m.slug);
    } else if (m.type === 'memory') {
      // Collected first, so the figure is what the runs retain rather than garbage not yet reclaimed.
      gc?.();
      const u = process.memoryUsage();
      send({ type: 'memory', rss: u.rss, heapUsed: u.heapUsed, heapTotal: u.heapTotal, external: u.external, arrayBuffers: u.arrayBuffers });
    } else if (m.type === 'running') {
      send({ type: 'running', count: app.featureRuns.list().filter((r) => r.status === 'running').length });
    }
  } catch (e) {
    send({ type: 'error', message: e instanceof Error ? e.message : String(e) });
  }
});

process.on('disconnect', () => {
  app.dispose();
  process.exit(0);
});
