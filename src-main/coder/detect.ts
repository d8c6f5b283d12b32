/**
 * Finding the `claude` CLI: the path saved in settings, then PATH, then Flightdeck's own
 * devDependency install, then the folders Claude Code's installers use. The version comes
 * from `claude --version`, which also proves the file runs.
 */
import { execFile } from 'node:child_process';
import { homedir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { INSTALL_CLAUDE_HINT, type ClaudeDetection } from '../../src-preload/contract';
import { childEnv, cleanExec, isExecutableFile, resolveOnPath } from '../platform/child-process';
import { appRoot } from '../platform/paths';

/** `claude --version` answers in well under a second; a hung binary must not hang the settings page. */
const VERSION_TIMEOUT_MS = 15_000;

/** `claude` on a PATH; the one lookup every child process uses. */
export function findOnPath(name: string, pathVar = process.env.PATH ?? ''): string | null {
  return resolveOnPath(name, pathVar);
}

export function knownLocations(home = homedir()): string[] {
  return [join(home, '.claude', 'local', 'claude'), join(home, '.local', 'bin', 'claude'), '/usr/local/bin/claude', '/opt/homebrew/bin/claude'];
}

export function locateClaude(settingPath: string | null, env: NodeJS.ProcessEnv = process.env): { path: string; source: NonNullable<ClaudeDetection['source']> } | null {
  if (settingPath) return { path: settingPath, source: 'setting' };
  const onPath = findOnPath('claude', env.PATH);
  if (onPath) return { path: onPath, source: 'path' };
  const bundled = join(appRoot(), 'node_modules', '.bin', 'claude');
  if (isExecutableFile(bundled)) return { path: bundled, source: 'bundled' };
  const known = knownLocations().find((p) => isExecutableFile(p));
  return known ? { path: known, source: 'known' } : null;
}

function version(path: string): Promise<{ version: string | null; error: string | null }> {
  return new Promise((resolve) => {
    // An allow-listed environment: printing a version needs no credentials.
    const env = childEnv('minimal', process.env, { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' });
    const program = resolveOnPath(path, env.PATH);
    // Checked first: the descriptor-closing prelude reports a missing program as exit 127.
    if (!program) return resolve({ version: null, error: 'not found' });
    const exec = cleanExec(program, ['--version']);
    execFile(exec.file, exec.args, { timeout: VERSION_TIMEOUT_MS, env }, (error, stdout) => {
      if (error) return resolve({ version: null, error: (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : error.message.split('\n')[0]! });
      const m = /(\d+\.\d+\.\d+[\w.-]*)/.exec(stdout);
      resolve({ version: m ? m[1]! : stdout.trim() || null, error: null });
    });
  });
}

export async function detectClaude(settingPath: string | null, now = Date.now()): Promise<ClaudeDetection> {
  const base = { installHint: INSTALL_CLAUDE_HINT, checkedAt: now };
  const loc = locateClaude(settingPath);
  if (!loc) {
    return { ...base, found: false, path: null, version: null, source: null, message: `The claude CLI was not found on PATH or in the usual folders. Install it with: ${INSTALL_CLAUDE_HINT}` };
  }
  if (loc.source === 'setting' && (!isAbsolute(loc.path) || !isExecutableFile(loc.path))) {
    return { ...base, found: false, path: loc.path, version: null, source: 'setting', message: `${loc.path} (from settings) is not an executable file. Fix the path, clear it to search PATH, or install with: ${INSTALL_CLAUDE_HINT}` };
  }
  const v = await version(loc.path);
  if (v.error) return { ...base, found: false, path: loc.path, version: null, source: loc.source, message: `${loc.path} did not run (${v.error}). Reinstall with: ${INSTALL_CLAUDE_HINT}` };
  return { ...base, found: true, path: loc.path, version: v.version, source: loc.source, message: `Claude Code ${v.version ?? '(unknown version)'} at ${loc.path}.` };
}
