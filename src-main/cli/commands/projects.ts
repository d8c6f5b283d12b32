import { createInterface } from 'node:readline/promises';
import type { Project, TrustStatus } from '../../../src-preload/contract';
import { UserPath, ProjectId } from '../../../src-preload/contract';
import { AppError } from '../../../src-preload/contract';
import { repositoryPrograms } from '../../git/git';
import { programEntry } from '../../git/repo-programs';
import { UsageError, type CliCommand, type CliContext } from '../command';
import { trustLines } from './trust-text';

function describe(p: Project): string {
  const git = p.git
    ? `${p.git.detached ? 'detached at ' : ''}${p.git.branch ?? '(no commits)'}${p.git.dirty ? `, ${p.git.changedFiles} changed` : ', clean'}, ${p.git.worktreeCount} worktree${p.git.worktreeCount === 1 ? '' : 's'}`
    : (p.problem ?? 'state unknown');
  return `${p.id}  ${p.name}  ${p.path}  (${git})`;
}

export const projectsCommand: CliCommand = {
  name: 'projects',
  summary: 'List, add or remove projects (local git repositories); trust or untrust a repository\'s own setup, checks, templates and placement; allow the programs its git config names.',
  usage: 'projects list | projects add PATH | projects remove ID | projects trust PATH [--yes] | projects untrust PATH | projects allow-git-programs PATH [--yes] | projects disallow-git-programs PATH',
  flags: { yes: false },
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
      case 'trust':
        return trustCommand(ctx, await repository(app, arg, 'trust'));
      case 'untrust': {
        const status = await app.trust.untrust(await repository(app, arg, 'untrust'));
        if (ctx.json) ctx.out(JSON.stringify(status));
        else ctx.out(`${status.root} is untrusted: its setup, checks, templates and placement are not used; Flightdeck defaults apply.`);
        return 0;
      }
      case 'allow-git-programs':
        return allowGitPrograms(ctx, arg);
      case 'disallow-git-programs': {
        const found = await repositoryPrograms(gitPath(arg, sub));
        if (!found) throw new AppError('not_a_git_repo', `${arg} is not in a git work tree.`);
        app.gitPrograms.revoke(found.location.commonDir);
        if (ctx.json) ctx.out(JSON.stringify({ repository: found.location.commonDir, allowed: [] }));
        else ctx.out(`No program of ${found.location.workTree}'s git config is allowed any more: Flightdeck's git refuses them again.`);
        return 0;
      }
      default:
        throw new UsageError(`unknown subcommand "${sub}"`);
    }
  },
};

async function repository(app: Awaited<ReturnType<CliContext['openApp']>>, arg: string | undefined, sub: string): Promise<string> {
  if (!arg) throw new UsageError(`projects ${sub} needs the repository's PATH`);
  const path = UserPath.safeParse(arg);
  if (!path.success) throw new UsageError(path.error.issues[0]?.message ?? 'invalid path');
  return app.projects.resolveRepository(path.data);
}

/**
 * Shows exactly what would be trusted (and what changed since the last trust), then asks on a
 * terminal; without one, only --yes trusts. What is trusted is what was shown: the fingerprint
 * shown is the one recorded, and a change in between is refused.
 */
async function trustCommand(ctx: CliContext, root: string): Promise<number> {
  const app = await ctx.openApp();
  const status: TrustStatus = await app.trust.status(root);
  const yes = ctx.flags.yes === true;
  if (!ctx.json || !yes) for (const line of trustLines(status)) (ctx.json ? ctx.err : ctx.out)(line);
  if (status.state === 'trusted') {
    if (ctx.json) ctx.out(JSON.stringify(status));
    return 0;
  }
  if (!yes) {
    if (!process.stdin.isTTY) {
      ctx.err(`error: not trusted: confirm with "flightdeck projects trust ${root} --yes" after reading the list above (no terminal to ask on)`);
      return 1;
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    let answer: string;
    try {
      answer = await rl.question('Trust this repository: let Flightdeck run and read exactly the items above? [y/N] ');
    } finally {
      rl.close();
    }
    if (!/^y(es)?$/i.test(answer.trim())) {
      ctx.out('Not trusted.');
      return 1;
    }
  }
  const trusted = await app.trust.trust(root, status.fingerprint);
  if (ctx.json) ctx.out(JSON.stringify(trusted));
  else ctx.out(`Trusted ${trusted.root} (fingerprint ${trusted.fingerprint.slice(0, 12)}). A change to any of these items makes it untrusted again until reviewed.`);
  return 0;
}

function gitPath(arg: string | undefined, sub: string): string {
  if (!arg) throw new UsageError(`projects ${sub} needs the repository's PATH`);
  const path = UserPath.safeParse(arg);
  if (!path.success) throw new UsageError(path.error.issues[0]?.message ?? 'invalid path');
  return path.data;
}

/**
 * Lists the programs the repository's own git config names (filter, merge, signing, ssh, …:
 * what Flightdeck's git refuses) and allows exactly those values after a yes (a terminal's, or
 * --yes). A later change of any value is refused again.
 */
async function allowGitPrograms(ctx: CliContext, arg: string | undefined): Promise<number> {
  const app = await ctx.openApp();
  const found = await repositoryPrograms(gitPath(arg, 'allow-git-programs'));
  if (!found) throw new AppError('not_a_git_repo', `${arg} is not in a git work tree.`);
  const { location, programs } = found;
  const already = app.gitPrograms.allowed(location.commonDir);
  const pending = programs.filter((p) => !already.has(programEntry(p)));
  const say = ctx.json ? ctx.err : ctx.out;
  if (programs.length === 0) say(`${location.workTree}'s git config names no program: nothing to allow.`);
  for (const p of programs) say(`  ${already.has(programEntry(p)) ? 'allowed ' : 'refused '} ${p.key} = ${p.value}  (${p.origin})`);
  if (pending.length > 0) {
    if (ctx.flags.yes !== true) {
      if (!process.stdin.isTTY) {
        ctx.err(`error: not allowed: confirm with "flightdeck projects allow-git-programs ${location.workTree} --yes" after reading the list above (no terminal to ask on)`);
        return 1;
      }
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      let answer: string;
      try {
        answer = await rl.question(`Let Flightdeck's git run these ${pending.length} program${pending.length === 1 ? '' : 's'} for this repository (as your user, outside any sandbox)? [y/N] `);
      } finally {
        rl.close();
      }
      if (!/^y(es)?$/i.test(answer.trim())) {
        ctx.out('Not allowed.');
        return 1;
      }
    }
    app.gitPrograms.allow(location.commonDir, pending);
    if (!ctx.json) ctx.out(`Allowed ${pending.length} program${pending.length === 1 ? '' : 's'} for ${location.workTree}. A changed value is refused again.`);
  }
  if (ctx.json) ctx.out(JSON.stringify({ repository: location.commonDir, allowed: programs.map((p) => ({ key: p.key, value: p.value, origin: p.origin })) }));
  return 0;
}
