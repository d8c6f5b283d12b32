/**
 * Auto-verify runs a whitelisted command string, but what `npm test` or `cargo test` actually
 * executes is decided by files in the repository (package.json scripts, conftest.py, build.rs,
 * a Makefile…). When the agent changed one of those with write/patch, the verify run is code the
 * model just wrote: it goes through the policy and the approval like any bash command, and the
 * approval shows the diff of those files.
 *
 * Before write/patch first touches such a file, its content is kept as the trusted baseline in
 * the session state (so a change in one turn is still caught when a later turn verifies). At
 * verify time, files that differ from their baseline are the change to approve. Approving makes
 * the current content the trusted one. Changes made by bash commands are not tracked here: the
 * command that made them went through the policy and approval itself (or yolo allowed it).
 */
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { NotRegularFileError, readFileNoWait } from '../../platform/read-no-wait';
import type { VerifyBaseline } from '../store/session-repo';
import { previewDiff } from '../tools/patch-apply';
import { resolveInRoot } from '../tools/root-guard';


/** Baselines bigger than this are kept as a hash only (no diff); build files are far smaller. */
const MAX_BASELINE_CHARS = 256 * 1024;
/** The approval's diff is for reading; a longer one is cut. */
const MAX_DIFF_CHARS = 60_000;

/** File names (any folder) that decide what a whitelisted test command runs. */
const DEFINING_NAMES = new Set([
  // npm / pnpm / yarn: scripts (with pre/post hooks), the script shell, yarnPath, pnpm hooks.
  'package.json', '.npmrc', '.yarnrc', '.yarnrc.yml', '.pnpmfile.cjs',
  // pytest: configuration (addopts, plugins) and conftest.py, imported before any test.
  'pyproject.toml', 'pytest.ini', 'setup.cfg', 'tox.ini', 'conftest.py',
  // cargo: manifests, build scripts, runner / rustc wrapper settings, the toolchain.
  'Cargo.toml', 'build.rs', 'rust-toolchain', 'rust-toolchain.toml',
  // go: a `toolchain` line makes `go test` download and run another Go release.
  'go.mod', 'go.work',
  // make / just: test scripts often delegate to them.
  'Makefile', 'makefile', 'GNUmakefile', 'justfile', 'Justfile', '.justfile',
  // maven / gradle: plugins run arbitrary code; the wrappers download and run a build tool.
  'pom.xml', 'mvnw', 'build.gradle', 'build.gradle.kts', 'settings.gradle', 'settings.gradle.kts', 'gradle.properties', 'gradlew', 'gradle-wrapper.properties',
]);
/** Test-runner configuration files that are themselves code (jest, vitest, mocha, babel…). */
const DEFINING_CODE_CONFIG = /^(jest|vitest|vitest\.workspace|vite|ava|karma|babel|playwright)\.config\.[cm]?[jt]s$|^\.mocharc\.|^\.babelrc(\.[cm]?js)?$/;
/** Folders whose contents configure the build tool itself. */
const DEFINING_DIRS = new Set(['.mvn', '.cargo', 'buildSrc']);

/** Whether a root-relative path is one of the files that decide what the verify command runs. */
export function isVerifyDefiningPath(rel: string): boolean {
  const parts = rel.split('/');
  const base = parts[parts.length - 1] ?? rel;
  if (DEFINING_NAMES.has(base) || DEFINING_CODE_CONFIG.test(base)) return true;
  return parts.slice(0, -1).some((p) => DEFINING_DIRS.has(p));
}

function readBaseline(abs: string): VerifyBaseline {
  if (!existsSync(abs) || statSync(abs).isDirectory()) return { sha256: null, text: null };
  let buf: Buffer;
  try {
    buf = readFileNoWait(abs);
  } catch (e) {
    // A FIFO, socket or device in a defining file's place: never read (it could wait forever);
    // its kind stands for its content, so becoming one counts as a change.
    if (e instanceof NotRegularFileError) return { sha256: `not a regular file: ${e.kind}`, text: null };
    throw e;
  }
  const sha256 = createHash('sha256').update(buf).digest('hex');
  const text = buf.length <= MAX_BASELINE_CHARS && !buf.subarray(0, 8_000).includes(0) ? buf.toString('utf8') : null;
  return { sha256, text };
}

/**
 * The guard with `rel`'s current content added as its baseline, before write/patch changes it;
 * null when nothing changes (not a defining file, or a baseline is already kept).
 */
export function guardBeforeWrite(root: string, guard: Readonly<Record<string, VerifyBaseline>>, rel: string): Record<string, VerifyBaseline> | null {
  if (!isVerifyDefiningPath(rel) || rel in guard) return null;
  return { ...guard, [rel]: readBaseline(resolveInRoot(root, rel).abs) };
}

export interface DefiningChange {
  path: string;
  before: VerifyBaseline;
  /** The current text; null when the file is gone (or binary / too large). */
  after: string | null;
}

/** Guarded files that differ from their baseline now, and the guard without those back at it. */
export function changedDefiningFiles(root: string, guard: Readonly<Record<string, VerifyBaseline>>): { changes: DefiningChange[]; guard: Record<string, VerifyBaseline> } {
  const changes: DefiningChange[] = [];
  const kept: Record<string, VerifyBaseline> = {};
  for (const [path, before] of Object.entries(guard)) {
    let now: VerifyBaseline;
    try {
      now = readBaseline(resolveInRoot(root, path).abs);
    } catch {
      // The path now leads outside the root (a symlink swapped in): treat it as changed.
      now = { sha256: 'unreadable', text: null };
    }
    if (now.sha256 === before.sha256) continue;
    changes.push({ path, before, after: now.text });
    kept[path] = before;
  }
  return { changes, guard: kept };
}

/** The diff the approval shows: every changed defining file against its baseline. */
export function definingDiff(changes: readonly DefiningChange[]): string {
  const parts = changes.map((c) => {
    if (c.after === null && c.before.sha256 !== null && c.before.text !== null) return `deleted ${c.path}\n`;
    if (c.before.text === null && c.before.sha256 !== null) return `changed ${c.path} (binary or too large to show)\n`;
    return previewDiff(c.path, c.before.sha256 === null ? null : c.before.text, c.after ?? '');
  });
  const diff = parts.join('');
  return diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… [diff cut at ${MAX_DIFF_CHARS} characters]` : diff;
}
