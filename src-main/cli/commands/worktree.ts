import { resolve } from 'node:path';
import { WorktreeManager, shortPath } from '../../worktrees/worktree-manager';
import { AppError } from '../../../src-preload/contract';
import { worktreeSetupStatus } from '../../worktrees/setup-service';
import { UsageError, type CliCommand } from '../command';
import { followSetup, setupLine } from './setup-follow';

/**
 * Feature worktrees of one repository, without starting the app: it works on the repository's
 * git directly, so it also works while Flightdeck runs (git writes are serialized per repository
 * inside each process, and git's own lock files between processes).
 */
export const worktreeCommand: CliCommand = {
  name: 'worktree',
  summary: 'List the worktrees of a repository (with their setup state), remove one (archived first, never losing work), restore one from its archive, or run its setup again.',
  usage: 'worktree list | worktree remove SLUG [--force] | worktree restore SLUG | worktree setup SLUG  [--repo DIR]',
  flags: { repo: true, force: false },
  async run(ctx) {
    const [sub, slug, ...rest] = ctx.args;
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const repo = resolve(typeof ctx.flags.repo === 'string' ? ctx.flags.repo : process.cwd());
    if (ctx.flags.force === true && sub !== 'remove') throw new UsageError('--force applies to worktree remove only');
    const manager = new WorktreeManager();
    manager.start();
    try {
      switch (sub) {
        case 'list': {
          if (slug !== undefined) throw new UsageError(`unexpected argument: ${slug}`);
          const root = await manager.repoRoot(repo);
          const list = (await manager.list(root)).map((e) => ({ ...e, setup: e.missing ? null : worktreeSetupStatus(e.path) }));
          if (ctx.json) ctx.out(JSON.stringify(list));
          else if (list.length === 0) ctx.out(`No worktrees in ${root}.`);
          else {
            for (const e of list) {
              const setup = e.setup ? `${setupLine(e.setup)}${['failed', 'cancelled', 'interrupted'].includes(e.setup.state) ? ` — "worktree setup ${e.slug}" runs it again` : ''}` : null;
              const notes = [e.managed ? null : 'made outside Flightdeck', e.missing ? `folder missing — "worktree remove ${e.slug}" prunes it` : null, e.locked ? `locked${e.lockReason ? `: ${e.lockReason}` : ''}` : null, setup].filter(Boolean);
              ctx.out(`${e.slug}  ${e.branch ?? `(detached ${e.head?.slice(0, 7) ?? ''})`}  ${shortPath(root, e.path)}${notes.length ? `  [${notes.join('; ')}]` : ''}`);
            }
          }
          return 0;
        }
        case 'remove': {
          if (!slug) throw new UsageError('worktree remove needs the SLUG of the worktree');
          const r = await manager.remove(repo, slug, { force: ctx.flags.force === true });
          if (ctx.json) ctx.out(JSON.stringify(r));
          else {
            ctx.out(`Removed the worktree ${slug} (${r.path})${r.branchDeleted ? ` and its branch ${r.archive.branch}` : ''}.`);
            for (const line of r.saved) ctx.out(`  saved in the archive: ${line}`);
            ctx.out(`Archived as ${r.archive.ref}; bring it back with: worktree restore ${slug}`);
          }
          return 0;
        }
        case 'restore': {
          if (!slug) throw new UsageError('worktree restore needs the SLUG of the worktree');
          const r = await manager.restore(repo, slug);
          if (ctx.json) ctx.out(JSON.stringify(r));
          else {
            ctx.out(`Restored the worktree ${slug} at ${r.entry.path} on branch ${r.entry.branch ?? '(detached)'} from ${r.archive.ref}.`);
            if (r.reappliedDirty) ctx.out('Its uncommitted changes and untracked files are back as uncommitted changes.');
          }
          return 0;
        }
        case 'setup': {
          if (!slug) throw new UsageError('worktree setup needs the SLUG of the worktree');
          const root = await manager.repoRoot(repo);
          const entry = (await manager.list(root)).find((e) => e.slug === slug && !e.missing);
          if (!entry) throw new AppError('not_found', `There is no worktree "${slug}" in ${root} (see: worktree list).`, { slug });
          // The app's services: the trust check decides whether the repository's setup may run, the sandbox and terminals run it.
          const app = await ctx.openApp();
          await app.worktreeSetups.rerun(root, entry.path);
          const end = await followSetup(ctx, app, entry.path);
          if (ctx.json) ctx.out(JSON.stringify({ setup: end }));
          else if (end?.state === 'done') ctx.out(`The setup of ${slug} is done (${end.commands.length} command${end.commands.length === 1 ? '' : 's'}).`);
          return end?.state === 'done' ? 0 : 1;
        }
        case undefined:
          throw new UsageError('worktree needs a subcommand');
        default:
          throw new UsageError(`unknown worktree subcommand "${sub}"`);
      }
    } finally {
      manager.dispose();
    }
  },
};
