/**
 * A small, conservative reader of bash command lines, for policy only (never for running
 * anything: bash itself runs the string). It splits a line into simple commands at `;`, `&&`,
 * `||`, `|`, `&`, newlines and group brackets, removes quotes, records every redirection with
 * its operator, and collects the bodies of `$(…)`, backticks, `<(…)`/`>(…)`, `sh -c '…'` and
 * `eval` so callers judge those too. Wrappers that run another program (`env`, `sudo`, `nice`,
 * `timeout`, `xargs`…) are peeled by {@link resolveCommand}.
 *
 * It fails closed: what it cannot follow with confidence (an unterminated quote, a here-document
 * that expands commands, arithmetic that names variables, a function definition, `for`/`case`,
 * an option of a wrapper it does not know) makes the line `opaque` or the part `unknown`, and
 * callers ask about it.
 */

/** One word of a command, with what the shell may still do to it. */
export interface WordInfo {
  /** Quotes and escapes removed. */
  readonly text: string;
  /** Contains an expansion whose value is unknown here (`$x`, `$(…)`, `` `…` ``, `$'…'`, `{a,b}`, `<(…)`). */
  readonly dynamic: boolean;
  /** Contains an unquoted glob character (`*`, `?`, `[`). */
  readonly glob: boolean;
  /** Index in `text` of the first character that came from quotes or an escape, -1 when none. */
  readonly quotedAt: number;
  /** The whole word is one process substitution (`<(…)`, `>(…)`): it names a pipe to a command judged on its own. */
  readonly pipe?: boolean;
}

export interface Redirection {
  /** `>`, `>>`, `>|`, `&>`, `&>>`, `>&`, `<`, `<>`, `<&`, `<<`, `<<<`. */
  readonly op: string;
  /** The descriptor written before the operator (`2`, `{fd}`), null when none. */
  readonly fd: string | null;
  readonly target: string;
  readonly dynamic: boolean;
  /** Opens (creates, truncates or appends to) a file for writing. */
  readonly writes: boolean;
}

export interface SimpleCommand {
  /** Words with quotes removed, leading `VAR=value` assignments dropped. */
  readonly words: string[];
  /** The same words with what the shell may still do to them. */
  readonly info: WordInfo[];
  /** Assignments that preceded the command (`FOO=1 npm test`). */
  readonly assignments: string[];
  /** Files opened for writing by redirections (`> f`, `>> f`, `>| f`, `&> f`, `<> f`, `>&f`); never /dev/null. */
  readonly redirects: string[];
  /** Every redirection of the part, reads included. */
  readonly redirections: Redirection[];
  /** The raw text of the part, for messages. */
  readonly raw: string;
  /** Why the part cannot be classified (a function definition, `for`, `((…))`…), null when it can. */
  readonly unknown: string | null;
}

export interface ParsedLine {
  readonly commands: SimpleCommand[];
  /** Bodies of command and process substitutions, `sh -c` strings and `eval`, parsed separately by callers. */
  readonly nested: string[];
  /** Something the reader could not follow (unterminated quote, expanding here-document…). */
  readonly opaque: boolean;
}

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '\n', '|&', ';;', ';&', ';;&', '(', ')']);
const REDIRECTIONS = ['&>>', '<<<', '<<-', '&>', '>>', '>|', '>&', '<>', '<&', '<<', '>', '<'];
export const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh', 'ash', 'mksh']);
/** Reserved words that only open or close a compound command: the words after them are a command. */
const TRANSPARENT_RESERVED = new Set(['if', 'then', 'else', 'elif', 'fi', 'do', 'done', 'while', 'until', '!', '{', '}']);
/** Reserved words and builtins that start syntax this reader does not follow. */
const UNKNOWN_RESERVED = new Set(['for', 'case', 'esac', 'select', 'function', 'coproc', '[[', ']]', 'in']);
/** Targets a redirection may write without it being a change. */
const HARMLESS_TARGETS = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*\+?=/;
/** How far a `{` looks for its `}` to tell brace expansion from a group (a longer one is treated as expansion if it has a comma). */
const BRACE_WINDOW = 200;

