/**
 * A session's workspace on a remote engine (tcp, ssh), where nothing of this machine can be
 * mounted: a volume seeded from a `git bundle` of the session's branch (put into the container
 * with the engine's archive upload and cloned inside), and the agent's work brought back as
 * commits: the container bundles its branch, the host fetches that into
 * `refs/flightdeck/remote/<session>` and fast-forwards the local branch only when it has not
 * moved and the worktree is clean. Local changes are never overwritten.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { AppError, formatBytes } from '../../src-preload/contract';
import { git, gitBufferWithExit } from '../git/git';
import { CONTAINER_PATHS } from './core/container-spec';
import { firstFileOfTar, tarFiles } from './core/tar';
import { compareHeads, DEFAULT_AGENT_IDENTITY, OUT_BUNDLE_PATH, remoteRef, SEED_BUNDLE_PATH, syncMessage, type WorkspaceSyncState } from './core/workspace-sync';
import type { Engine } from './engines';

/** Seeding clones the whole branch and a sync bundles it: a large history needs more than an engine call's deadline. */
const WORKSPACE_GIT_TIMEOUT_MS = 10 * 60_000;

/** Runs a command in the session's container as its user, collecting output (ContainerService.exec). */
export type ContainerExec = (cmd: string[], timeoutMs: number) => Promise<{ exitCode: number | null; stdout: string; stderr: string }>;

export interface RemoteWorkspace {
  sessionId: string;
  /** The session's worktree on this machine (where the branch lives). */
  worktree: string;
  branch: string;
  engine: Engine;
  container: Docker.Container;
  user: { uid: number; gid: number };
  exec: ContainerExec;
}

/** The branch checked out in the worktree; a detached HEAD cannot be seeded (there would be nothing to bring the commits back to). */
export async function currentBranch(worktree: string): Promise<string> {
  const out = await gitBufferWithExit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: worktree });
  const branch = out.stdout.toString('utf8').trim();
  if (out.exitCode !== 0 || !branch) throw new AppError('invalid_input', `The session's worktree ${worktree} is not on a branch (detached HEAD): check out a branch so the container's commits have somewhere to come back to.`, { reason: 'remote_workspace' });
  return branch;
}

async function identity(worktree: string): Promise<{ name: string; email: string }> {
  const get = async (key: string) => (await gitBufferWithExit(['config', '--get', key], { cwd: worktree })).stdout.toString('utf8').trim();
  return { name: (await get('user.name')) || DEFAULT_AGENT_IDENTITY.name, email: (await get('user.email')) || DEFAULT_AGENT_IDENTITY.email };
}

