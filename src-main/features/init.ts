/**
 * What `feature init` reads from a repository before asking the agents: its file list (tracked
 * and untracked-but-not-ignored, as git sees it) and the contents of the files that say how the
 * project is built and tested, bounded so a large repository does not flood the prompt.
 */
import { git } from '../git/git';
import { readFileInsideAsync } from '../platform/contained-path';
import { KEY_FILES, type RepoFacts } from './init-model';

/** Characters of one sampled file shown to the model: the head of a file says what it is. */
export const SAMPLE_MAX_CHARS = 4_000;
/** All samples together: about 6k tokens, a small share of any model's context. */
export const SAMPLES_MAX_TOTAL_CHARS = 24_000;
/** Paths listed in the prompt's tree; beyond this the tree is a count, not a list. */
export const TREE_MAX_ENTRIES = 400;
/** Python test files the detector reads to tell unittest from pytest: their imports are at the top. */
const MAX_PYTHON_TESTS_READ = 10;
/** CI workflows sampled: they often hold the real check commands. */
const MAX_WORKFLOW_SAMPLES = 2;
/** A key file larger than this is not read (no README or manifest is). */
const KEY_FILE_MAX_BYTES = 2 * 1024 * 1024;

/**
 * A file of the repository, read by the rules for a repository the app does not control
 * (platform/contained-path.ts): a committed symlink (`README.md` → `/proc/self/environ`,
 * `~/.ssh/id_ed25519`) is refused, never followed into a prompt; so is a FIFO or a file too large.
 */
async function readRepoFile(root: string, path: string): Promise<string> {
  return (await readFileInsideAsync(root, path, { maxBytes: KEY_FILE_MAX_BYTES, what: 'a key file' })).toString('utf8');
}

export interface RepoSample {
  path: string;
  content: string;
}

export interface GatheredRepo extends RepoFacts {
  samples: RepoSample[];
}

export async function gatherRepo(root: string): Promise<GatheredRepo> {
  const out = await git(['ls-files', '--cached', '--others', '--exclude-standard', '-z'], { cwd: root });
  const paths = [...new Set(out.split('\0').filter((p) => p !== ''))];
  const present = new Set(paths);
  const workflows = paths.filter((p) => /^\.github\/workflows\/[^/]+\.ya?ml$/.test(p)).slice(0, MAX_WORKFLOW_SAMPLES);
  const contents = new Map<string, string>();
  const wanted = [...KEY_FILES.filter((f) => present.has(f)), ...workflows];
  // Read for the test-runner detector (pytest or unittest), not shown to the model.
  const pythonTests = paths.filter((p) => /(^|\/)(test_[^/]*|[^/]*_test)\.py$/.test(p)).slice(0, MAX_PYTHON_TESTS_READ);
  for (const path of pythonTests) {
    try {
      contents.set(path, (await readRepoFile(root, path)).slice(0, SAMPLE_MAX_CHARS));
    } catch {
      // Vanished, a link, not a regular file or too large: the detector reads it as absent.
    }
  }
  const samples: RepoSample[] = [];
  let total = 0;
  for (const path of wanted) {
    let text: string;
    try {
      text = await readRepoFile(root, path);
    } catch {
      // A listed file that vanished, is a link, is not a regular file (a FIFO) or is too large is simply not sampled.
      continue;
    }
    contents.set(path, text);
    if (total >= SAMPLES_MAX_TOTAL_CHARS) continue;
    const cut = text.length > SAMPLE_MAX_CHARS ? `${text.slice(0, SAMPLE_MAX_CHARS)}\n… (${text.length - SAMPLE_MAX_CHARS} more characters)` : text;
    samples.push({ path, content: cut });
    total += cut.length;
  }
  return { paths, contents, samples };
}
