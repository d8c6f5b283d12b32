/**
 * "Approve for this session" remembers a command family, not an exact string: approving
 * `npm test -- --watch=false` also lets `npm test -- src/a.test.ts` run, but not `npm publish`.
 * Pure and unit-tested.
 *
 * A family is what runs, not the first word: the program once wrappers are peeled (`env`,
 * `timeout`, `xargs`…), plus, for programs whose first argument is a subcommand, that subcommand
 * (and the script name for `npm run` and friends), then ` *`. What changes what the program does
 * is part of the family: running as another user (`sudo npm test *`), environment variables that
 * name programs or libraries (`NODE_OPTIONS=* npm test *`), options before the subcommand
 * (`git -C sub status *`), options that write or run (`sed -i *`, `find -exec *`, `git diff
 * --output *`), and a redirection to a file (`echo * >`). Code given inline to an interpreter
 * (`python -c …`) is remembered exactly. A part that cannot be classified has no family and is
 * never covered: the whole line asks.
 *
 * A line with several parts needs every part's family remembered; a shell's `-c` string and
 * `$(…)` bodies are parts of their own.
 */
import { awkReadOnly, FIND_ACTION, globMayClimb, harmlessSedScript, harmlessVariable, leavesRoot, PURE_OUTPUT } from './command-class';
import { allCommands, basename, resolveCommand, shellRun, SHELLS, systemPath, type SimpleCommand, type WordInfo } from './shell-parse';

/** Programs whose first non-option argument selects what they do. */
const WITH_SUBCOMMAND = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'cargo', 'go', 'docker', 'podman', 'kubectl', 'helm', 'pip', 'pip3', 'poetry',
  'uv', 'make', 'gradle', './gradlew', 'gradlew', 'mvn', 'dotnet', 'terraform', 'brew', 'apt', 'apt-get', 'systemctl', 'gh',
  'rustup', 'deno', 'composer', 'bundle', 'rake', 'rails', 'mix', 'swift', 'flutter', 'dart', 'just', 'task', 'nx', 'turbo',
]);
/** Subcommands that take a script or target name which is part of the family. */
const NAMED_SCRIPT = new Set(['run', 'run-script', 'exec', 'x', 'dlx']);
/** Package managers: their own options (before `--`) can swap the shell or the folder a script runs with. */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun', 'npx']);
const HARMLESS_PM_OPTION = /^(-s|--silent|-q|--quiet|--if-present|--verbose|-d|--loglevel=\w+|--color|--no-color)$/;
/** Global options that take the next word as their value. */
const GLOBAL_WITH_VALUE = /^(-C|-c|--prefix|--cwd|-f|--file|-p|--project|--filter|-w|--workspace|--dir|--manifest-path|--git-dir|--work-tree|--namespace|-n|--context|--config-env)$/;
/** git options that make a subcommand run a program, write elsewhere or act on another repository. */
const GIT_FAMILY_OPTION = /^(--output|--ext-diff|--textconv|-O|--open-files-in-pager|--exec|-x|--upload-pack|--receive-pack|--template|--exec-path|--config|-c|--git-dir|--work-tree)(=|$)|^-O./;
/** Interpreters: a script they run is part of the family, code given inline is remembered exactly. */
const INTERPRETERS = new Set(['python', 'python2', 'python3', 'node', 'nodejs', 'perl', 'ruby', 'php', 'lua', 'luajit', 'Rscript', 'julia', 'osascript', 'pwsh', 'powershell', 'tclsh', 'wish', 'expect', 'groovy', 'scala', 'kotlin', 'jshell', 'irb', 'ts-node', 'tsx', 'bunx', 'awk', 'gawk', 'mawk']);
/** Programs that run another command given in their arguments in ways not followed here: remembered exactly. */
const RUNS_OTHERS = new Set([
  'watch', 'flock', 'strace', 'ltrace', 'gdb', 'valgrind', 'firejail', 'bwrap', 'unshare', 'nsenter', 'chroot', 'su', 'runuser', 'script', 'parallel',
  'ssh', 'setsid', 'taskset', 'chrt', 'unbuffer', 'faketime', 'proxychains', 'proxychains4', 'torsocks', 'at', 'batch', 'busybox', 'systemd-run',
  'dbus-run-session', 'xvfb-run', 'catchsegv', 'nocache', 'setpriv', 'sg', 'newgrp', 'entr', 'tmux', 'screen', 'nix-shell', 'direnv', 'sshpass',
]);

