import { terminalSafe } from '../terminal-safe';
import { AppError, formatBytes, gpuUseText, type ManagedContainer } from '../../../src-preload/contract';
import { EventHub } from '../../bridge/event-hub';
import { ContainerService, settingsPlacementStore } from '../../containers/container-service';
import { SettingsService } from '../../settings/settings-service';
import { databasePath, openDatabase, type Database } from '../../store/db';
import { AGENT_IMAGE, buildImage } from '../../containers/images';
import { UsageError, type CliCommand, type CliContext } from '../command';

/**
 * Docker engines and Flightdeck's containers on them: list engines with what they offer, list
 * and sample this app's containers, reap orphans, build the agent image, add or remove an engine.
 */
export const containersCommand: CliCommand = {
  name: 'containers',
  summary: "Docker engines and agent containers: list engines, list containers, their stats and logs (the agent console's text), reap orphans, build the agent image.",
  usage: 'containers engines | ps | stats | logs SESSION | reap | image-build [--tag REF] [--context DIR] [--pull] | engine-add NAME HOST [--tls-verify] [--cert-dir DIR] | engine-remove NAME  [--engine NAME]',
  flags: { engine: true, tag: true, context: true, pull: false, 'tls-verify': false, 'cert-dir': true },
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    const engineName = typeof ctx.flags.engine === 'string' ? ctx.flags.engine : undefined;
    // The containers carry their own labels and the user's engines are a file in the data folder;
    // ps and reap also read the stored placements, where Keep after quit is (a reap that went by
    // the label alone removed a container the user chose to keep).
    let db: Database | null = null;
    if (sub === 'ps' || sub === 'reap') db = openDatabase(databasePath(ctx.dataDir));
    const svc = new ContainerService({ dataDir: ctx.dataDir, logger: ctx.logger, ...(db ? { placements: settingsPlacementStore(new SettingsService(db, new EventHub())) } : {}) });
    try {
      return await subcommand(ctx, svc, sub, rest, engineName);
    } finally {
      db?.close();
    }
  },
};

