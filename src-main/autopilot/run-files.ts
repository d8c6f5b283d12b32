/**
 * The run's files in its worktree, under `.flightdeck/autopilot/` (ignored by git through its own
 * `.gitignore`, so they never show in the snapshots or a step's commit):
 * - `state.json`: the state machine's state, rewritten atomically at every change;
 * - `guard.json`: the before-snapshot of the prompt in flight, so a run killed mid-prompt still
 *   knows which files that prompt changed when it resumes;
 * - `logs/run_<timestamp>.jsonl`: one line per prompt, verification and iteration.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../platform/atomic-file';
import { parseRunState, type RunState } from './state';

export const RUN_DIR = join('.flightdeck', 'autopilot');
/** Private to the user: prompts and command output may quote secrets from the repository. */
const FILE_MODE = 0o600;

export function runDir(worktree: string): string {
  return join(worktree, RUN_DIR);
}

/** Creates the folder and its `.gitignore` (`*`: the folder ignores itself and everything in it). */
export function ensureRunDir(worktree: string): void {
  const dir = runDir(worktree);
  mkdirSync(join(dir, 'logs'), { recursive: true });
  const ignore = join(dir, '.gitignore');
  if (!existsSync(ignore)) writeFileSync(ignore, '# Flightdeck autopilot: run state and logs, not part of the project\n*\n');
}

export function logFileName(startedAt: Date): string {
  return join(RUN_DIR, 'logs', `run_${startedAt.toISOString().replace(/[:.]/g, '-')}.jsonl`);
}

export function writeStateFile(worktree: string, state: RunState): void {
  ensureRunDir(worktree);
  writeFileAtomic(join(runDir(worktree), 'state.json'), JSON.stringify(state, null, 2) + '\n', { mode: FILE_MODE });
}

/** The state saved in the worktree, or null when there is none. A file that does not parse throws (never guessed at). */
export function readStateFile(worktree: string): RunState | null {
  const file = join(runDir(worktree), 'state.json');
  if (!existsSync(file)) return null;
  return parseRunState(readFileSync(file, 'utf8'), file);
}

export interface Guard {
  phase: string;
  iteration: number;
  /** The working tree before the prompt (a git tree id). */
  before: string;
}

export function writeGuard(worktree: string, g: Guard | null): void {
  ensureRunDir(worktree);
  writeFileAtomic(join(runDir(worktree), 'guard.json'), JSON.stringify(g) + '\n', { mode: FILE_MODE });
}

export function readGuard(worktree: string): Guard | null {
  try {
    const g = JSON.parse(readFileSync(join(runDir(worktree), 'guard.json'), 'utf8')) as Guard | null;
    return g && typeof g.before === 'string' && typeof g.iteration === 'number' && typeof g.phase === 'string' ? g : null;
  } catch {
    // No guard (or a torn one): the prompt is taken as starting now; nothing is reverted wrongly,
    // at worst changes made by the killed prompt are kept as if the user had made them.
    return null;
  }
}

export function appendLog(worktree: string, logFile: string, entry: Record<string, unknown>): void {
  ensureRunDir(worktree);
  appendFileSync(join(worktree, logFile), JSON.stringify({ at: new Date().toISOString(), ...entry }) + '\n', { mode: FILE_MODE });
}
