import { listBackups, restoreBackup, resolveBackup, takeBackup } from '../../store/backups';
import { databasePath, openDatabase } from '../../store/db';
import { quickCheck } from '../../store/integrity';
import { UsageError, type CliCommand } from '../command';

/**
 * The database's own maintenance. It works on the file directly, without starting the app, so
 * it still works when the database is too damaged for Flightdeck to start.
 */
export const dbCommand: CliCommand = {
  name: 'db',
  summary: 'Check the database, take a backup, list the automatic backups, or restore one (the replaced file is kept).',
  usage: 'db check | db backup | db backups | db restore [--latest | FILE]',
  flags: { latest: false },
  async run(ctx) {
    const [sub, file, ...rest] = ctx.args;
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const dbPath = databasePath(ctx.dataDir);
    switch (sub) {
      case 'check': {
        const db = openDatabase(dbPath);
        try {
          const report = quickCheck(db, dbPath, { budgetMs: Number.POSITIVE_INFINITY });
          if (ctx.json) ctx.out(JSON.stringify({ path: dbPath, ...report }));
          else if (report.ok) ctx.out(`${dbPath}: ok`);
          else {
            ctx.out(`${dbPath} is damaged:`);
            for (const p of report.problems) ctx.out(`  ${p}`);
            ctx.out(`Restore the latest automatic backup with: flightdeck db restore --latest`);
          }
          return report.ok ? 0 : 1;
        } finally {
          db.close();
        }
      }
      case 'backup': {
        const db = openDatabase(dbPath);
        try {
          const b = await takeBackup(db, ctx.dataDir);
          ctx.out(ctx.json ? JSON.stringify(b) : `Backed up to ${b.file}`);
          return 0;
        } finally {
          db.close();
        }
      }
      case 'backups': {
        const list = listBackups(ctx.dataDir);
        if (ctx.json) ctx.out(JSON.stringify(list));
        else if (list.length === 0) ctx.out('No automatic backup yet (one is taken each day while Flightdeck runs).');
        else for (const b of list) ctx.out(`${new Date(b.takenAt).toISOString()}  ${String(b.bytes).padStart(10)} bytes  ${b.file}`);
        return 0;
      }
      case 'restore': {
        if (file && ctx.flags.latest === true) throw new UsageError('give either --latest or a FILE, not both');
        const backup = resolveBackup(ctx.dataDir, file);
        const r = await restoreBackup(dbPath, backup.file);
        if (ctx.json) ctx.out(JSON.stringify(r));
        else {
          ctx.out(`Restored ${dbPath} from ${r.restoredFrom} (taken ${new Date(backup.takenAt).toISOString()}).`);
          if (r.keptAs) ctx.out(`The replaced database is kept at ${r.keptAs}.`);
        }
        return 0;
      }
      case undefined:
        throw new UsageError('db needs a subcommand');
      default:
        throw new UsageError(`unknown db subcommand "${sub}"`);
    }
  },
};
