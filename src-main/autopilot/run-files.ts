/**
 * The run's files in its worktree, under `.flightdeck/autopilot/` (ignored by git through its own
 * `.gitignore`, so they never show in the snapshots or a step's commit):
 * - `state.json`: the state machine's state, rewritten atomically at every change;
 * - `guard.json`: the before-snapshot of the prompt in flight, so a run killed mid-prompt still
 *   knows which files that prompt changed when it resumes;
 * - `logs/run_<timestamp>.jsonl`: one line per prompt, verification and iteration.
 */
import { existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { appendFileInside, mkdirInside, readFileInside, writeFileInside } from '../platform/contained-path';
import { parseRunState, type RunState } from './state';

export const RUN_DIR = join('.flightdeck', 'autopilot');
/** Private to the user: prompts and command output may quote secrets from the repository. */
const FILE_MODE = 0o600;
/**
 * Largest state.json / guard.json read: a few hundred bytes when Flightdeck writes them; the agent
 * works in this worktree and could leave a huge one that would hold the host while it parses.
 */
const MAX_RUN_FILE_BYTES = 1024 * 1024;

// Every file here is written and read with no symlink below the worktree (contained-path): the
// agent works in this worktree, and a `.flightdeck/autopilot` link would make the host write its
// logs, or read its state, wherever the link points.

export function runDir(worktree: string): string {
  return join(worktree, RUN_DIR);
}

/** Creates the folder and its `.gitignore` (`*`: the folder ignores itself and everything in it). */
export function ensureRunDir(worktree: string): void {
  const dir = runDir(worktree);
  mkdirInside(worktree, join(dir, 'logs'));
  const ignore = join(dir, '.gitignore');
  if (!present(ignore)) writeFileInside(worktree, ignore, '# Flightdeck autopilot: run state and logs, not part of the project\n*\n');
}

export function logFileName(startedAt: Date): string {
  return join(RUN_DIR, 'logs', `run_${startedAt.toISOString().replace(/[:.]/g, '-')}.jsonl`);
}

export function writeStateFile(worktree: string, state: RunState): void {
  ensureRunDir(worktree);
  writeFileInside(worktree, join(runDir(worktree), 'state.json'), JSON.stringify(state, null, 2) + '\n', FILE_MODE);
}

/** The state saved in the worktree, or null when there is none. A file that does not parse throws (never guessed at). */
export function readStateFile(worktree: string): RunState | null {
  const file = join(runDir(worktree), 'state.json');
  if (!existsSync(file) && !present(file)) return null;
  return parseRunState(readFileInside(worktree, file, { maxBytes: MAX_RUN_FILE_BYTES, what: 'run state file' }).toString('utf8'), file);
}

export interface Guard {
  phase: string;
  iteration: number;
  /** The working tree before the prompt (a git tree id). */
  before: string;
}

export function writeGuard(worktree: string, g: Guard | null): void {
  ensureRunDir(worktree);
  writeFileInside(worktree, join(runDir(worktree), 'guard.json'), JSON.stringify(g) + '\n', FILE_MODE);
}

export function readGuard(worktree: string): Guard | null {
  try {
    const g = JSON.parse(readFileInside(worktree, join(runDir(worktree), 'guard.json'), { maxBytes: MAX_RUN_FILE_BYTES }).toString('utf8')) as Guard | null;
    return g && typeof g.before === 'string' && typeof g.iteration === 'number' && typeof g.phase === 'string' ? g : null;
  } catch {
    // No guard (or a torn, linked or oversized one): the prompt is taken as starting now; nothing is reverted wrongly,
    // at worst changes made by the killed prompt are kept as if the user had made them.
    return null;
  }
}

export function appendLog(worktree: string, logFile: string, entry: Record<string, unknown>): void {
  ensureRunDir(worktree);
  appendFileInside(worktree, join(worktree, logFile), JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n', FILE_MODE);
}

/** Present as anything, a dangling symlink included (existsSync follows links). */
function present(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    // Missing: absent.
    return false;
  }
}