/** Programs whose family depends on their options ({@link writingOptions}). */
const OPTION_FAMILIES = new Set(['sed', 'sort', 'find', 'dd', 'tar', 'rg', 'ag', 'tree', 'yq', 'uniq', 'xxd']);

/** Builtins that change the shell's own state: what runs after them is no longer what it looks like. */
const SHELL_STATE = new Set(['alias', 'unalias', 'enable', 'hash', 'trap', 'shopt', 'set', 'declare', 'typeset', 'export', 'readonly', 'local', 'let', 'read', 'mapfile', 'readarray', 'unset', 'bind', 'complete', 'compgen', 'fc', 'history', 'caller', 'exec']);
/** Builtins that take variable names, whose subscripts are evaluated. */
const NAME_TAKING = new Set(['test', '[', 'wait', 'kill', 'printf']);

/** A part's family, or why it has none. */
export type Family = { kind: 'family'; text: string } | { kind: 'none' } | { kind: 'unknown' };

const UNKNOWN: Family = { kind: 'unknown' };
const NONE: Family = { kind: 'none' };
const fam = (text: string): Family => ({ kind: 'family', text });

/** A word as a rule shows it: quoted when it holds spaces or shell characters, so rules read back unambiguously. */
function shown(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word);
}

/** The family of one part of a command line. */
export function familyOf(cmd: SimpleCommand): Family {
  if (cmd.unknown !== null) return UNKNOWN;
  const r = resolveCommand(cmd);
  if (r.unknown !== null) return UNKNOWN;
  const writes = cmd.redirects.length > 0 || r.writes.length > 0;
  // Writing outside the root (or where a value decides) is a family of its own: `echo * >` does not cover `> ~/.bashrc`.
  const writesOutside = cmd.redirections.some((x) => x.writes && (x.dynamic || leavesRoot(x.target))) || r.writes.some(leavesRoot);
  const suffix = writes ? (writesOutside ? ' > (outside the root)' : ' >') : '';
  const prefix = [
    ...r.wrappers.filter((w) => w === 'sudo' || w === 'doas' || w === 'xargs'),
    ...[...new Set(r.env.filter((n) => !harmlessVariable(n)))].sort().map((n) => `${n}=*`),
  ].join(' ');
  const withPrefix = (text: string) => (prefix ? `${prefix} ${text}` : text);
  const exact = () => fam(withPrefix([r.program!.text, ...r.args.map((a) => a.text)].map(shown).join(' ') + suffix));
  if (r.program === null) {
    if (writes) return fam(withPrefix('>'));
    return prefix ? fam(prefix) : NONE;
  }
  const prog = r.program;
  if (prog.dynamic || prog.glob || !/^[\w@%+=:,./[-]+$/.test(prog.text)) return UNKNOWN;
  if (r.args.some((a) => a.dynamic) && r.argsFromStdin) return UNKNOWN;
  const head = prog.text.includes('/') && !systemPath(prog.text) ? prog.text : basename(prog.text);
  const args = r.args;
  const texts = args.map((a) => a.text);
  if (r.lookupOnly) return fam(withPrefix(`command -v *${suffix}`));
  if (RUNS_OTHERS.has(head)) return exact();
  // Builtins that change the shell itself (aliases, options, traps, variables by name) are never
  // remembered; a subscript in a variable name (`a[$(cmd)]`) is evaluated and runs commands.
  if (SHELL_STATE.has(head)) return UNKNOWN;
  if (NAME_TAKING.has(head) && texts.some((t) => t.includes('[') && t !== '[' && t !== ']')) return UNKNOWN;
  if (head === 'printf' && (texts.some((t) => /^-[^-]*v/.test(t)) || args.some((a) => a.glob || (a.dynamic && !a.pipe)))) return UNKNOWN;
  if (head === 'eval') return prefix || writes ? fam(withPrefix(`eval *${suffix}`)) : NONE;
  if (SHELLS.has(head) || head === 'source' || head === '.') {
    const run = head === 'source' || head === '.' ? scriptOf(args) : shellRun(args);
    if (run.kind === 'inline') {
      // The string is judged as parts of its own; the shell itself matters only when it redirects or escalates.
      if (r.argsFromStdin) return UNKNOWN;
      return prefix || writes ? fam(withPrefix(`${head} -c *${suffix}`)) : NONE;
    }
    if (run.kind === 'script' && !run.path.dynamic && !run.path.glob) return fam(withPrefix(`${head} ${shown(run.path.text)} *${suffix}`));
    // A shell reading stdin runs whatever the pipe says.
    return UNKNOWN;
  }
  if (INTERPRETERS.has(head)) return interpreterFamily(head, args, withPrefix, suffix, exact);
  // A value known only when the line runs, or a glob (which may expand to `-delete`, `--output=x`),
  // can be an option that changes the family: for programs whose family depends on options, none is accepted.
  const unknownValue = (a: WordInfo) => (a.dynamic && !a.pipe) || a.glob;
  // Arguments read from stdin by xargs may be options: only programs whose family ignores options take them.
  if (r.argsFromStdin && (WITH_SUBCOMMAND.has(basename(head)) || OPTION_FAMILIES.has(basename(head)))) return UNKNOWN;
  if (WITH_SUBCOMMAND.has(head) || WITH_SUBCOMMAND.has(basename(head))) {
    const end = texts.indexOf('--');
    if ((end < 0 ? args : args.slice(0, end)).some(unknownValue)) return UNKNOWN;
    return subcommandFamily(head, texts, withPrefix, suffix);
  }
  if (OPTION_FAMILIES.has(basename(head)) && args.some(unknownValue)) return UNKNOWN;
  const marks = writingOptions(basename(head), texts);
  if (marks === null) return exact();
  // Naming a place outside the root (or a value that may be one) is a family of its own: approving
  // `cat *` for the project's files does not approve reading ~/.ssh.
  const outside =
    !PURE_OUTPUT.has(basename(head)) &&
    (args.some((a) => (a.dynamic && !a.pipe) || globMayClimb(a) || leavesRoot(a.text)) || r.paths.some(leavesRoot) || cmd.redirections.some((x) => (x.op === '<' || x.op === '<>') && (x.dynamic || leavesRoot(x.target))));
  return fam(withPrefix(`${[head, ...marks].join(' ')} *${outside ? ' (outside the root)' : ''}${suffix}`));
}

function scriptOf(args: readonly WordInfo[]): ReturnType<typeof shellRun> {
  return args[0] ? { kind: 'script', path: args[0] } : { kind: 'unknown' };
}

function interpreterFamily(head: string, args: readonly WordInfo[], withPrefix: (t: string) => string, suffix: string, exact: () => Family): Family {
  if (head === 'awk' || head === 'gawk' || head === 'mawk') {
    // A program that only reads is a family; one that runs, writes or loads is remembered exactly.
    return awkReadOnly(args.map((a) => a.text)) && !args.some((a) => a.dynamic) ? fam(withPrefix(`${head} *${suffix}`)) : exact();
  }
  const options: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a.dynamic) return UNKNOWN;
    const t = a.text;
    if (!t.startsWith('-') || t === '-') {
      if (t === '-') return UNKNOWN;
      return fam(withPrefix(`${[head, ...options, shown(t)].join(' ')} *${suffix}`));
    }
    // Inline code (`-c`, `-e`, `-pe`, `--eval`, `-r` for php): remembered exactly.
    if (/^--(eval|print|command|exec)(=|$)/.test(t) || /^-(c|e|E|p|r|Command)$/.test(t) || (/^-[a-zA-Z]+$/.test(t) && /[ceE]/.test(t) && head !== 'node')) return exact();
    if (head === 'python' || head === 'python2' || head === 'python3') {
      if (t === '-m' && args[i + 1]) return fam(withPrefix(`${[head, ...options, '-m', shown(args[i + 1]!.text)].join(' ')} *${suffix}`));
      if (/^-[WXQ]$/.test(t)) {
        options.push(t, shown(args[++i]?.text ?? ''));
        continue;
      }
    }
    if (/^(-r|--require|--import|--loader|--experimental-loader|-I|-M|-x)$/.test(t)) {
      // Options that load another file first are part of the family, with their value.
      options.push(t, shown(args[++i]?.text ?? ''));
      continue;
    }
    options.push(shown(t));
  }
  // No script: the interpreter reads its program from stdin.
  return UNKNOWN;
}

