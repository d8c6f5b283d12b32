/**
 * "Approve for this session" remembers a command family, not an exact string: approving
 * `npm test -- --watch=false` also lets `npm test -- src/a.test.ts` run, but not `npm publish`.
 * Pure and unit-tested.
 *
 * A family is the program plus, for programs whose first argument is a subcommand, that
 * subcommand (plus the script name for `npm run` and friends), then ` *`. A part with an
 * output redirection gets its own family (`echo * >`) so approving `echo` does not approve
 * writing files with it. A line with several parts needs every part's family remembered.
 */
import { allCommands, basename, unwrap, type SimpleCommand } from './shell-parse';

/** Programs whose first non-option argument selects what they do. */
const WITH_SUBCOMMAND = new Set([
  'git', 'npm', 'pnpm', 'yarn', 'bun', 'npx', 'cargo', 'go', 'docker', 'podman', 'kubectl', 'helm', 'pip', 'pip3', 'poetry',
  'uv', 'make', 'gradle', './gradlew', 'gradlew', 'mvn', 'dotnet', 'terraform', 'brew', 'apt', 'apt-get', 'systemctl', 'gh',
  'rustup', 'deno', 'composer', 'bundle', 'rake', 'rails', 'mix', 'swift', 'flutter', 'dart', 'just', 'task', 'nx', 'turbo',
]);
/** Subcommands that take a script or target name which is part of the family. */
const NAMED_SCRIPT = new Set(['run', 'run-script', 'exec', 'x', 'dlx']);

function familyOf(cmd: SimpleCommand): string | null {
  const w = unwrap(cmd.words);
  if (w.length === 0) return null;
  // A path to a local script stays a path (`./gradlew`), a program found on PATH is its name.
  const head = w[0]!.startsWith('./') ? w[0]! : basename(w[0]!);
  const parts = [head];
  if (WITH_SUBCOMMAND.has(head) || WITH_SUBCOMMAND.has(basename(head))) {
    let i = 1;
    // Global options before the subcommand (`git -C dir status`, `npm --prefix x test`).
    while (i < w.length && w[i]!.startsWith('-')) i += /^(-C|-c|--prefix|--cwd|-f|--file|-p|--project)$/.test(w[i]!) ? 2 : 1;
    const sub = w[i];
    if (sub !== undefined) {
      parts.push(sub);
      const script = w[i + 1];
      if (NAMED_SCRIPT.has(sub) && script !== undefined && !script.startsWith('-')) parts.push(script);
    }
  } else if ((head === 'python' || head === 'python3') && w[1] === '-m' && w[2] !== undefined) {
    parts.push('-m', w[2]);
  }
  return `${parts.join(' ')} *${cmd.redirects.some((r) => r !== '/dev/null') ? ' >' : ''}`;
}

/** The families of every part of a command line, deduplicated, in order. */
export function commandFamilies(command: string): string[] {
  const out: string[] = [];
  for (const c of allCommands(command).commands) {
    const f = familyOf(c);
    if (f !== null && !out.includes(f)) out.push(f);
  }
  return out;
}

/** The rule "approve for this session" stores for a bash command: its families joined. */
export function commandSessionRule(command: string): string {
  const families = commandFamilies(command);
  return families.length > 0 ? families.join(' && ') : command.trim();
}

/** Whether remembered rules cover every part of the command. */
export function ruleCovers(rules: Iterable<string>, command: string): boolean {
  const remembered = new Set<string>();
  for (const rule of rules) for (const f of rule.split(' && ')) remembered.add(f);
  const { commands, opaque } = allCommands(command);
  if (opaque || commands.length === 0) return false;
  return commands.every((c) => {
    const f = familyOf(c);
    return f === null || remembered.has(f);
  });
}