async function subcommand(ctx: CliContext, svc: ContainerService, sub: string | undefined, rest: string[], engineName: string | undefined): Promise<number> {
  const noArgs = () => {
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  };
  switch (sub) {
    case 'engines': {
      noArgs();
      const all = (await svc.engineInfos()).filter((e) => !engineName || e.spec.name === engineName);
      if (engineName && all.length === 0) throw new AppError('not_found', `There is no Docker engine named "${engineName}".`);
      if (ctx.json) ctx.out(JSON.stringify(all));
      else if (all.length === 0) ctx.out('No Docker engine found. Install Docker (or Podman), set DOCKER_HOST, or add one: containers engine-add NAME tcp://HOST:2376 | ssh://USER@HOST');
      else {
        for (const e of all) {
          if (e.info) ctx.out(`${e.spec.name}  ${e.spec.host}  ${e.info.product} ${e.info.version} (API ${e.info.apiVersion})  ${e.info.os} ${e.info.arch}  ${e.info.cpus} CPUs  ${formatBytes(e.info.memoryBytes)}  NVIDIA runtime: ${e.info.nvidia ? 'yes' : 'no'}${e.info.local ? '' : '  remote'}`);
          else ctx.out(`${e.spec.name}  ${e.spec.host}  unreachable: ${e.error?.message ?? ''}`);
        }
      }
      return all.some((e) => e.info) ? 0 : 1;
    }
    case 'ps': {
      noArgs();
      const unreachable: Array<{ engine: string; message: string }> = [];
      const list = await svc.list(engineName, { unreachable });
      // An engine that did not answer is not an engine without containers: say so, exit 1.
      for (const u of unreachable) ctx.err(`error: the engine ${u.engine} is unreachable, so its containers are not listed: ${u.message}`);
      if (ctx.json) ctx.out(JSON.stringify(list));
      else if (list.length === 0 && unreachable.length === 0) ctx.out('No Flightdeck containers.');
      else if (list.length === 0) ctx.out('No Flightdeck containers on the engines that answered.');
      else for (const c of list) ctx.out(`${c.name}  ${c.engine}  ${c.state}${orphanText(c)}  ${c.status}  session ${c.sessionId}${c.projectId ? `  project ${c.projectId}` : ''}${c.featureId ? `  feature ${c.featureId}` : ''}${c.keep ? '  kept' : ''}  ${c.image}`);
      return unreachable.length > 0 ? 1 : 0;
    }
    case 'stats': {
      noArgs();
      const running = (await svc.list(engineName)).filter((c) => c.state === 'running');
      const rows = [];
      for (const c of running) rows.push({ ...c, stats: await svc.statsOf(c) });
      if (ctx.json) ctx.out(JSON.stringify(rows));
      else if (rows.length === 0) ctx.out('No running Flightdeck containers.');
      else for (const r of rows) ctx.out(`${r.name}  CPU ${r.stats.cpuPercent.toFixed(1)}%  memory ${formatBytes(r.stats.memoryBytes)}${r.stats.memoryLimitBytes ? ` / ${formatBytes(r.stats.memoryLimitBytes)}` : ''}  ${r.stats.pids} processes${r.stats.gpus.map((g) => `  ${gpuUseText(g)}`).join('')}`);
      return 0;
    }
    case 'logs': {
      const [session, ...more] = rest;
      if (!session || more.length > 0) throw new UsageError('containers logs needs the SESSION id (or container name) of one container');
      const c = (await svc.list(engineName)).find((x) => x.sessionId === session || x.name === session);
      if (!c) throw new AppError('not_found', `No Flightdeck container belongs to session "${session}"${engineName ? ` on ${engineName}` : ''}. List them with: containers ps`);
      const text = await svc.logsOf(c);
      // What the container printed: on a terminal, only its text and colours (terminal-safe.ts).
      const shown = process.stdout.isTTY ? terminalSafe(text) : text;
      ctx.out(ctx.json ? JSON.stringify({ name: c.name, engine: c.engine, text }) : shown.replace(/\n$/, ''));
      return 0;
    }
    case 'reap': {
      noArgs();
      const removed = await svc.reap(engineName);
      if (ctx.json) ctx.out(JSON.stringify(removed));
      else ctx.out(removed.length === 0 ? 'No orphaned containers.' : `Removed ${removed.length} orphaned container(s): ${removed.map((c) => c.name).join(', ')}`);
      return 0;
    }
    case 'image-build': {
      noArgs();
      const tag = typeof ctx.flags.tag === 'string' ? ctx.flags.tag : AGENT_IMAGE;
      let lastStep = 0;
      const r = await buildImage(svc.engine(engineName), {
        tag,
        ...(typeof ctx.flags.context === 'string' ? { context: ctx.flags.context } : {}),
        // Asked for by name: the engine may pull the Dockerfile's base image.
        ...(ctx.flags.pull === true ? { pullBase: true } : {}),
        signal: ctx.signal,
        onProgress: (p) => {
          // Progress goes to stderr so --json stdout stays one JSON value.
          if (p.step !== lastStep) ctx.err(p.line);
          lastStep = p.step;
        },
      });
      ctx.out(ctx.json ? JSON.stringify(r) : `Built ${r.tag} (${r.imageId}).`);
      return 0;
    }
    case 'engine-add': {
      const [name, host, ...more] = rest;
      if (!name || !host || more.length > 0) throw new UsageError('containers engine-add needs NAME and HOST (tcp://HOST:PORT or ssh://USER@HOST)');
      const tlsVerify = ctx.flags['tls-verify'] === true;
      const certDir = typeof ctx.flags['cert-dir'] === 'string' ? ctx.flags['cert-dir'] : null;
      const spec = svc.addEngine({ name, host, tls: tlsVerify || certDir ? { verify: tlsVerify, certDir } : null });
      ctx.out(ctx.json ? JSON.stringify(spec) : `Added the engine ${spec.name} (${spec.host}). Check it with: containers engines --engine ${spec.name}`);
      return 0;
    }
    case 'engine-remove': {
      const [name, ...more] = rest;
      if (!name || more.length > 0) throw new UsageError('containers engine-remove needs the NAME of an engine you added');
      const removed = svc.removeEngine(name);
      if (!removed) throw new AppError('not_found', `There is no added engine named "${name}".`);
      ctx.out(ctx.json ? JSON.stringify({ removed: name }) : `Removed the engine ${name}.`);
      return 0;
    }
    case undefined:
      throw new UsageError('containers needs a subcommand');
    default:
      throw new UsageError(`unknown containers subcommand "${sub}"`);
  }
}

/** Whose the container is when its owner is gone: a plain "running" hid that nothing drives it any more. */
function orphanText(c: ManagedContainer): string {
  if (!c.ownerGone) return '';
  const owner = c.ownerPid !== null ? `Flightdeck process ${c.ownerPid}` : 'Flightdeck process';
  return ` (orphaned: its owner, ${owner}, is gone; ${c.keep ? 'kept, so reap leaves it' : '"containers reap" removes it'})`;
}
