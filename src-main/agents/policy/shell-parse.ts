/**
 * A small, conservative reader of bash command lines, for policy only (never for running
 * anything: bash itself runs the string). It splits a line into simple commands at
 * `;`, `&&`, `||`, `|`, `&` and newlines, removes quotes, notes redirections and collects the
 * bodies of `$(…)`, backticks and `bash -c '…'` so callers can judge those too.
 *
 * When unsure it errs towards "not read-only" / "more risky": callers treat `opaque` parts
 * (unterminated quotes, heredocs) as unknown commands.
 */

export interface SimpleCommand {
  /** Words with quotes removed, leading `VAR=value` assignments dropped. */
  readonly words: string[];
  /** Assignments that preceded the command (`FOO=1 npm test`). */
  readonly assignments: string[];
  /** Targets of output redirections (`> file`, `>> file`, `2> file`, `&> file`). */
  readonly redirects: string[];
  /** The raw text of the part, for messages. */
  readonly raw: string;
}

export interface ParsedLine {
  readonly commands: SimpleCommand[];
  /** Bodies of command substitutions and `sh -c` strings, parsed separately by callers. */
  readonly nested: string[];
  /** Something the reader could not follow (unterminated quote, heredoc, subshell group). */
  readonly opaque: boolean;
}

const SEPARATORS = new Set([';', '&&', '||', '|', '&', '\n', '|&']);
/** Wrappers that run their arguments as a command: judge what they run. */
const WRAPPERS = new Set(['sudo', 'doas', 'env', 'command', 'builtin', 'nohup', 'time', 'nice', 'ionice', 'exec', 'stdbuf', 'timeout', 'xargs']);
const SHELLS = new Set(['bash', 'sh', 'zsh', 'dash', 'ksh']);

interface Token {
  text: string;
  /** An operator (separator or redirection), not a word. */
  op: boolean;
}

/** Splits into words and operators, honouring quotes and escapes. */
function tokenize(line: string, nested: string[]): { tokens: Token[]; opaque: boolean } {
  const tokens: Token[] = [];
  let opaque = false;
  let word = '';
  /**
   * A `$(…)` or backtick substitution starting at `at`: records its body as a nested command
   * (arithmetic `$((…))` is not one) and returns the index of its last character, -1 if unclosed.
   */
  const substitution = (at: number): number => {
    if (line[at] === '`') {
      const close = line.indexOf('`', at + 1);
      if (close >= 0) nested.push(line.slice(at + 1, close));
      return close;
    }
    const close = matchParen(line, at + 1);
    if (close < 0) return -1;
    const body = line.slice(at + 2, close);
    if (isArithmetic(body)) opaque ||= hasSubstitution(body);
    else nested.push(body);
    return close;
  };
  let inWord = false;
  const push = () => {
    if (inWord) tokens.push({ text: word, op: false });
    word = '';
    inWord = false;
  };
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (c === '\\' && i + 1 < line.length) {
      if (line[i + 1] === '\n') {
        i++;
        continue;
      }
      word += line[++i];
      inWord = true;
      continue;
    }
    if (c === "'") {
      const end = line.indexOf("'", i + 1);
      if (end < 0) {
        opaque = true;
        word += line.slice(i + 1);
        inWord = true;
        break;
      }
      word += line.slice(i + 1, end);
      inWord = true;
      i = end;
      continue;
    }
    if (c === '"') {
      let j = i + 1;
      let text = '';
      for (; j < line.length && line[j] !== '"'; j++) {
        if (line[j] === '\\' && j + 1 < line.length) text += line[++j];
        else if (startsSubstitution(line, j)) {
          const close = substitution(j);
          if (close < 0) {
            opaque = true;
            break;
          }
          text += line.slice(j, close + 1);
          j = close;
        } else text += line[j];
      }
      if (j >= line.length) opaque = true;
      word += text;
      inWord = true;
      i = j;
      continue;
    }
    if (startsSubstitution(line, i)) {
      const close = substitution(i);
      if (close < 0) {
        opaque = true;
        word += line.slice(i);
        inWord = true;
        break;
      }
      word += line.slice(i, close + 1);
      inWord = true;
      i = close;
      continue;
    }
    if (c === '#' && !inWord) {
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
      tokens.push({ text: '\n', op: true });
      continue;
    }
    const two = line.slice(i, i + 2);
    const three = line.slice(i, i + 3);
    if (three === '&>>') {
      push();
      tokens.push({ text: '>>', op: true });
      i += 2;
      continue;
    }
    if (two === '&&' || two === '||' || two === '|&' || two === '>>' || two === '&>' || two === '>|') {
      push();
      tokens.push({ text: two === '&>' || two === '>|' ? '>' : two, op: true });
      i++;
      continue;
    }
    if (two === '<<') {
      // A heredoc's body is data we do not follow.
      opaque = true;
      push();
      tokens.push({ text: '<<', op: true });
      i++;
      continue;
    }
    if (c === '>' || c === '<') {
      // `2>` / `1>`: the digit belongs to the redirection, not to a word.
      if (inWord && /^\d$/.test(word)) {
        word = '';
        inWord = false;
      } else push();
      tokens.push({ text: c, op: true });
      continue;
    }
    if (c === ';' || c === '|' || c === '&') {
      push();
      tokens.push({ text: c, op: true });
      continue;
    }
    if ((c === '(' || c === ')' || c === '{' || c === '}') && !inWord) {
      // Subshells and groups: treat the brackets as separators; the contents are still read.
      push();
      tokens.push({ text: ';', op: true });
      continue;
    }
    word += c;
    inWord = true;
  }
  push();
  return { tokens, opaque };
}

