import { randomUUID } from 'node:crypto';
import { access, realpath, stat } from 'node:fs/promises';
import { constants } from 'node:fs';
import { basename, dirname, isAbsolute, join, resolve } from 'node:path';
import { homedir } from 'node:os';
import { AppError, type Project } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import { git, GitError, permissionDenied } from '../git/git';
import type { Logger } from '../platform/logger';
import type { Database } from '../store/db';
import { readGitState } from './git-state';
import { ProjectRepo, type ProjectRow } from './project-repo';

/**
 * Projects: local git repositories the user points Flightdeck at. Adding validates the path
 * (exists, is a folder, git installed, inside a repository) and stores the repository's top
 * level; removing only forgets it. Git state is cached and refreshed on demand.
 */
export class ProjectService {
  private readonly repo: ProjectRepo;
  private readonly states = new Map<string, Pick<Project, 'git' | 'problem' | 'refreshedAt'>>();

  constructor(
    db: Database,
    private readonly hub: EventHub,
    private readonly log: Logger,
  ) {
    this.repo = new ProjectRepo(db);
  }

  /**
   * Reads every project's git state in the background, for the long-lived hosts (the window,
   * browser mode): start-up does not wait for git on large repositories, and short CLI commands
   * do not run it at all. The list is published when known; until then cards say "Not checked yet".
   */
  refreshInBackground(): void {
    this.refresh().catch((e: unknown) => {
      // The app may close before git answers (a short CLI command): nothing is lost, the next start reads it again.
      this.log.debug('initial git refresh did not finish', { error: e });
    });
  }

  dispose(): void {}

  list(): Project[] {
    return this.repo.all().map((r) => this.toProject(r));
  }

  get(id: string): Project {
    const row = this.repo.get(id);
    if (!row) throw new AppError('not_found', 'That project is no longer in Flightdeck.', { id });
    return this.toProject(row);
  }

  /** Resolves what the user typed to a repository top level, or says exactly what is wrong. */
  async resolveRepository(input: string): Promise<string> {
    const expanded = input.startsWith('~/') || input === '~' ? resolve(homedir(), input.slice(2)) : input;
    if (!isAbsolute(expanded)) {
      throw new AppError('invalid_input', `Use an absolute path (for example /home/you/code/app); "${input}" is relative.`);
    }
    let info;
    try {
      info = await stat(expanded);
    } catch (e) {
      if (isDenied(e)) throw permissionDenied(expanded);
      throw new AppError('path_not_found', `Nothing exists at ${expanded}.`, { path: expanded });
    }
    if (!info.isDirectory()) throw new AppError('not_a_directory', `${expanded} is a file, not a folder.`, { path: expanded });
    const real = await realpath(expanded).catch((e: unknown) => {
      throw isDenied(e) ? permissionDenied(expanded) : e;
    });
    let top: string;
    try {
      top = (await git(['rev-parse', '--show-toplevel'], { cwd: real })).trim();
    } catch (e) {
      if (e instanceof GitError) {
        // Git skips a .git it may not read and reports "not a git repository": name the real problem.
        const hidden = await unreadableGitDir(real);
        if (hidden) throw permissionDenied(hidden);
        throw new AppError('not_a_git_repo', `${expanded} is not inside a git repository. Run "git init" there first, or pick the repository's folder.`, {
          path: expanded,
        });
      }
      throw e;
    }
    if (!top) throw new AppError('not_a_git_repo', `${expanded} is inside a bare repository; pick a working tree.`, { path: expanded });
    return realpath(top);
  }

  async validate(input: string): Promise<{ ok: boolean; message: string | null; root: string | null }> {
    try {
      const root = await this.resolveRepository(input);
      const existing = this.repo.byPath(root);
      if (existing) return { ok: false, message: `Already added as "${existing.name}".`, root };
      return { ok: true, message: root === input ? null : `Will add the repository at ${root}.`, root };
    } catch (e) {
      if (e instanceof AppError) return { ok: false, message: e.message, root: null };
      throw e;
    }
  }

  async add(input: string): Promise<Project> {
    const root = await this.resolveRepository(input);
    const existing = this.repo.byPath(root);
    if (existing) throw new AppError('already_added', `That repository is already added as "${existing.name}".`, { id: existing.id, path: root });
    const row: ProjectRow = { id: randomUUID(), name: basename(root) || root, path: root, addedAt: Date.now() };
    this.repo.insert(row);
    this.log.info('project added', { id: row.id, path: root });
    await this.refreshOne(row);
    this.publish();
    return this.toProject(row);
  }

  remove(id: string): boolean {
    const removed = this.repo.remove(id);
    this.states.delete(id);
    if (removed) {
      this.log.info('project removed', { id });
      this.publish();
    }
    return removed;
  }

  async refresh(id?: string): Promise<Project[]> {
    if (id) {
      const row = this.repo.get(id);
      if (!row) throw new AppError('not_found', 'That project is no longer in Flightdeck.', { id });
      await this.refreshOne(row);
    } else {
      await this.refreshAll();
    }
    const list = this.list();
    this.hub.publish('projects.changed', { projects: list });
    return id ? list.filter((p) => p.id === id) : list;
  }

  private async refreshAll(): Promise<void> {
    await Promise.all(this.repo.all().map((r) => this.refreshOne(r)));
  }

  private async refreshOne(row: ProjectRow): Promise<void> {
    try {
      await stat(row.path);
    } catch (e) {
      const problem = isDenied(e) ? permissionDenied(row.path).message : `The folder ${row.path} no longer exists.`;
      this.states.set(row.id, { git: null, problem, refreshedAt: Date.now() });
      return;
    }
    try {
      const state = await readGitState(row.path);
      this.states.set(row.id, { git: state, problem: null, refreshedAt: Date.now() });
    } catch (e) {
      const problem = e instanceof AppError || e instanceof GitError ? e.message : 'Could not read the repository state.';
      this.log.warn('git state refresh failed', { id: row.id, error: e });
      this.states.set(row.id, { git: null, problem, refreshedAt: Date.now() });
    }
  }

  private toProject(row: ProjectRow): Project {
    const s = this.states.get(row.id) ?? { git: null, problem: null, refreshedAt: null };
    return { ...row, ...s };
  }

  private publish(): void {
    this.hub.publish('projects.changed', { projects: this.list() });
  }
}

/** The OS refused access (a folder without read/execute permission for this user). */
function isDenied(e: unknown): boolean {
  const code = (e as NodeJS.ErrnoException | null)?.code;
  return code === 'EACCES' || code === 'EPERM';
}

/** A `.git` in the folder or one of its parents that exists but this user may not open. */
async function unreadableGitDir(start: string): Promise<string | null> {
  for (let dir = start; ; dir = dirname(dir)) {
    const candidate = join(dir, '.git');
    try {
      // A linked worktree's .git is a file: it needs reading, a directory also entering.
      const isDir = (await stat(candidate)).isDirectory();
      await access(candidate, isDir ? constants.R_OK | constants.X_OK : constants.R_OK);
    } catch (e) {
      if (isDenied(e)) return candidate;
    }
    if (dirname(dir) === dir) return null;
  }
}
