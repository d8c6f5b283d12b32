import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { AppError } from '../../src-preload/contract';

/** Git status on a large repository can take a while; a hung git (network FS) must not hang us. */
const DEFAULT_GIT_TIMEOUT_MS = 30_000;
/** Porcelain output of a big worktree list or status fits comfortably. */
const MAX_GIT_OUTPUT_BYTES = 32 * 1024 * 1024;

export class GitError extends Error {
  override readonly name = 'GitError';
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(message);
  }
}

export interface GitOptions {
  cwd: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  env?: NodeJS.ProcessEnv;
}

/**
 * Runs git with an argument array (never a shell string). A missing git binary becomes
 * `git_not_installed`; a failing command becomes GitError with git's own message.
 */
export function git(args: readonly string[], opts: GitOptions): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      args as string[],
      {
        cwd: opts.cwd,
        timeout: opts.timeoutMs ?? DEFAULT_GIT_TIMEOUT_MS,
        maxBuffer: MAX_GIT_OUTPUT_BYTES,
        signal: opts.signal,
        env: { ...process.env, ...opts.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
        windowsHide: true,
      },
      (error, stdout, stderr) => {
        if (!error) return resolve(stdout);
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
          // spawn reports a missing working directory as ENOENT too: tell the two apart.
          return reject(
            existsSync(opts.cwd)
              ? gitNotInstalled()
              : new AppError('path_not_found', `The folder ${opts.cwd} does not exist (moved or deleted?).`),
          );
        }
        const exit = typeof error.code === 'number' ? error.code : null;
        reject(new GitError((stderr || error.message).trim().split('\n')[0] ?? 'git failed', exit, stderr));
      },
    );
  });
}

export function gitNotInstalled(): AppError {
  return new AppError('git_not_installed', 'Git is not installed or not on PATH. Install git (e.g. "apt-get install git") and try again.');
}