function subcommandFamily(head: string, args: readonly string[], withPrefix: (t: string) => string, suffix: string): Family {
  const parts = [head];
  let i = 0;
  // Global options before the subcommand are part of the family (`git -C other`, `npm --prefix x`).
  while (i < args.length && args[i]!.startsWith('-')) {
    parts.push(shown(args[i]!));
    if (GLOBAL_WITH_VALUE.test(args[i]!) && args[i + 1] !== undefined) parts.push(shown(args[++i]!));
    i++;
  }
  const sub = args[i];
  // The program alone (`git`, `make`) is remembered as written: its family would be every subcommand.
  if (sub === undefined) return fam(withPrefix(parts.join(' ') + suffix));
  parts.push(shown(sub));
  const script = args[i + 1];
  if (NAMED_SCRIPT.has(sub) && script !== undefined && !script.startsWith('-')) {
    parts.push(shown(script));
    i++;
  }
  const rest = args.slice(i + 1);
  if (PACKAGE_MANAGERS.has(head)) {
    const end = rest.indexOf('--');
    for (const a of end < 0 ? rest : rest.slice(0, end)) if (a.startsWith('-') && !HARMLESS_PM_OPTION.test(a)) parts.push(shown(a));
  }
  if (head === 'git') for (const a of rest) if (GIT_FAMILY_OPTION.test(a)) parts.push(shown(a));
  return fam(withPrefix(`${parts.join(' ')} *${suffix}`));
}

