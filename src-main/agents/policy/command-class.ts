/**
 * What a bash command line does, as far as policy cares: whether every part only reads
 * (so plan mode and the presets may let it run unasked), and how risky it is. Pure.
 */
import type { RiskLevel } from '../../../src-preload/contract';
import { allCommands, basename, unwrap, type SimpleCommand } from './shell-parse';

/** Commands that only read (with the argument checks below). */
const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'printf', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'tree', 'stat', 'file',
  'which', 'type', 'whereis', 'du', 'df', 'whoami', 'id', 'uname', 'hostname', 'basename', 'dirname', 'realpath',
  'readlink', 'diff', 'cmp', 'sort', 'uniq', 'cut', 'tr', 'column', 'nl', 'od', 'xxd', 'hexdump', 'md5sum',
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

/**
 * An argument naming a place outside the session root (absolute, home-relative, or climbing out
 * with `..`): reading there is not the session's business (keys, other projects, the data
 * folder), so such a command is asked about like any other.
 */
function leavesRoot(arg: string): boolean {
  const value = arg.includes('=') && arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1) : arg;
  if (value === '/dev/null' || value === '-') return false;
  return value.startsWith('/') || value.startsWith('~') || /(^|\/)\.\.(\/|$)/.test(value);
}

/** A sed script that only prints, deletes or substitutes (no `e`, `w`, `W`, `r`, no flags that run or write). */
function harmlessSedScript(script: string): boolean {
  const address = String.raw`(?:\d+|\$)(?:,(?:\d+|\$))?`;
  const simple = new RegExp(`^\\s*(?:${address})?\\s*[pdq=]?\\s*$`);
  const subst = new RegExp(`^\\s*(?:${address})?\\s*s([^\\w\\s\\\\]).*?\\1.*?\\1[gpiImM0-9]*\\s*$`);
  return script.split(/;|\n/).every((part) => simple.test(part) || subst.test(part));
}

/** git options that make a read run a program or write a file. */
const GIT_UNSAFE_OPTION = /^(-c|--config-env|--exec-path|--output|--ext-diff|-O|--open-files-in-pager|--textconv|--upload-pack)(=|$)|^-O./;

function partReadOnly(cmd: SimpleCommand): boolean {
  if (cmd.redirects.some((r) => r !== '/dev/null')) return false;
  // Anything run as another user is judged by who runs it, not by what it reads.
  if (['sudo', 'doas', 'su'].includes(basename(cmd.words[0] ?? ''))) return false;
  const w = unwrap(cmd.words);
  // A bare assignment (`A=1`) sets a shell variable: harmless.
  if (w.length === 0) return true;
  const head = basename(w[0]!);
  const args = w.slice(1);
  if (args.some(leavesRoot)) return false;
  if (head === 'git') {
    if (args.some((a) => GIT_UNSAFE_OPTION.test(a))) return false;
    const sub = gitSub(args);
    if (sub === 'reflog') {
      const next = args[args.indexOf('reflog') + 1];
      return next === undefined || next === 'show' || next.startsWith('-');
    }
    if (sub === 'branch') return args.every((a) => a === 'branch' || a.startsWith('-') && /^(-a|-r|-v|-vv|--list|--show-current|--all|--remotes|--contains|--merged|--no-merged)$/.test(a));
    if (sub === 'remote') return args.length <= 2 && (args[1] === undefined || args[1] === '-v');
    if (sub === 'stash') return args[args.indexOf('stash') + 1] === 'list' || args[args.indexOf('stash') + 1] === 'show';
    if (sub === 'config') return args.some((a) => a === '--get' || a === '--list' || a === '-l' || a === '--get-all');
    return sub !== undefined && GIT_READ_ONLY.has(sub);
  }
  if (head === 'find') return !args.some((a) => /^-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/.test(a));
  if (head === 'sed') {
    // Only -n/-E/-r/-s/-z options, and scripts that print or substitute: GNU sed can run commands (e) and write files (w).
    const options = args.filter((a) => a.startsWith('-'));
    if (!options.every((o) => /^-[nErsz]+$/.test(o) || o === '--quiet' || o === '--regexp-extended')) return false;
    const script = args.find((a) => !a.startsWith('-'));
    return script !== undefined && harmlessSedScript(script);
  }
  if (head === 'sort') return !args.some((a) => a === '-o' || a.startsWith('--output') || a.startsWith('--compress-program'));
  if (head === 'env' || head === 'printenv') return args.every((a) => !a.startsWith('-') || a === '-0');
  if (head === 'awk' || head === 'gawk' || head === 'mawk') return !args.some((a) => /system|getline|\||>|\bclose\b/.test(a)) && !args.some((a) => a === '-f' || a.startsWith('--file'));
  if (head === 'rg') return !args.some((a) => a.startsWith('--pre'));
  if (head === 'xxd') return args.filter((a) => !a.startsWith('-')).length <= 1;
  if (head === 'tree') return !args.some((a) => a === '-o' || a.startsWith('-o'));
  if (head === 'hostname') return args.every((a) => a.startsWith('-'));
  if (head === 'yq') return !args.some((a) => a === '-i' || a.startsWith('--inplace'));
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
