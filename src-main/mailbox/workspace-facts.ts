/**
 * What a task changed in its workspace, for the report: taken before and after the task, from
 * git when the workspace is in a repository (status, HEAD, the commits made meanwhile), else
 * from the files' sizes and modification times.
 */
import { lstatSync, readdirSync, type Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { git } from '../git/git';
import type { FileOperation } from './report';

/** A walk of a workspace without git stops here: a report lists changes, it does not index a disk. */
const MAX_WALK_ENTRIES = 20_000;
/** Folders never walked: dependencies and tool state, not the task's work. */
const SKIPPED_FOLDERS = new Set(['.git', 'node_modules', '.flightdeck', '.venv', '__pycache__']);
/** Most commits listed for one task. */
const MAX_COMMITS = 50;

type Stamp = string;

export type WorkspaceSnapshot =
  | { kind: 'git'; top: string; head: string | null; status: Map<string, { code: string; stamp: Stamp | null }> }
  | { kind: 'files'; files: Map<string, Stamp>; truncated: boolean };

export interface WorkspaceChanges {
  files: { path: string; operation: FileOperation }[];
  commits: { hash: string; subject: string }[];
  head: string | null;
  gitStatus: string | null;
  truncated: boolean;
}

function stampOf(st: Stats): Stamp {
  return `${st.size}:${st.mtimeMs}`;
}

function stampPath(path: string): Stamp | null {
  try {
    return stampOf(lstatSync(path));
  } catch {
    // Gone (deleted) or unreadable: no stamp, which compares unequal to any earlier one.
    return null;
  }
}

async function gitTop(cwd: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--show-toplevel'], { cwd })).trim() || null;
  } catch {
    // Not a repository (or git is missing): the file walk describes the changes instead.
    return null;
  }
}

async function gitHead(cwd: string): Promise<string | null> {
  try {
    return (await git(['rev-parse', '--verify', '-q', 'HEAD'], { cwd })).trim() || null;
  } catch {
    // A repository without a first commit has no HEAD yet.
    return null;
  }
}

/** `git status --porcelain=v1 -z` as path → code (renames keep the new path). */
function parseStatus(out: string): Map<string, string> {
  const m = new Map<string, string>();
  const parts = out.split('\0');
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    if (p.length < 4) continue;
    const code = p.slice(0, 2);
    m.set(p.slice(3), code);
    if (code[0] === 'R' || code[0] === 'C') i++;
  }
  return m;
}

function walk(root: string): { files: Map<string, Stamp>; truncated: boolean } {
  const files = new Map<string, Stamp>();
  let count = 0;
  const stack = [root];
  while (stack.length > 0) {
    const dir = stack.pop()!;
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      // An unreadable folder is left out of the comparison; the agent could not have changed it either.
      continue;
    }
    for (const n of names) {
      if (++count > MAX_WALK_ENTRIES) return { files, truncated: true };
      const p = join(dir, n);
      let st: Stats;
      try {
        st = lstatSync(p);
      } catch {
        // Removed between the listing and the stat: not there, so not in the snapshot.
        continue;
      }
      if (st.isDirectory()) {
        if (!SKIPPED_FOLDERS.has(n)) stack.push(p);
      } else files.set(relative(root, p).split(sep).join('/'), stampOf(st));
    }
  }
  return { files, truncated: false };
}

export async function snapshotWorkspace(workspace: string): Promise<WorkspaceSnapshot> {
  const top = await gitTop(workspace);
  if (!top) return { kind: 'files', ...walk(workspace) };
  const status = parseStatus(await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: top }));
  const withStamps = new Map<string, { code: string; stamp: Stamp | null }>();
  for (const [p, code] of status) withStamps.set(p, { code, stamp: stampPath(join(top, p)) });
  return { kind: 'git', top, head: await gitHead(top), status: withStamps };
}

function operationOf(code: string): FileOperation {
  if (code === '??' || code.includes('A')) return 'created';
  if (code.includes('D')) return 'deleted';
  return 'modified';
}

export async function workspaceChanges(workspace: string, before: WorkspaceSnapshot): Promise<WorkspaceChanges> {
  if (before.kind === 'files') {
    const after = walk(workspace);
    const files: WorkspaceChanges['files'] = [];
    for (const [p, s] of after.files) {
      const was = before.files.get(p);
      if (was === undefined) files.push({ path: p, operation: 'created' });
      else if (was !== s) files.push({ path: p, operation: 'modified' });
    }
    for (const p of before.files.keys()) if (!after.files.has(p)) files.push({ path: p, operation: 'deleted' });
    files.sort((a, b) => (a.path < b.path ? -1 : 1));
    return { files, commits: [], head: null, gitStatus: null, truncated: before.truncated || after.truncated };
  }
  const top = before.top;
  const head = await gitHead(top);
  const statusText = await git(['status', '--porcelain=v1', '-z', '--untracked-files=all'], { cwd: top });
  const status = parseStatus(statusText);
  const changed = new Map<string, FileOperation>();
  const commits: WorkspaceChanges['commits'] = [];
  if (head && head !== before.head) {
    const range = before.head ? `${before.head}..${head}` : head;
    const log = await git(['log', `--max-count=${MAX_COMMITS}`, '--format=%H%x09%s', range], { cwd: top });
    for (const line of log.split('\n')) {
      const [hash, subject] = line.split('\t');
      if (hash) commits.push({ hash, subject: subject ?? '' });
    }
    const diff = before.head ? await git(['diff', '--name-status', '-z', '--no-renames', before.head, head], { cwd: top }) : await git(['show', '--name-status', '-z', '--no-renames', '--format=', head], { cwd: top });
    const parts = diff.split('\0').filter(Boolean);
    for (let i = 0; i + 1 < parts.length; i += 2) changed.set(parts[i + 1]!, parts[i] === 'A' ? 'created' : parts[i] === 'D' ? 'deleted' : 'modified');
  }
  for (const [p, code] of status) {
    const was = before.status.get(p);
    if (!was || was.code !== code || was.stamp !== stampPath(join(top, p))) changed.set(p, changed.get(p) === 'created' ? 'created' : operationOf(code));
  }
  // A file dirty before and clean now was committed or reverted by the task.
  for (const p of before.status.keys()) if (!status.has(p) && !changed.has(p)) changed.set(p, 'modified');
  const prefix = relative(top, workspace).split(sep).join('/');
  const files = [...changed]
    .map(([path, operation]) => ({ path: prefix && path.startsWith(`${prefix}/`) ? path.slice(prefix.length + 1) : path, operation }))
    .sort((a, b) => (a.path < b.path ? -1 : 1));
  const readable = [...status].map(([p, c]) => `${c} ${p}`).join('\n');
  return { files, commits, head, gitStatus: readable, truncated: false };
}