/**
 * Options through which a program that can also just read writes files or runs programs: they
 * make a family of their own (`sed -i *`). Null when the arguments hold code: remembered exactly.
 */
function writingOptions(head: string, args: readonly string[]): string[] | null {
  const marks = new Set<string>();
  switch (head) {
    case 'sed': {
      if (args.some((a) => /^-[a-zA-Z]*i/.test(a) || a.startsWith('--in-place'))) marks.add('-i');
      if (args.some((a) => a === '-f' || a.startsWith('--file') || a === '-e' || a.startsWith('--expression') || /^-[^-]*[ef]/.test(a))) return null;
      const script = args.find((a) => !a.startsWith('-'));
      if (script === undefined || !harmlessSedScript(script)) return null;
      break;
    }
    case 'sort':
      if (args.some((a) => a.startsWith('--compress-program'))) return null;
      if (args.some((a) => /^-[^-]*o/.test(a) || a.startsWith('--output'))) marks.add('-o');
      break;
    case 'find':
      for (const a of args) if (FIND_ACTION.test(a)) marks.add(a.replace(/^-(fprint0?|fprintf|fls)$/, '-fprint'));
      break;
    case 'dd':
      if (args.some((a) => a.startsWith('of='))) marks.add('of=');
      break;
    case 'tar': {
      if (args.some((a) => /^--(to-command|use-compress-program|checkpoint-action|rsh-command|info-script|new-volume-script|index-file)/.test(a) || /^-[^-]*[IF]/.test(a))) return null;
      const modes = args.flatMap((a, i) => {
        if (a.startsWith('--')) return /^--(create|extract|get|list|append|update|delete|catenate|concatenate|diff|compare)$/.test(a) ? [a] : [];
        const letters = a.startsWith('-') ? a.slice(1) : i === 0 ? a : '';
        return [...letters].filter((l) => 'cxtruAd'.includes(l)).map((l) => `-${l}`);
      });
      for (const m of modes) marks.add(m);
      break;
    }
    case 'rg':
      if (args.some((a) => a.startsWith('--pre'))) return null;
      break;
    case 'ag':
      if (args.some((a) => a.startsWith('--pager'))) return null;
      break;
    case 'tree':
      if (args.some((a) => a.startsWith('-o'))) marks.add('-o');
      break;
    case 'uniq':
    case 'xxd':
      // A second file name is the output: a family of its own.
      if (args.some((a) => /^-[^-]*r/.test(a) && head === 'xxd') || args.filter((a) => !a.startsWith('-')).length > 1) marks.add('[to file]');
      break;
    case 'yq':
      if (args.some((a) => a === '-i' || a.startsWith('--inplace'))) marks.add('-i');
      if (args.some((a) => a === '-s' || a.startsWith('--split-exp'))) marks.add('-s');
      break;
    default:
      break;
  }
  return [...marks];
}

