import { resolve } from 'node:path';
import { WorktreeManager, shortPath } from '../../worktrees/worktree-manager';
import { UsageError, type CliCommand } from '../command';

/**
 * Feature worktrees of one repository, without starting the app: it works on the repository's
 * git directly, so it also works while Flightdeck runs (git writes are serialized per repository
 * inside each process, and git's own lock files between processes).
 */
export const worktreeCommand: CliCommand = {
  name: 'worktree',
  summary: 'List the worktrees of a repository, remove one (archived first, never losing work), or restore one from its archive.',
  usage: 'worktree list | worktree remove SLUG [--force] | worktree restore SLUG  [--repo DIR]',
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
          const list = await manager.list(root);
          if (ctx.json) ctx.out(JSON.stringify(list));
          else if (list.length === 0) ctx.out(`No worktrees in ${root}.`);
          else {
            for (const e of list) {
              const notes = [e.managed ? null : 'made outside Flightdeck', e.missing ? `folder missing — "worktree remove ${e.slug}" prunes it` : null, e.locked ? `locked${e.lockReason ? `: ${e.lockReason}` : ''}` : null].filter(Boolean);
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
