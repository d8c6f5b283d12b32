/**
 * The container tests' image, built here because no registry can be reached: a root filesystem
 * made of Debian's busybox-static (every applet), the host's bash (the bash tool runs `bash -lc`)
 * and optionally the host's `node` and the `claude` CLI's native binary, each with the shared
 * libraries `ldd` lists, given to `docker import`. The tag carries a hash of every input's bytes,
 * so repeated runs reuse the image and a changed input (a new claude version) builds a new one.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tempDir } from './temp';

const BUSYBOX = '/bin/busybox';
const CLAUDE_BIN = join(dirname(fileURLToPath(import.meta.url)), '../../node_modules/@anthropic-ai/claude-code/bin/claude.exe');
/** Bumped when the layout below changes, so an image built by an older layout is not reused. */
const LAYOUT_VERSION = '1';
export const TEST_IMAGE_REPO = 'flightdeck-test-agent';

export interface TestImageOptions {
  /** The host's node binary at /usr/local/bin/node. */
  node?: boolean;
  /** The claude CLI at /usr/local/bin/claude. */
  claude?: boolean;
  /** The host's git at /usr/bin/git (and as git's exec path, where it starts its own subcommands). */
  git?: boolean;
  /**
   * busybox applets left out (an image without `stty`, say). Debian's busybox sh runs every
   * applet it has, linked or not, so with these the image's /bin/sh is bash.
   */
  without?: string[];
  /** Extra files (image path → content), executable. */
  files?: Record<string, string>;
}

function libsOf(binary: string): string[] {
  const out = execFileSync('ldd', [binary], { encoding: 'utf8' });
  const libs: string[] = [];
  for (const line of out.split('\n')) {
    const m = /=>\s*(\/\S+)/.exec(line) ?? /^\s*(\/\S+)\s+\(/.exec(line);
    if (m) libs.push(m[1]!);
  }
  return libs;
}

function hostBinaries(o: TestImageOptions): Array<{ from: string; to: string }> {
  const bins = [{ from: realpathSync('/bin/bash'), to: '/bin/bash' }];
  if (o.node) bins.push({ from: realpathSync(execFileSync('sh', ['-c', 'command -v node'], { encoding: 'utf8' }).trim()), to: '/usr/local/bin/node' });
  if (o.claude) bins.push({ from: realpathSync(CLAUDE_BIN), to: '/usr/local/bin/claude' });
  if (o.git) {
    const hostGit = realpathSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim());
    const execPath = execFileSync(hostGit, ['--exec-path'], { encoding: 'utf8' }).trim();
    bins.push({ from: hostGit, to: '/usr/bin/git' }, { from: hostGit, to: `${execPath}/git` });
  }
  return bins;
}

/** Every file that goes into the image, host path → image path. */
function inputs(o: TestImageOptions): Array<{ from: string; to: string }> {
  const files = [{ from: BUSYBOX, to: '/bin/busybox' }, ...hostBinaries(o)];
  const libs = new Set<string>();
  for (const b of hostBinaries(o)) for (const l of libsOf(b.from)) libs.add(l);
  for (const l of libs) files.push({ from: realpathSync(l), to: l });
  return files;
}

function contentTag(files: Array<{ from: string; to: string }>, o: TestImageOptions): string {
  const h = createHash('sha256').update(`layout ${LAYOUT_VERSION} ${JSON.stringify(o)}\n`);
  for (const f of files) h.update(`${f.to}\n`).update(readFileSync(f.from));
  return h.digest('hex').slice(0, 16);
}

function imageExists(ref: string): boolean {
  try {
    execFileSync('docker', ['image', 'inspect', ref], { stdio: 'ignore' });
    return true;
  } catch {
    // `docker image inspect` exits non-zero for a missing image: build it.
    return false;
  }
}

/** The image reference, built (once per content) when missing. */
export function ensureTestImage(o: TestImageOptions = {}): string {
  if (!existsSync(BUSYBOX)) throw new Error('busybox-static is not installed (apt-get install busybox-static; .ci/run installs it).');
  const files = inputs(o);
  const ref = `${TEST_IMAGE_REPO}:${contentTag(files, o)}`;
  if (imageExists(ref)) return ref;
  const root = tempDir('fd-rootfs-');
  try {
    // usr/share/git-core/templates: git init/clone warn without it (an empty one is enough).
    for (const d of ['bin', 'sbin', 'usr/bin', 'usr/local/bin', 'usr/share/git-core/templates', 'etc', 'tmp', 'home/agent', 'root', 'proc', 'sys', 'dev']) mkdirSync(join(root.path, d), { recursive: true });
    chmodSync(join(root.path, 'tmp'), 0o1777);
    chmodSync(join(root.path, 'home/agent'), 0o777);
    for (const f of files) {
      mkdirSync(join(root.path, dirname(f.to)), { recursive: true });
      copyFileSync(f.from, join(root.path, f.to));
      chmodSync(join(root.path, f.to), 0o755);
    }
    const applets = execFileSync(BUSYBOX, ['--list'], { encoding: 'utf8' }).split('\n').filter(Boolean);
    if (o.without?.length) symlinkSync('bash', join(root.path, 'bin/sh'));
    for (const a of applets.filter((x) => !o.without?.includes(x))) {
      const link = join(root.path, 'bin', a);
      if (!existsSync(link)) symlinkSync('busybox', link);
    }
    for (const [to, content] of Object.entries(o.files ?? {})) {
      mkdirSync(join(root.path, dirname(to)), { recursive: true });
      writeFileSync(join(root.path, to), content, { mode: 0o755 });
    }
    writeFileSync(join(root.path, 'etc/passwd'), 'root:x:0:0:root:/root:/bin/sh\nagent:x:1000:1000:agent:/home/agent:/bin/bash\n');
    writeFileSync(join(root.path, 'etc/group'), 'root:x:0:\nagent:x:1000:\n');
    const tar = join(root.path, '..', `${root.path.split('/').pop()}.tar`);
    execFileSync('tar', ['-C', root.path, '-cf', tar, '.']);
    try {
      execFileSync('docker', ['import', '--change', 'ENV PATH=/usr/local/bin:/usr/bin:/bin:/sbin', '--change', 'CMD ["/bin/sh"]', tar, ref], { stdio: 'ignore' });
    } finally {
      execFileSync('rm', ['-f', tar]);
    }
    return ref;
  } finally {
    root.cleanup();
  }
}
