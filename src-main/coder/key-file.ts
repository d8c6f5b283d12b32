/**
 * Where a `claude` run's key waits for its `apiKeyHelper`: one 0600 file per run in a private
 * folder of this user (`<tmp>/flightdeck-keys-<uid>`, 0700), never in the run's own folder.
 * The folder exists before any run starts, so every run's sandbox can hide it whole: a command
 * of one run cannot read the key of another run that starts while it runs (a glob of run
 * folders is expanded when a command starts, and would miss those).
 *
 * A key file is named after its run folder and removed with it; one left by a process that
 * died is removed by the next run, once its run folder is gone (that folder's own sweep).
 */
import { chmodSync, lstatSync, mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';

function uid(): string {
  return String(process.getuid?.() ?? 'user');
}

/** The folder every Claude Code run folder is made in (run-dir.ts): `<base>/flightdeck-coder-runs-<uid>`. */
export function runsDirPath(base = tmpdir()): string {
  return join(base, `flightdeck-coder-runs-${uid()}`);
}

/** The private folder of key files; refused when someone else made it (a shared /tmp). */
export function keysDir(base = tmpdir()): string {
  const dir = join(base, `flightdeck-keys-${uid()}`);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = lstatSync(dir);
  if (!st.isDirectory() || (process.getuid && st.uid !== process.getuid())) {
    throw new Error(`${dir} is not a folder of this user; refusing to put a key there.`);
  }
  chmodSync(dir, 0o700);
  return dir;
}

/** Writes the run's key (0600, new file only) and returns its path. */
export function writeKeyFile(runDir: string, key: string, base = tmpdir()): string {
  const dir = keysDir(base);
  sweepKeyFiles(dir, base);
  const path = join(dir, basename(runDir));
  writeFileSync(path, key, { mode: 0o600, flag: 'wx' });
  live.add(path);
  if (!exitHook) {
    exitHook = true;
    // A run cut short by process.exit() skips its own cleanup: its key goes here.
    process.once('exit', () => {
      for (const p of live) rmSync(p, { force: true });
    });
  }
  return path;
}

export function removeKeyFile(path: string): void {
  live.delete(path);
  rmSync(path, { force: true });
}

const live = new Set<string>();
let exitHook = false;

/** Key files whose run folder is gone (the run ended without its cleanup). */
function sweepKeyFiles(dir: string, base: string): void {
  // In the runs folder (run-dir.ts), or at the top, where earlier versions made run folders.
  const runFolderExists = (name: string) =>
    [join(runsDirPath(base), name), join(base, name)].some((p) => {
      try {
        lstatSync(p);
        return true;
      } catch {
        return false;
      }
    });
  for (const name of readdirSync(dir)) {
    // Its run folder is gone: so is the run.
    if (!runFolderExists(name)) rmSync(join(dir, name), { force: true });
  }
}