type Token = { kind: 'word'; word: WordInfo } | { kind: 'op'; text: string; fd: string | null };

interface Builder {
  text: string;
  dynamic: boolean;
  glob: boolean;
  quotedAt: number;
  brace: boolean;
  started: boolean;
  /** The text of a process substitution that opened the word. */
  pipeText: string | null;
}

const newBuilder = (): Builder => ({ text: '', dynamic: false, glob: false, quotedAt: -1, brace: false, started: false, pipeText: null });

/** Index of the `)` closing the `(` at `open`, or -1. Quotes and nested substitutions are skipped. */
function matchParen(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      while (j < s.length && s[j] !== '"') j += s[j] === '\\' ? 2 : 1;
      if (j >= s.length) return -1;
      i = j;
      continue;
    }
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

/** Index of the `}` closing the `${` whose `{` is at `open`, or -1. */
function matchBrace(s: string, open: number): number {
  let depth = 0;
  for (let i = open; i < s.length; i++) {
    const c = s[i];
    if (c === '\\') i++;
    else if (c === "'") {
      const end = s.indexOf("'", i + 1);
      if (end < 0) return -1;
      i = end;
    } else if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Index of the closing backtick of the one at `open`, or -1. */
function matchBacktick(s: string, open: number): number {
  for (let i = open + 1; i < s.length; i++) {
    if (s[i] === '\\') i++;
    else if (s[i] === '`') return i;
  }
  return -1;
}

/** A parameter expansion (`${…}` body) that only substitutes a value: no arithmetic, no indirection. */
function plainParameter(body: string): boolean {
  if (/^#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(body)) return true;
  // Operators on a plain name (`${x:-d}`, `${x%.*}`, `${x//a/b}`): no subscripts, offsets or nested commands.
  return /^[A-Za-z_][A-Za-z0-9_]*(:?[-=?+]|%%?|##?|\/\/?|\^\^?|,,?)/.test(body) && !/[[`]|\$\(/.test(body);
}

interface Lexed {
  tokens: Token[];
  opaque: boolean;
}

/** Splits into words and operators, honouring quotes, escapes, substitutions and here-documents. */
function tokenize(line: string, nested: string[]): Lexed {
  const tokens: Token[] = [];
  let opaque = false;
  let w = newBuilder();
  const heredocs: Array<{ delim: string; quoted: boolean; strip: boolean }> = [];
  let expectDelim: { strip: boolean } | null = null;

  const push = () => {
    if (!w.started) return;
    // Brace expansion (`{a,b}`, `{..,x}`, `{1..3}`) makes other words than the one written.
    const word: WordInfo = { text: w.text, dynamic: w.dynamic || w.brace, glob: w.glob, quotedAt: w.quotedAt, ...(w.pipeText === w.text ? { pipe: true } : {}) };
    if (expectDelim) {
      heredocs.push({ delim: word.text, quoted: word.quotedAt >= 0, strip: expectDelim.strip });
      expectDelim = null;
    }
    tokens.push({ kind: 'word', word });
    w = newBuilder();
  };
  const add = (s: string, quoted: boolean) => {
    if (quoted && w.quotedAt < 0) w.quotedAt = w.text.length;
    w.text += s;
    w.started = true;
  };
  /**
   * A `$…` expansion or backtick at `at` (unquoted or inside double quotes): records command
   * bodies as nested, marks the word dynamic, and returns the index of its last character
   * (-1 when unclosed; `at` itself when `$` is literal).
   */
  const expansion = (at: number, inDouble: boolean): number => {
    const c = line[at]!;
    if (c === '`') {
      const close = matchBacktick(line, at);
      if (close < 0) return -1;
      nested.push(line.slice(at + 1, close).replace(/\\([`\\$])/g, '$1'));
      w.dynamic = true;
      add(line.slice(at, close + 1), true);
      return close;
    }
    const next = line[at + 1];
    if (next === '[') {
      // `$[…]`: the old arithmetic form, evaluated like `$((…))` with names; not followed.
      opaque = true;
      w.dynamic = true;
      add('$', true);
      return at;
    }
    if (next === '(') {
      const close = matchParen(line, at + 1);
      if (close < 0) return -1;
      const body = line.slice(at + 2, close);
      if (body.startsWith('(') && body.endsWith(')')) {
        // Arithmetic: numbers and operators only. A name is evaluated recursively, and a value
        // like `a[$(cmd)]` runs a command, so arithmetic that names anything is not followed.
        if (!/^\(\s*[0-9+\-*/%()<>=!&|^~?:,\s]*\)$/.test(body)) opaque = true;
      } else nested.push(body);
      w.dynamic = true;
      add(line.slice(at, close + 1), true);
      return close;
    }
    if (next === '{') {
      const close = matchBrace(line, at + 1);
      if (close < 0) return -1;
      const body = line.slice(at + 2, close);
      if (!plainParameter(body)) opaque = true;
      w.dynamic = true;
      add(line.slice(at, close + 1), true);
      return close;
    }
    if (next === "'" && !inDouble) {
      // ANSI-C quoting: the escapes can spell anything, so the word is not taken at its face.
      let j = at + 2;
      while (j < line.length && line[j] !== "'") j += line[j] === '\\' ? 2 : 1;
      if (j >= line.length) return -1;
      w.dynamic = true;
      add(line.slice(at + 2, j), true);
      return j;
    }
    if (next !== undefined && /[A-Za-z0-9_@*#?$!-]/.test(next)) {
      let j = at + 1;
      if (/[A-Za-z_]/.test(next)) while (j + 1 < line.length && /[A-Za-z0-9_]/.test(line[j + 1]!)) j++;
      w.dynamic = true;
      add(line.slice(at, j + 1), true);
      return j;
    }
    add('$', false);
    return at;
  };

  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\') {
      if (line[i + 1] === '\n') {
        i++;
        continue;
      }
      if (i + 1 >= line.length) {
        add('\\', false);
        continue;
      }
      add(line[++i]!, true);
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) {
        opaque = true;
        add(line.slice(i + 1), true);
        break;
      }
      add(line.slice(i + 1, end), true);
      i = end;
      continue;
    }
    if (c === '"' || (c === '$' && line[i + 1] === '"')) {
      let j = c === '$' ? i + 2 : i + 1;
      if (c === '$') w.dynamic = true;
      add('', true);
      let closed = false;
      for (; j < line.length; j++) {
        const d = line[j]!;
        if (d === '"') {
          closed = true;
          break;
        }
        if (d === '\\' && j + 1 < line.length) {
          const e = line[j + 1]!;
          if ('$`"\\\n'.includes(e)) {
            if (e !== '\n') add(e, true);
            j++;
          } else add('\\', true);
          continue;
        }
        if (d === '`' || d === '$') {
          const end = expansion(j, true);
          if (end < 0) break;
          j = end;
          continue;
        }
        add(d, true);
      }
      if (!closed) {
        opaque = true;
        break;
      }
      i = j;
      continue;
    }
    if (c === '$' || c === '`') {
      const end = expansion(i, false);
      if (end < 0) {
        opaque = true;
        add(line.slice(i), true);
        break;
      }
      i = end;
      continue;
    }
    if ((c === '<' || c === '>') && line[i + 1] === '(') {
      // Process substitution: the body runs; the word names a pipe.
      const close = matchParen(line, i + 1);
      if (close < 0) {
        opaque = true;
        break;
      }
      nested.push(line.slice(i + 2, close));
      const opens = !w.started;
      w.dynamic = true;
      add(line.slice(i, close + 1), true);
      if (opens) w.pipeText = w.text;
      i = close;
      continue;
    }
    if (c === '#' && !w.started) {
      const nl = line.indexOf('\n', i);
      if (nl < 0) break;
      i = nl - 1;
      continue;
    }
    if (c === ' ' || c === '\t' || c === '\r') {
      push();
      continue;
    }
    if (c === '\n') {
      push();
      tokens.push({ kind: 'op', text: '\n', fd: null });
      if (expectDelim) opaque = true;
      if (heredocs.length > 0) {
        // Here-document bodies follow this newline, one after another.
        let at = i + 1;
        for (const h of heredocs.splice(0)) {
          let found = -1;
          let pos = at;
          while (pos <= line.length) {
            const nl = line.indexOf('\n', pos);
            const end = nl < 0 ? line.length : nl;
            const text = line.slice(pos, end);
            if ((h.strip ? text.replace(/^\t+/, '') : text) === h.delim) {
              found = end;
              break;
            }
            if (nl < 0) break;
            pos = nl + 1;
          }
          const body = line.slice(at, found < 0 ? line.length : pos);
          // An unquoted delimiter lets the body expand `$(…)` and backticks: not followed here.
          if (found < 0 || (!h.quoted && /[`$]/.test(body))) opaque = true;
          at = found < 0 ? line.length : found;
        }
        i = at - 1;
        if (at >= line.length) break;
      }
      continue;
    }
    const op = REDIRECTIONS.find((r) => line.startsWith(r, i));
    if (op) {
      // `2>` / `10>` / `{fd}>`: the word just before, without a space, names the descriptor.
      let fd: string | null = null;
      if (w.started && w.quotedAt < 0 && !w.dynamic && (/^\d+$/.test(w.text) || /^\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(w.text)) && !op.startsWith('&')) {
        fd = w.text;
        w = newBuilder();
      } else push();
      tokens.push({ kind: 'op', text: op, fd });
      if (op === '<<' || op === '<<-') expectDelim = { strip: op === '<<-' };
      i += op.length - 1;
      continue;
    }
    const sep = [';;&', '&&', '||', '|&', ';;', ';&', ';', '|', '&', '(', ')'].find((s) => line.startsWith(s, i));
    if (sep) {
      push();
      if (sep === '(' && line[i + 1] === '(') {
        // `((…))`: an arithmetic command evaluates names recursively; not followed.
        tokens.push({ kind: 'op', text: '((', fd: null });
        const close = matchParen(line, i);
        if (close < 0) {
          opaque = true;
          break;
        }
        i = close;
        continue;
      }
      tokens.push({ kind: 'op', text: sep, fd: null });
      i += sep.length - 1;
      continue;
    }
    if (c === '*' || c === '?' || c === '[') w.glob = true;
    if (c === '{') {
      // Brace expansion: `{a,b}` or `{x..y}` with no space inside (`{ ls, x; }` is a group).
      // Looked for within a bounded window so a line of many braces stays linear; beyond it, a comma counts.
      if (!w.brace) {
        const window = line.slice(i + 1, i + 1 + BRACE_WINDOW);
        const end = window.indexOf('}');
        const inner = end < 0 ? window : window.slice(0, end);
        w.brace = (end < 0 || !/\s/.test(inner)) && /,|\.\./.test(inner);
      }
    }
    add(c, false);
  }
  push();
  if (expectDelim || heredocs.length > 0) opaque = true;
  return { tokens, opaque };
}

function isAssignment(word: WordInfo): boolean {
  if (!ASSIGNMENT.test(word.text)) return false;
  // `"X=1"` is a command name, not an assignment: the name and `=` must be unquoted.
  return word.quotedAt < 0 || word.quotedAt > word.text.indexOf('=');
}

/** Whether a redirection writes a file (descriptor duplication and /dev/null do not). */
function redirectionWrites(op: string, target: string, dynamic: boolean): boolean {
  if (op === '<' || op === '<<' || op === '<<-' || op === '<<<' || op === '<&') return false;
  if (op === '>&' && !dynamic && /^(\d+|-|\d+-)$/.test(target)) return false;
  return dynamic || !HARMLESS_TARGETS.has(target);
}

/** Parses one command line. Nested bodies (`$(…)`, `sh -c '…'`) are listed, not expanded. */
export function parseCommandLine(line: string): ParsedLine {
  const nested: string[] = [];
  const lexed = tokenize(line, nested);
  let opaque = lexed.opaque;
  const { tokens } = lexed;
  const commands: SimpleCommand[] = [];
  let words: WordInfo[] = [];
  let redirections: Redirection[] = [];
  let unknown: string | null = null;
  const close = () => {
    if (words.length > 0 || redirections.length > 0 || unknown) {
      const assignments: string[] = [];
      while (words.length > 0 && isAssignment(words[0]!)) assignments.push(words.shift()!.text);
      const texts = words.map((x) => x.text);
      const command: SimpleCommand = {
        words: texts,
        info: words,
        assignments,
        redirects: redirections.filter((r) => r.writes).map((r) => r.target),
        redirections,
        raw: [...assignments, ...texts].join(' '),
        unknown,
      };
      for (const part of [command, ...findExecCommands(command)]) {
        commands.push(part);
        const bodies = shellBodies(part);
        if (bodies === null) opaque = true;
        else nested.push(...bodies);
      }
    }
    words = [];
    redirections = [];
    unknown = null;
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (t.kind === 'word') {
      const atStart = words.length === 0;
      if (atStart && t.word.quotedAt < 0 && !t.word.dynamic && TRANSPARENT_RESERVED.has(t.word.text)) continue;
      if (atStart && t.word.quotedAt < 0 && UNKNOWN_RESERVED.has(t.word.text)) unknown ??= `${t.word.text} is not followed`;
      words.push(t.word);
      continue;
    }
    if (t.text === '((') {
      close();
      unknown = 'an arithmetic command';
      close();
      continue;
    }
    if (t.text === '(' && words.length > 0) {
      // `name ( )` defines a function; `a=(…)` an array. Neither is followed here.
      unknown ??= tokens[i + 1]?.kind === 'op' && (tokens[i + 1] as { text: string }).text === ')' ? 'a function definition' : 'an array or unexpected "("';
      close();
      continue;
    }
    if (SEPARATORS.has(t.text)) {
      close();
      continue;
    }
    // A redirection: the next word is its target.
    const target = tokens[i + 1];
    if (!target || target.kind !== 'word') {
      opaque = true;
      continue;
    }
    i++;
    const { text, dynamic } = target.word;
    redirections.push({ op: t.text, fd: t.fd, target: text, dynamic, writes: redirectionWrites(t.text, text, dynamic) });
  }
  close();
  return { commands, nested, opaque };
}

/** `find … -exec prog args ;`: the program find runs, as its own part. */
function findExecCommands(cmd: SimpleCommand): SimpleCommand[] {
  const r = resolveCommand(cmd);
  if (!r.program || basename(r.program.text) !== 'find') return [];
  const out: SimpleCommand[] = [];
  const args = r.args;
  for (let i = 0; i < args.length; i++) {
    if (!/^-(exec|execdir|ok|okdir)$/.test(args[i]!.text)) continue;
    let j = i + 1;
    while (j < args.length && args[j]!.text !== ';' && args[j]!.text !== '+') j++;
    const info = args.slice(i + 1, j);
    const words = info.map((x) => x.text);
    out.push({ words, info, assignments: [], redirects: [], redirections: [], raw: words.join(' '), unknown: j >= args.length ? 'find -exec without its end' : null });
    i = j;
  }
  return out;
}

/** `bash -c '…'`, `eval …`: the strings that run as commands; null when one cannot be read. */
function shellBodies(cmd: SimpleCommand): string[] | null {
  const r = resolveCommand(cmd);
  if (!r.program) return [];
  const head = basename(r.program.text);
  if (head === 'eval') {
    if (r.args.some((a) => a.dynamic) || r.argsFromStdin) return null;
    return [r.args.map((a) => a.text).join(' ')];
  }
  if (!SHELLS.has(head)) return [];
  const run = shellRun(r.args);
  if (run.kind !== 'inline') return [];
  if (run.body.dynamic || r.argsFromStdin) return null;
  return [run.body.text];
}

export type ShellRun = { kind: 'inline'; body: WordInfo } | { kind: 'script'; path: WordInfo } | { kind: 'stdin' } | { kind: 'unknown' };

/** What a shell given these arguments runs: a `-c` string, a script file, stdin, or something not read here. */
export function shellRun(args: readonly WordInfo[]): ShellRun {
  let inline = false;
  let stdin = false;
  let i = 0;
  for (; i < args.length; i++) {
    const a = args[i]!;
    const t = a.text;
    if (a.dynamic) return { kind: 'unknown' };
    if (t === '--' || t === '-') {
      i++;
      break;
    }
    if (/^[-+][oO]$/.test(t)) {
      i++;
      continue;
    }
    if (/^[-+][a-zA-Z]+$/.test(t)) {
      if (t.startsWith('-') && t.includes('c')) inline = true;
      if (t.startsWith('-') && t.includes('s')) stdin = true;
      continue;
    }
    if (/^--(norc|noprofile|posix|login|noediting|verbose)$/.test(t)) continue;
    if (t.startsWith('-') || t.startsWith('+')) return { kind: 'unknown' };
    break;
  }
  const next = args[i];
  if (inline) return next ? { kind: 'inline', body: next } : { kind: 'unknown' };
  if (stdin || !next) return { kind: 'stdin' };
  return { kind: 'script', path: next };
}

export function basename(word: string): string {
  const i = word.lastIndexOf('/');
  return i >= 0 && i < word.length - 1 ? word.slice(i + 1) : word;
}

/** What a simple command runs once the wrappers around it are peeled. */
export interface Resolved {
  /** The word naming the program that runs, null when the part only assigns or redirects. */
  readonly program: WordInfo | null;
  readonly args: WordInfo[];
  /** Wrappers peeled, outermost first (`sudo`, `env`, `timeout`…). */
  readonly wrappers: string[];
  /** Runs as another user (`sudo`, `doas`). */
  readonly escalated: boolean;
  /** Environment variables set for the program (prefix assignments and `env NAME=…`), by name. */
  readonly env: string[];
  /** `xargs` adds arguments read from stdin. */
  readonly argsFromStdin: boolean;
  /** Files a wrapper writes itself (`time -o f`, `nohup`'s nohup.out). */
  readonly writes: string[];
  /** Paths a wrapper reads or changes into (`env -C dir`, `xargs -a file`). */
  readonly paths: string[];
  /** `command -v x`: only looks a name up. */
  readonly lookupOnly: boolean;
  /** Why the wrappers cannot be read with confidence, null when they can. */
  readonly unknown: string | null;
}

interface WrapperSpec {
  /** Options that take a value as the next word (or glued: `-n5`, `--signal=9`). */
  withValue: RegExp;
  /** Options without a value. */
  flags: RegExp;
  /** Positional words the wrapper takes before the command (`timeout 5`). */
  positional?: number;
}

/** Wrappers that run their arguments as a command, with the options they take. */
const WRAPPERS: Record<string, WrapperSpec> = {
  env: { withValue: /^(-u|--unset|-C|--chdir)$/, flags: /^(-i|-0|--ignore-environment|--null|-v|--debug|-)$/ },
  nice: { withValue: /^(-n|--adjustment)$/, flags: /^-\d+$/ },
  ionice: { withValue: /^(-c|-n|--class|--classdata)$/, flags: /^(-t|--ignore)$/ },
  nohup: { withValue: /^$/, flags: /^$/ },
  time: { withValue: /^(-o|--output|-f|--format)$/, flags: /^(-p|-a|-v|--append|--verbose|--portability|-q|--quiet)$/ },
  timeout: { withValue: /^(-s|--signal|-k|--kill-after)$/, flags: /^(--preserve-status|--foreground|-v|--verbose|-[fv]+)$/, positional: 1 },
  stdbuf: { withValue: /^(-i|-o|-e|--input|--output|--error)$/, flags: /^$/ },
  command: { withValue: /^$/, flags: /^-p$/ },
  builtin: { withValue: /^$/, flags: /^$/ },
  exec: { withValue: /^-a$/, flags: /^(-c|-l|-cl|-lc)$/ },
  xargs: {
    withValue: /^(-a|--arg-file|-d|--delimiter|-E|-I|-L|--max-lines|-n|--max-args|-P|--max-procs|-s|--max-chars|--process-slot-var)$/,
    flags: /^(-0|--null|-r|--no-run-if-empty|-t|--verbose|-p|--interactive|-x|--exit|-o|--open-tty|-e|-i|-l|--replace|--show-limits)$/,
  },
  sudo: {
    withValue: /^(-u|--user|-g|--group|-C|--close-from|-D|--chdir|-h|--host|-p|--prompt|-r|--role|-t|--type|-U|--other-user|-T|--command-timeout)$/,
    flags: /^(-[AbEHknPS]+|--askpass|--background|--preserve-env|--set-home|--non-interactive|--preserve-groups|--stdin|--reset-timestamp|--)$/,
  },
  doas: { withValue: /^(-u|-C)$/, flags: /^(-n)$/ },
};

const plain = (text: string): WordInfo => ({ text, dynamic: false, glob: false, quotedAt: -1 });

/** Peels wrappers (`sudo -u x`, `env -i A=1`, `timeout 5`, `xargs -n1`) off a command. */
export function resolveCommand(cmd: Pick<SimpleCommand, 'info' | 'assignments'>): Resolved {
  let w = [...cmd.info];
  const wrappers: string[] = [];
  const env = cmd.assignments.map((a) => a.slice(0, a.search(/\+?=/)));
  const writes: string[] = [];
  const paths: string[] = [];
  let escalated = false;
  let argsFromStdin = false;
  let lookupOnly = false;
  let unknown: string | null = null;
  for (let guard = 0; guard < 16 && w.length > 0; guard++) {
    const word = w[0]!;
    const head = basename(word.text);
    const spec = WRAPPERS[head];
    if (!spec || word.dynamic || word.glob || (word.text.includes('/') && !systemPath(word.text))) break;
    wrappers.push(head);
    if (head === 'sudo' || head === 'doas') escalated = true;
    if (head === 'xargs') argsFromStdin = true;
    if (head === 'nohup') writes.push('nohup.out');
    w = w.slice(1);
    let positional = spec.positional ?? 0;
    while (w.length > 0) {
      const a = w[0]!;
      const t = a.text;
      if (a.dynamic) {
        unknown ??= `an option of ${head} that is only known when it runs`;
        break;
      }
      if (head === 'command' && /^-[pvV]*[vV][pvV]*$/.test(t)) {
        lookupOnly = true;
        w.shift();
        continue;
      }
      if (head === 'env' && (t.startsWith('--split-string') || /^-[^-]*S/.test(t))) {
        unknown ??= 'env -S splits a string into a command';
        break;
      }
      if (t === '--' && head !== 'sudo') {
        w.shift();
        break;
      }
      // `--opt=value`, `-ovalue` or `-o value`.
      const eq = t.indexOf('=');
      let name = t;
      let value: WordInfo | undefined = w[1];
      let used = 2;
      if (t.startsWith('--') && eq > 0) {
        name = t.slice(0, eq);
        value = { ...a, text: t.slice(eq + 1) };
        used = 1;
      } else if (!t.startsWith('--') && t.length > 2 && spec.withValue.test(t.slice(0, 2))) {
        name = t.slice(0, 2);
        value = { ...a, text: t.slice(2) };
        used = 1;
      }
      if (t.startsWith('-') && spec.withValue.test(name)) {
        if (value === undefined || value.dynamic) unknown ??= `the value of ${head} ${name} is not known here`;
        else if (head === 'time' && /^(-o|--output)$/.test(name)) writes.push(value.text);
        else if ((head === 'env' && /^(-C|--chdir)$/.test(name)) || (head === 'sudo' && /^(-D|--chdir)$/.test(name)) || (head === 'xargs' && /^(-a|--arg-file)$/.test(name))) paths.push(value.text);
        w = w.slice(used);
        continue;
      }
      // xargs's -i, -l and -e take an optional value glued to them.
      if (spec.flags.test(t) || (head === 'xargs' && /^(-[ile].*|--replace(=.*)?|--eof(=.*)?|--max-lines(=.*)?)$/.test(t))) {
        w.shift();
        continue;
      }
      if (head === 'env' && ASSIGNMENT.test(t)) {
        env.push(t.slice(0, t.search(/\+?=/)));
        w.shift();
        continue;
      }
      if (positional > 0 && !t.startsWith('-')) {
        positional--;
        w.shift();
        continue;
      }
      if (t.startsWith('-') && t.length > 1) {
        unknown ??= `the option ${t} of ${head} is not known here`;
        w.shift();
        continue;
      }
      break;
    }
    if (head === 'xargs' && w.length === 0) {
      // xargs without a command runs echo.
      return { program: plain('echo'), args: [], wrappers, escalated, env, argsFromStdin, writes, paths, lookupOnly, unknown };
    }
    if ((head === 'sudo' || head === 'doas') && w.length === 0) unknown ??= `${head} without a command opens a shell`;
    if (lookupOnly) break;
    if (w.length === 0 && head !== 'exec') {
      // `env`, `nice`, `time` alone: the wrapper is the program (env prints the environment).
      wrappers.pop();
      return { program: word, args: [], wrappers, escalated, env, argsFromStdin, writes, paths, lookupOnly, unknown };
    }
  }
  if (lookupOnly) return { program: plain('command -v'), args: w, wrappers, escalated, env, argsFromStdin, writes, paths, lookupOnly, unknown };
  // `xargs -I{}` puts stdin lines into the words that hold the replacement string.
  const program = w[0] ?? null;
  return { program, args: w.slice(1), wrappers, escalated, env, argsFromStdin, writes, paths, lookupOnly, unknown };
}

/** A program named by an absolute path in a system folder is the program of that name. */
export function systemPath(word: string): boolean {
  return /^\/(usr\/(local\/)?)?s?bin\/[^/]+$/.test(word);
}

/** The words of a command with wrappers (`sudo`, `env X=1`, `timeout 5`) peeled off. */
export function unwrap(words: readonly string[]): string[] {
  const info = words.map(plain);
  const assignments: string[] = [];
  while (info.length > 0 && ASSIGNMENT.test(info[0]!.text)) assignments.push(info.shift()!.text);
  const r = resolveCommand({ info, assignments });
  return r.program ? [r.program.text, ...r.args.map((a) => a.text)] : [];
}

/**
 * Every simple command of a line, nested bodies included (depth-limited so a crafted
 * string cannot recurse forever). `opaque` is true when any level could not be followed.
 */
export function allCommands(line: string, depth = 0): { commands: SimpleCommand[]; opaque: boolean } {
  const parsed = parseCommandLine(line);
  let opaque = parsed.opaque;
  const commands = [...parsed.commands];
  if (depth < 4) {
    for (const body of parsed.nested) {
      const inner = allCommands(body, depth + 1);
      commands.push(...inner.commands);
      opaque ||= inner.opaque;
    }
  } else if (parsed.nested.length > 0) opaque = true;
  return { commands, opaque };
}
