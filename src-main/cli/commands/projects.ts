import type { Project } from '../../../src-preload/contract';
import { UserPath, ProjectId } from '../../../src-preload/contract';
import { UsageError, type CliCommand } from '../command';

function describe(p: Project): string {
  const git = p.git
    ? `${p.git.detached ? 'detached at ' : ''}${p.git.branch ?? '(no commits)'}${p.git.dirty ? `, ${p.git.changedFiles} changed` : ', clean'}, ${p.git.worktreeCount} worktree${p.git.worktreeCount === 1 ? '' : 's'}`
    : (p.problem ?? 'state unknown');
  return `${p.id}  ${p.name}  ${p.path}  (${git})`;
}

export const projectsCommand: CliCommand = {
  name: 'projects',
  summary: 'List, add or remove projects (local git repositories).',
  usage: 'projects list | projects add PATH | projects remove ID',
  async run(ctx) {
    const [sub, arg, ...rest] = ctx.args;
    if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
    const app = await ctx.openApp();
    switch (sub) {
      case undefined:
      case 'list': {
        const list = await app.projects.refresh();
        if (ctx.json) ctx.out(JSON.stringify(list));
        else if (list.length === 0) ctx.out('No projects yet. Add one with: flightdeck projects add /path/to/repo');
        else for (const p of list) ctx.out(describe(p));
        return 0;
      }
      case 'add': {
        if (!arg) throw new UsageError('projects add needs a PATH');
        const path = UserPath.safeParse(arg);
        if (!path.success) throw new UsageError(path.error.issues[0]?.message ?? 'invalid path');
        const p = await app.projects.add(path.data);
        ctx.out(ctx.json ? JSON.stringify(p) : `Added ${describe(p)}`);
        return 0;
      }
      case 'remove': {
        if (!arg) throw new UsageError('projects remove needs an ID (see "projects list")');
        const id = ProjectId.safeParse(arg);
        if (!id.success) throw new UsageError(`"${arg}" is not a project id`);
        const removed = app.projects.remove(id.data);
        if (ctx.json) ctx.out(JSON.stringify({ removed }));
        else ctx.out(removed ? 'Removed (the repository itself was not touched).' : 'No project with that id.');
        return removed ? 0 : 1;
      }
      default:
        throw new UsageError(`unknown subcommand "${sub}"`);
    }
  },
};
