/**
 * What a bash command line does, as far as policy cares: whether every part only reads
 * (so plan mode and the presets may let it run unasked), and how risky it is. Pure.
 */
import type { RiskLevel } from '../../../src-preload/contract';
import { allCommands, basename, resolveCommand, shellRun, SHELLS, systemPath, type SimpleCommand, type WordInfo } from './shell-parse';

/** Commands that only read (with the argument checks below). */
const READ_ONLY = new Set([
  'ls', 'cat', 'head', 'tail', 'wc', 'pwd', 'echo', 'printf', 'grep', 'egrep', 'fgrep', 'rg', 'ag', 'tree', 'stat', 'file',
  'which', 'type', 'whereis', 'du', 'df', 'whoami', 'id', 'uname', 'hostname', 'basename', 'dirname', 'realpath',
  'readlink', 'diff', 'cmp', 'sort', 'uniq', 'cut', 'tr', 'column', 'nl', 'od', 'xxd', 'hexdump', 'md5sum',
  'sha1sum', 'sha256sum', 'true', 'false', 'test', '[', 'jq', 'yq', 'env', 'printenv', 'ps', 'uptime', 'free', 'sleep', 'seq',
  'cd', 'command -v',
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

export function gitSub(args: readonly string[]): string | undefined {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  return args[i];
}

/**
 * An argument naming a place outside the session root (absolute, home-relative, or climbing out
 * with `..`): reading there is not the session's business (keys, other projects, the data
 * folder), so such a command is asked about like any other.
 */
export function leavesRoot(arg: string): boolean {
  const value = arg.includes('=') && arg.startsWith('-') ? arg.slice(arg.indexOf('=') + 1) : arg;
  if (value === '/dev/null' || value === '-') return false;
  return value.startsWith('/') || value.startsWith('~') || /(^|\/)\.\.(\/|$)/.test(value);
}

/** The longest sed script judged harmless; real print/substitute one-liners are far shorter. */
const MAX_SED_SCRIPT = 2_000;

/** A sed script that only prints, deletes or substitutes (no `e`, `w`, `W`, `r`, no flags that run or write). */
export function harmlessSedScript(script: string): boolean {
  // The patterns below backtrack: a script this long is not judged (it asks).
  if (script.length > MAX_SED_SCRIPT) return false;
  const address = String.raw`(?:\d+|\$)(?:,(?:\d+|\$))?`;
  const simple = new RegExp(`^\\s*(?:${address})?\\s*[pdq=]?\\s*$`);
  const subst = new RegExp(`^\\s*(?:${address})?\\s*s([^\\w\\s\\\\]).*?\\1.*?\\1[gpiImM0-9]*\\s*$`);
  return script.split(/;|\n/).every((part) => simple.test(part) || subst.test(part));
}

/** git options that make a read run a program or write a file. */
export const GIT_UNSAFE_OPTION = /^(-c|--config-env|--exec-path|--output|--ext-diff|-O|--open-files-in-pager|--textconv|--upload-pack|--git-dir|--work-tree)(=|$)|^-O./;

/**
 * Environment variables a read-only command may be given: none of them names a program, a
 * library, a config file or a pager. A name with a lower-case letter is a shell variable.
 */
export function harmlessVariable(name: string): boolean {
  return /[a-z]/.test(name) || /^(LANG|LANGUAGE|LC_[A-Z]+|TZ|NO_COLOR|FORCE_COLOR|CLICOLOR|CLICOLOR_FORCE|TERM|COLUMNS|LINES)$/.test(name);
}

/** Programs whose arguments are never files or code: any value (even one known only when the line runs) is harmless. */
export const PURE_OUTPUT = new Set(['echo', 'printf', 'true', 'false', 'pwd', 'seq', 'sleep', 'basename', 'dirname', 'which', 'type', 'whoami', 'id', 'uname', 'uptime', 'free', 'printenv', 'env']);
/** Programs that may take their arguments from `xargs`: whatever stdin says, they only read. */
const XARGS_SAFE = new Set(['echo', 'cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'ls', 'stat', 'md5sum', 'sha1sum', 'sha256sum', 'du', 'basename', 'dirname', 'realpath', 'printf']);

/** Programs none of whose options write, run a program or name an output: a glob's expansion cannot turn them into writers. */
export const GLOB_SAFE = new Set(['cat', 'head', 'tail', 'wc', 'grep', 'egrep', 'fgrep', 'ls', 'stat', 'md5sum', 'sha1sum', 'sha256sum', 'du', 'diff', 'cmp', 'cut', 'nl', 'od', 'hexdump', 'column', 'echo', 'basename', 'dirname', 'realpath', 'readlink']);

/** A glob whose expansion may include `..` (a segment starting with a dot or a bracket). */
export function globMayClimb(word: WordInfo): boolean {
  return word.glob && word.text.split('/').some((seg) => /^[.[]/.test(seg) && /[*?[]/.test(seg));
}

function partReadOnly(cmd: SimpleCommand): boolean {
  if (cmd.unknown !== null || cmd.redirects.length > 0) return false;
  for (const r of cmd.redirections) {
    if ((r.op === '<' || r.op === '<>') && (r.dynamic || leavesRoot(r.target))) return false;
  }
  const r = resolveCommand(cmd);
  // Anything run as another user is judged by who runs it, not by what it reads.
  if (r.unknown !== null || r.escalated || r.writes.length > 0) return false;
  if (!r.env.every(harmlessVariable) || r.paths.some(leavesRoot)) return false;
  // A bare assignment of a shell variable (`A=1`) is harmless.
  if (r.program === null) return true;
  if (r.lookupOnly) return true;
  const prog = r.program;
  if (prog.dynamic || prog.glob || (prog.text.includes('/') && !systemPath(prog.text))) return false;
  const head = basename(prog.text);
  const words = r.args;
  const args = words.map((a) => a.text);
  if (r.argsFromStdin && !XARGS_SAFE.has(head)) return false;
  // A shell given a string, and eval, run what the string says: its parts are judged on their own.
  if ((SHELLS.has(head) && shellRun(words).kind === 'inline') || (head === 'eval' && !r.argsFromStdin)) return true;
  // printf -v sets a variable by name (PATH, or a subscript that runs a command); a glob or an
  // unquoted value may expand to -v.
  if (head === 'printf' && (args.some((a) => /^-[^-]*v/.test(a)) || words.some((a) => a.glob || (a.dynamic && !a.pipe)))) return false;
  if (PURE_OUTPUT.has(head) && !(head === 'env' && args.length > 0)) return true;
  // The rest read files: every argument must be known now and stay inside the root. A glob may
  // expand to a file named like an option (`-delete`, `--pre=x`): only programs with no such option take one.
  if (words.some((a) => (a.dynamic && !a.pipe) || globMayClimb(a) || (a.glob && !GLOB_SAFE.has(head)))) return false;
  if (args.some(leavesRoot)) return false;
  return programReadOnly(head, args);
}

function programReadOnly(head: string, args: string[]): boolean {
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
  if (head === 'find') return !args.some((a) => FIND_ACTION.test(a));
  if (head === 'sed') {
    // Only -n/-E/-r/-s/-z options, and scripts that print or substitute: GNU sed can run commands (e) and write files (w).
    const options = args.filter((a) => a.startsWith('-'));
    if (!options.every((o) => /^-[nErsz]+$/.test(o) || o === '--quiet' || o === '--regexp-extended')) return false;
    const script = args.find((a) => !a.startsWith('-'));
    return script !== undefined && harmlessSedScript(script);
  }
  if (head === 'sort') return !args.some((a) => /^-[^-]*o/.test(a) || a.startsWith('--output') || a.startsWith('--compress-program'));
  if (head === 'awk' || head === 'gawk' || head === 'mawk') return awkReadOnly(args);
  if (head === 'rg') return !args.some((a) => a.startsWith('--pre'));
  if (head === 'ag') return !args.some((a) => a.startsWith('--pager'));
  if (head === 'xxd') {
    // -r turns a dump back into a file; a second name is a file written.
    if (args.some((a) => /^-[^-]*r/.test(a) || a === '--revert')) return false;
    let positional = 0;
    for (let i = 0; i < args.length; i++) {
      if (/^-[clsgonC]$/.test(args[i]!)) i++;
      else if (!args[i]!.startsWith('-')) positional++;
    }
    return positional <= 1;
  }
  if (head === 'uniq') return args.filter((a) => !a.startsWith('-')).length <= 1 && !args.some((a) => /^-[fsw]$/.test(a));
  if (head === 'tree') return !args.some((a) => a.startsWith('-o'));
  if (head === 'file') return !args.some((a) => /^-[^-]*C/.test(a) || a === '--compile');
  // hostname NAME and hostname -F FILE set the name.
  if (head === 'hostname') return args.every((a) => /^(-[fsiIdaA]|--(fqdn|long|short|domain|all-fqdns|ip-address|all-ip-addresses|alias))$/.test(a));
  if (head === 'cd') return args.length === 1 && args[0] !== '-';
  if (head === 'test' || head === '[') {
    // `-v 'a[$(cmd)]'` evaluates the subscript; `[[`'s arithmetic is not accepted at all.
    return args.every((a, i) => !a.includes('[') || (head === '[' && a === ']' && i === args.length - 1)) && !args.some((a) => a.includes('$('));
  }
  if (head === 'yq') return !args.some((a) => a === '-i' || a.startsWith('--inplace') || a === '-s' || a.startsWith('--split-exp'));
  return READ_ONLY.has(head);
}

/** find's actions that delete, write a file or run a program. */
export const FIND_ACTION = /^-(delete|exec|execdir|ok|okdir|fprint0?|fprintf|fls)$/;

/** awk with only -F/-v options and a program that neither runs, reads commands, writes nor loads. */
export function awkReadOnly(args: readonly string[]): boolean {
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    if (a === '--') {
      i++;
      break;
    }
    if (a === '-F' || a === '-v') i++;
    else if (/^-[Fv]./.test(a)) continue;
    else if (a.startsWith('-')) return false;
    else break;
  }
  const program = args[i];
  return program !== undefined && !/system|getline|[|>]|close|@|fflush/.test(program);
}

function partRisk(cmd: SimpleCommand): RiskLevel {
  const r = resolveCommand(cmd);
  if (r.escalated) return 'high';
  if (r.program === null) return cmd.redirects.length > 0 ? 'medium' : 'low';
  const w = [r.program.text, ...r.args.map((a) => a.text)];
  const head = basename(w[0]!);
  if (head === 'su') return 'high';
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
  return { readOnly, risk, programs: commands.map((c) => basename(resolveCommand(c).program?.text ?? c.words[0] ?? '')) };
}