/** Index of the `)` closing the `(` at `open`, or -1. */
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
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return i;
  }
  return -1;
}

const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

function startsSubstitution(line: string, i: number): boolean {
  return line[i] === '`' || (line[i] === '$' && line[i + 1] === '(');
}

/** `$((…))` is arithmetic, not a command: its body (what `$(` enclosed) is itself `(…)`. */
function isArithmetic(body: string): boolean {
  return body.startsWith('(') && body.endsWith(')');
}

/** A command hidden inside arithmetic cannot be judged here: the caller treats the line as opaque. */
function hasSubstitution(body: string): boolean {
  return body.includes('$(') || body.includes('`');
}

/** Parses one command line. Nested bodies (`$(…)`, `sh -c '…'`) are listed, not expanded. */
export function parseCommandLine(line: string): ParsedLine {
  const nested: string[] = [];
  const { tokens, opaque } = tokenize(line, nested);
  const commands: SimpleCommand[] = [];
  let words: string[] = [];
  let redirects: string[] = [];
  const close = () => {
    if (words.length > 0 || redirects.length > 0) {
      const assignments: string[] = [];
      while (words.length > 0 && ASSIGNMENT.test(words[0]!)) assignments.push(words.shift()!);
      const command = { words, assignments, redirects, raw: [...assignments, ...words].join(' ') };
      commands.push(command);
      collectShellBodies(command.words, nested);
    }
    words = [];
    redirects = [];
  };
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i]!;
    if (!t.op) {
      words.push(t.text);
      continue;
    }
    if (SEPARATORS.has(t.text)) {
      close();
      continue;
    }
    // Redirection: the next word is its target.
    const target = tokens[i + 1];
    if (target && !target.op) {
      if (t.text === '>' || t.text === '>>') {
        // `>&2` / `2>&1` duplicate descriptors: not a file.
        if (!/^&\d*$/.test(target.text)) redirects.push(target.text);
      }
      i++;
    } else if (target && target.op && target.text === '&') {
      // `>&` followed by a descriptor number: skip both.
      i += tokens[i + 2] && !tokens[i + 2]!.op ? 2 : 1;
    }
  }
  close();
  return { commands, nested, opaque };
}

/** The words of a command with wrappers (`sudo`, `env X=1`, `timeout 5`) peeled off. */
export function unwrap(words: readonly string[]): string[] {
  let w = [...words];
  for (let guard = 0; guard < 8 && w.length > 0; guard++) {
    const head = basename(w[0]!);
    if (!WRAPPERS.has(head)) break;
    w = w.slice(1);
    // Options of the wrapper and its own arguments (`timeout 5`, `env -i A=1`, `sudo -u x`).
    while (w.length > 0 && (w[0]!.startsWith('-') || ASSIGNMENT.test(w[0]!) || (head === 'timeout' && /^\d/.test(w[0]!)) || (head === 'nice' && /^-?\d+$/.test(w[0]!)))) {
      const opt = w.shift()!;
      if ((head === 'sudo' || head === 'doas') && (opt === '-u' || opt === '-g')) w.shift();
    }
  }
  return w;
}

/** `bash -c 'rm -rf /'` hides a command in a string: hand it to the caller as nested. */
function collectShellBodies(words: readonly string[], nested: string[]): void {
  const w = unwrap(words);
  if (w.length === 0) return;
  const head = basename(w[0]!);
  if (SHELLS.has(head)) {
    const c = w.findIndex((x, i) => i > 0 && /^-[a-z]*c[a-z]*$/.test(x));
    if (c > 0 && w[c + 1] !== undefined) nested.push(w[c + 1]!);
  } else if (head === 'eval') {
    nested.push(w.slice(1).join(' '));
  }
}

export function basename(word: string): string {
  const i = word.lastIndexOf('/');
  return i >= 0 && i < word.length - 1 ? word.slice(i + 1) : word;
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