/** The families of every part of a command line, deduplicated, in order (parts without one left out). */
export function commandFamilies(command: string): string[] {
  const out: string[] = [];
  for (const c of allCommands(command).commands) {
    const f = familyOf(c);
    if (f.kind === 'family' && !out.includes(f.text)) out.push(f.text);
  }
  return out;
}

/** The prefix of a rule that remembers one command line exactly (a line with a part that has no family). */
export const EXACT_RULE = 'exactly: ';

/** The rule "approve for this session" stores for a bash command: its families joined, or the exact line. */
export function commandSessionRule(command: string): string {
  const { commands, opaque } = allCommands(command);
  const families: string[] = [];
  let unknown = opaque;
  for (const c of commands) {
    const f = familyOf(c);
    if (f.kind === 'unknown') unknown = true;
    else if (f.kind === 'family' && !families.includes(f.text)) families.push(f.text);
  }
  return unknown || families.length === 0 ? `${EXACT_RULE}${command.trim()}` : families.join(' && ');
}

/** The families a stored rule holds (split at ` && ` outside the quotes {@link shown} adds). */
export function ruleFamilies(rule: string): string[] {
  if (rule.startsWith(EXACT_RULE)) return [];
  const out: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < rule.length; i++) {
    const c = rule[i];
    if (c === '\\' && quoted) i++;
    else if (c === '"') quoted = !quoted;
    else if (!quoted && rule.startsWith(' && ', i)) {
      out.push(rule.slice(start, i));
      start = i + 4;
      i += 3;
    }
  }
  out.push(rule.slice(start));
  return out;
}

/**
 * The remembered rules that together cover every part of the command, or null when some part
 * is not covered, cannot be classified, or the line cannot be followed. Never an empty list:
 * a line with nothing to match is not "covered".
 */
export function matchingRules(rules: readonly string[], command: string): string[] | null {
  const exact = rules.find((r) => r === `${EXACT_RULE}${command.trim()}`);
  if (exact !== undefined) return [exact];
  const { commands, opaque } = allCommands(command);
  if (opaque || commands.length === 0) return null;
  const used: string[] = [];
  for (const c of commands) {
    const f = familyOf(c);
    if (f.kind === 'unknown') return null;
    if (f.kind === 'none') continue;
    const rule = rules.find((r) => ruleFamilies(r).includes(f.text));
    if (rule === undefined) return null;
    if (!used.includes(rule)) used.push(rule);
  }
  return used.length > 0 ? used : null;
}
