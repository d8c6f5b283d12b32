/**
 * What a bash command line does, as far as policy cares: whether every part only reads
 * (so plan mode and the presets may let it run unasked), and how risky it is. Pure.
 */
import type { RiskLevel } from '../../../src-preload/contract';
import { allCommands, basename, unwrap, type SimpleCommand } from './shell-parse';

/** Commands that only read (with the argument checks below). */
const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'printf', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'tree', 'stat', 'file',
  'which', 'type', 'whereis', 'du', 'df', 'date', 'whoami', 'id', 'uname', 'hostname', 'basename', 'dirname', 'realpath',
  'readlink', 'less', 'more', 'diff', 'cmp', 'sort', 'uniq', 'cut', 'tr', 'column', 'nl', 'od', 'xxd', 'hexdump', 'md5sum',
  'sha1sum', 'sha256sum', 'true', 'false', 'test', '[', 'jq', 'yq', 'env', 'printenv', 'ps', 'uptime', 'free', 'sleep', 'seq',
  'cd',
]);

/** git subcommands that never change the repository, the index or a remote. */
const GIT_READ_ONLY = new Set([
  'status', 'diff', 'log', 'show', 'rev-parse', 'ls-files', 'ls-tree', 'blame', 'describe', 'shortlog', 'grep', 'cat-file',
  'rev-list', 'merge-base', 'name-rev', 'reflog', 'whatchanged', 'count-objects', 'version', 'help',
]);

/** Programs whose use reaches the network, installs software or rewrites history: asked for with high risk. */
const HIGH_RISK = new Set([
  'curl', 'wget', 'ssh', 'scp', 'rsync', 'sftp', 'ftp', 'nc', 'ncat', 'telnet', 'sudo', 'doas', 'su', 'docker', 'podman',
  'kubectl', 'helm', 'terraform', 'systemctl', 'service', 'kill', 'killall', 'pkill', 'reboot', 'shutdown', 'mount', 'umount',
  'crontab', 'chmod', 'chown', 'apt', 'apt-get', 'yum', 'dnf', 'brew', 'snap', 'pip', 'pip3', 'gem', 'cargo-install',
]);
const HIGH_RISK_SUB: Record<string, Set<string>> = {
  git: new Set(['push', 'reset', 'clean', 'rebase', 'filter-branch', 'filter-repo', 'gc', 'prune', 'checkout', 'restore', 'switch', 'branch', 'tag', 'remote', 'config', 'stash']),
  npm: new Set(['install', 'i', 'add', 'ci', 'publish', 'uninstall', 'remove', 'rm', 'update', 'exec', 'link']),
  pnpm: new Set(['install', 'i', 'add', 'publish', 'remove', 'update', 'dlx', 'exec']),
  yarn: new Set(['install', 'add', 'publish', 'remove', 'upgrade', 'dlx']),
  npx: new Set(['*']),
  cargo: new Set(['install', 'publish']),
  go: new Set(['install', 'get']),
};

export interface CommandClass {
  /** Every part only reads files or repository state. */
  readonly readOnly: boolean;
  readonly risk: RiskLevel;
  /** The parts, for messages. */
  readonly programs: string[];
}

function gitSub(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  return args[i];
}

function partReadOnly(cmd: SimpleCommand): boolean {
  if (cmd.redirects.some((r) => r !== '/dev/null')) return false;
  // Anything run as another user is judged by who runs it, not by what it reads.
  if (['sudo', 'doas', 'su'].includes(basename(cmd.words[0] ?? ''))) return false;
  const w = unwrap(cmd.words);
  // A bare assignment (`A=1`) sets a shell variable: harmless.
  if (w.length === 0) return true;
  const head = basename(w[0]!);
  const args = w.slice(1);
  if (head === 'git') {
    const sub = gitSub(args);
    if (sub === 'branch') return args.every((a) => a === 'branch' || a.startsWith('-') && /^(-a|-r|-v|-vv|--list|--show-current|--all|--remotes|--contains|--merged|--no-merged)$/.test(a));
    if (sub === 'remote') return args.length <= 2 && (args[1] === undefined || args[1] === '-v');
    if (sub === 'stash') return args[args.indexOf('stash') + 1] === 'list' || args[args.indexOf('stash') + 1] === 'show';
    if (sub === 'config') return args.some((a) => a === '--get' || a === '--list' || a === '-l' || a === '--get-all');
    return sub !== undefined && GIT_READ_ONLY.has(sub);
  }
  if (head === 'find') return !args.some((a) => /^-(delete|exec|execdir|ok|okdir|fprint|fprintf|fls)$/.test(a));
  if (head === 'sed') return !args.some((a) => a === '-i' || a.startsWith('-i') || a === '--in-place' || a.startsWith('--in-place='));
  if (head === 'sort') return !args.some((a) => a === '-o' || a.startsWith('--output'));
  if (head === 'env' || head === 'printenv') return args.every((a) => !a.startsWith('-') || a === '-0');
  if (head === 'awk') return !args.some((a) => /system\s*\(|>\s*"|print\s*>/.test(a));
  return READ_ONLY.has(head);
}

function partRisk(cmd: SimpleCommand): RiskLevel {
  const w = unwrap(cmd.words);
  const rawHead = basename(cmd.words[0] ?? '');
  if (rawHead === 'sudo' || rawHead === 'doas' || rawHead === 'su') return 'high';
  if (w.length === 0) return 'low';
  const head = basename(w[0]!);
  if (HIGH_RISK.has(head)) return 'high';
  const subs = HIGH_RISK_SUB[head];
  if (subs) {
    const sub = head === 'git' ? gitSub(w.slice(1)) : w.slice(1).find((a) => !a.startsWith('-'));
    if (subs.has('*') || (sub !== undefined && subs.has(sub))) return 'high';
  }
  if (head === 'rm' && w.slice(1).some((a) => /^-[a-zA-Z]*[rR]/.test(a) || a === '--recursive')) return 'high';
  if (head === 'python' || head === 'python3' || head === 'node') {
    if (w.slice(1).some((a) => a === '-c' || a === '-e')) return 'medium';
  }
  return 'medium';
}

const RANK: Record<RiskLevel, number> = { low: 0, medium: 1, high: 2, critical: 3 };

/** Classifies a command line; an unparseable line is never read-only and at least medium risk. */
export function classifyCommand(command: string): CommandClass {
  const { commands, opaque } = allCommands(command);
  const readOnly = !opaque && commands.length > 0 && commands.every(partReadOnly);
  let risk: RiskLevel = readOnly ? 'low' : 'medium';
  if (!readOnly) {
    for (const c of commands) {
      const r = partRisk(c);
      if (RANK[r] > RANK[risk]) risk = r;
    }
  }
  return { readOnly, risk, programs: commands.map((c) => basename(unwrap(c.words)[0] ?? c.words[0] ?? '')) };
}