function shQuote(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Seeds the container's workspace volume: the volume's folder is given to the container's user,
 * the branch's bundle is uploaded and cloned into it (an existing clone, from an earlier
 * placement, fetches it into `refs/remotes/host/<branch>` instead, keeping the agent's work).
 */
export async function seedRemoteWorkspace(w: RemoteWorkspace): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'fd-seed-'));
  try {
    const bundle = join(dir, 'seed.bundle');
    await git(['bundle', 'create', bundle, `refs/heads/${w.branch}`], { cwd: w.worktree, timeoutMs: WORKSPACE_GIT_TIMEOUT_MS });
    const tar = tarFiles([
      // The directory entry over the mount point hands the (root-owned) new volume to the container's user: no capability needed inside.
      { name: CONTAINER_PATHS.workspace.replace(/^\//, ''), content: '', mode: 0o755, uid: w.user.uid, gid: w.user.gid, dir: true },
      { name: SEED_BUNDLE_PATH.replace(/^\//, ''), content: readFileSync(bundle), mode: 0o600, uid: w.user.uid, gid: w.user.gid },
    ]);
    await w.engine.call('the workspace upload', () => w.container.putArchive(Buffer.from(tar), { path: '/' }), WORKSPACE_GIT_TIMEOUT_MS);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  const who = await identity(w.worktree);
  const b = shQuote(w.branch);
  const script = [
    'set -e',
    `if [ -d .git ]; then git fetch -q ${SEED_BUNDLE_PATH} +refs/heads/${b}:refs/remotes/host/${b}; else git clone -q --branch ${b} ${SEED_BUNDLE_PATH} . && git config user.name ${shQuote(who.name)} && git config user.email ${shQuote(who.email)}; fi`,
    `rm -f ${SEED_BUNDLE_PATH}`,
  ].join('\n');
  const r = await w.exec(['sh', '-c', script], WORKSPACE_GIT_TIMEOUT_MS);
  if (r.exitCode !== 0) {
    throw new AppError('unavailable', `Could not seed the container's workspace from ${w.branch}: ${(r.stderr || r.stdout).trim() || `exit ${r.exitCode}`}. The image needs git.`, { reason: 'workspace_seed' });
  }
}

async function revParse(worktree: string, ref: string): Promise<string> {
  return (await git(['rev-parse', '--verify', `${ref}^{commit}`], { cwd: worktree })).trim();
}

async function isAncestor(worktree: string, a: string, b: string): Promise<boolean> {
  const r = await gitBufferWithExit(['merge-base', '--is-ancestor', a, b], { cwd: worktree });
  if (r.exitCode > 1) throw new AppError('internal', `git merge-base failed (exit ${r.exitCode}) in ${worktree}.`);
  return r.exitCode === 0;
}

/**
 * What in the container's clone is not on its branch, as lines (uncommitted or untracked files,
 * stashes, a HEAD or other branches with commits the branch lacks), or null when there is
 * nothing: a sync compares the branch's commits only, and the volume must not be removed while
 * the agent's work outside them is there. A check that cannot run says so (the volume is kept).
 */
export async function unsyncedWork(w: RemoteWorkspace): Promise<string | null> {
  const script = [
    'git status --porcelain --untracked-files=all | head -n 5',
    'git stash list | head -n 3 | sed "s/^/stash: /"',
    'for h in HEAD $(git for-each-ref --format="%(refname:short)" refs/heads); do git merge-base --is-ancestor "$h" "refs/heads/$1" || echo "commits on $h"; done',
  ].join('; ');
  const r = await w.exec(['sh', '-c', script, 'flightdeck-unsynced', w.branch], WORKSPACE_GIT_TIMEOUT_MS).catch((e: unknown) => ({ exitCode: null, stdout: '', stderr: e instanceof Error ? e.message : String(e) }));
  if (r.exitCode !== 0) return `the check could not run: ${r.stderr.trim() || `exit ${String(r.exitCode)}`}`;
  return r.stdout.trim() || null;
}

/**
 * Brings the container's commits back: bundle inside, download, fetch into the session's remote
 * ref, then compare with the local branch and fast-forward it only when that loses nothing.
 * Returns the resulting state; failures are an `error` state, not a throw (the caller records it).
 */
/** The largest bundle of the container's commits brought back (it is held in memory on the way). */
export const MAX_REMOTE_BUNDLE_BYTES = 512 * 1024 * 1024;

export async function syncRemoteWorkspace(w: RemoteWorkspace): Promise<WorkspaceSyncState> {
  const base = { branch: w.branch, at: Date.now() };
  try {
    const made = await w.exec(['sh', '-c', `git bundle create -q ${OUT_BUNDLE_PATH} refs/heads/${shQuote(w.branch)}`], WORKSPACE_GIT_TIMEOUT_MS);
    if (made.exitCode !== 0) throw new AppError('unavailable', `The container could not bundle ${w.branch}: ${(made.stderr || made.stdout).trim() || `exit ${made.exitCode}`}`);
    const stream = (await w.engine.call('the workspace download', () => w.container.getArchive({ path: OUT_BUNDLE_PATH }))) as NodeJS.ReadableStream;
    const chunks: Buffer[] = [];
    // Any size, but never a stall longer than the engine deadline: a connection that dropped
    // silently would otherwise hold the session's sync lock (and every later command) for good.
    await new Promise<void>((resolve, reject) => {
      let idle: NodeJS.Timeout;
      const arm = () => {
        clearTimeout(idle);
        idle = setTimeout(() => {
          (stream as { destroy?: () => void }).destroy?.();
          reject(new AppError('unavailable', `The download of the container's commits from ${w.engine.label} stalled for ${w.engine.deadlineMs / 1000} s.`));
        }, w.engine.deadlineMs);
      };
      arm();
      let bytes = 0;
      stream.on('data', (c: Buffer) => {
        bytes += c.length;
        // The archive is held in memory: a container that makes its bundle huge must not take the app's memory with it.
        if (bytes > MAX_REMOTE_BUNDLE_BYTES) {
          clearTimeout(idle);
          (stream as { destroy?: () => void }).destroy?.();
          return reject(new AppError('invalid_input', `The container's commits on ${w.branch} are over ${formatBytes(MAX_REMOTE_BUNDLE_BYTES)} as a bundle; Flightdeck does not bring that much back. Push them from inside the container, or drop the large files from its commits.`));
        }
        chunks.push(c);
        arm();
      });
      stream.on('end', () => {
        clearTimeout(idle);
        resolve();
      });
      stream.on('error', (e) => {
        clearTimeout(idle);
        reject(e);
      });
    });
    const file = firstFileOfTar(Buffer.concat(chunks));
    if (!file) throw new AppError('internal', "The engine's archive of the container's bundle held no file.");
    const dir = mkdtempSync(join(tmpdir(), 'fd-sync-'));
    const ref = remoteRef(w.sessionId);
    try {
      const bundle = join(dir, 'out.bundle');
      writeFileSync(bundle, file.content);
      await git(['fetch', '--no-tags', '--quiet', bundle, `+refs/heads/${w.branch}:${ref}`], { cwd: w.worktree, timeoutMs: WORKSPACE_GIT_TIMEOUT_MS });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    const local = await revParse(w.worktree, `refs/heads/${w.branch}`);
    const remote = await revParse(w.worktree, ref);
    const state = compareHeads({ local, remote, localContainsRemote: await isAncestor(w.worktree, remote, local), remoteContainsLocal: await isAncestor(w.worktree, local, remote) });
    if (state !== 'remote_ahead') return { ...base, state, message: syncMessage(state, w.branch, null), localHead: local, remoteHead: remote };
    // Fast-forward only the checked-out branch of a clean worktree: `merge --ff-only` then cannot lose a change.
    const head = (await gitBufferWithExit(['symbolic-ref', '--quiet', '--short', 'HEAD'], { cwd: w.worktree })).stdout.toString('utf8').trim();
    if (head !== w.branch) return { ...base, state, message: syncMessage(state, w.branch, 'not_checked_out'), localHead: local, remoteHead: remote };
    const dirty = (await git(['status', '--porcelain', '--untracked-files=all'], { cwd: w.worktree })).trim() !== '';
    if (dirty) return { ...base, state, message: syncMessage(state, w.branch, 'dirty'), localHead: local, remoteHead: remote };
    try {
      // --no-overwrite-ignore: a file git ignores here (a .env) that the container committed (its
      // clone has none of this machine's excludes) must not replace the user's copy.
      await git(['merge', '--ff-only', '--no-overwrite-ignore', '--quiet', remote], { cwd: w.worktree, timeoutMs: WORKSPACE_GIT_TIMEOUT_MS });
    } catch (e) {
      if (e instanceof Error && /would be overwritten by merge/.test(e.message)) return { ...base, state, message: syncMessage(state, w.branch, 'ignored_files'), localHead: local, remoteHead: remote };
      throw e;
    }
    return { ...base, state: 'in_sync', message: null, localHead: remote, remoteHead: remote };
  } catch (e) {
    return { ...base, state: 'error', message: e instanceof Error ? e.message : String(e), localHead: null, remoteHead: null };
  }
}
