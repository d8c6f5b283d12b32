/**
 * Issue 26: the approval policy judges what the shell will do, whatever form a command takes.
 * A generated corpus (wrappers × groupings × redirections × writers) goes through the policy in
 * default and auto-edit mode with no rules, and again with every read-only family remembered:
 * every command that writes or runs something outside the read-only allow-list asks; the
 * read-only ones stay allowed.
 */
import { describe, expect, it } from 'vitest';
import { classifyCommand } from '../../../src-main/agents/policy/command-class';
import { commandSessionRule, matchingRules, ruleFamilies } from '../../../src-main/agents/policy/command-family';
import { decideTool, type PolicyInput } from '../../../src-main/agents/policy/policy';
import { parseCommandLine } from '../../../src-main/agents/policy/shell-parse';

const base: PolicyInput = { tool: 'bash', input: { command: '' }, mode: 'default', preset: 'balanced', disabledTools: [], hardFloor: true, sessionRules: [] };
const decide = (command: string, over: Partial<PolicyInput> = {}) => decideTool({ ...base, ...over, input: { command } });

/** Single-quotes a string for the shell. */
const q = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** Commands that only read inside the root: allowed unasked in default mode. */
const READ_ONLY = [
  'ls', 'ls -la src', 'cat README.md', 'git status', 'git log --oneline -5', 'git diff HEAD~1', 'git show HEAD --stat', 'grep -rn foo src', 'rg foo',
  'head -5 README.md', 'tail -n 3 a.txt', 'wc -l a.txt', 'echo hi', 'printf "%s\\n" x', 'find . -name "*.ts"', "sed -n '1,5p' a.txt", 'sort a.txt',
  'jq . package.json', 'pwd', 'diff a.txt b.txt', "awk '{print $1}' a.txt", 'stat a.txt', 'du -sh .', 'uniq a.txt', 'cut -d, -f1 a.txt', 'cat *.md',
  'git branch --show-current', 'env', 'printenv HOME', 'which node', 'command -v git',
];

/** Commands that write a file, run a program, or cannot be judged: always asked. */
const WRITERS = [
  'touch f', 'rm f', 'sed -i s/a/b/ f', "sed -n '1e touch f' a.txt", 'perl -i -pe s/a/b/ f', "perl -e 'print 1'", 'tee f', 'tee -a .gitignore', 'dd of=f',
  'dd if=a.txt of=f', 'cp a.txt f', 'mv a.txt f', 'install a.txt f', 'truncate -s0 f', 'ln -s a.txt f', 'tar -xf a.tar', 'tar -cf f .', 'tar xf a.tar',
  "awk '{print > \"f\"}' a.txt", "awk 'BEGIN{system(\"touch f\")}'", "awk -f prog.awk a.txt", 'find . -fprint f', 'find . -fprintf f %p', 'find . -delete',
  'find . -exec touch f \\;', 'find . -execdir rm {} +', 'find . -ok rm {} \\;', "python -c 'open(\"f\",\"w\")'", "python3 -c 'print(1)'",
  "node -e 'require(\"fs\").writeFileSync(\"f\",\"\")'", "ruby -e 'File.write(\"f\",\"\")'", "php -r 'touch(\"f\");'", 'sort -o f a.txt', 'sort -uo f a.txt',
  'git diff --output=f', 'git log --output=f', "git -c core.pager='touch f' log", 'git -c diff.external=./x diff', 'uniq a.txt f', 'xxd a.txt f', 'xxd -r a.hex',
  'npm test', 'make', './script.sh', 'bash script.sh', 'sh', 'bash -s', '. ./x.sh', 'source x.sh', 'f() { ls; }; f', 'function f { ls; }; f',
  'alias ls=touch; ls f', 'x=-delete; find . $x', 'find . $(echo -delete)', 'find . *', 'rg --pre ./x foo', 'rg foo *', 'PATH=.:$PATH ls', 'LD_PRELOAD=./x.so ls',
  'GIT_EXTERNAL_DIFF=./x git diff', 'HOME=. git status', "y='a[$(touch f)]'; echo $((y))", '((x=y))', 'echo $((x))', "cat <<EOF > f\nx\nEOF",
  "cat <<EOF\n$(touch f)\nEOF", "sh <<< 'touch f'", "sh <<'EOF'\ntouch f\nEOF", "$'\\x74ouch' f", 't\\ouch f', '"touch" f', '/usr/bin/touch f', './ls',
  '/tmp/ls', 'echo $(touch f)', 'echo `touch f`', 'echo "$(touch f)"', 'cat <(touch f)', 'ls > >(cat)', 'tee >(cat > f)', 'exec 3>f', 'exec > f',
  '> a.txt', '>> .gitignore', '>| f', 'env > created-unasked.txt', 'env >> .gitignore', 'env "X=1; touch ../pwn-x" > chosen.sh', 'env -i > f',
  'nice > f', 'env -S "touch f"', 'env --split-string="touch f"', 'sudo ls', 'doas ls', 'nohup ls', 'time -o f ls', 'xargs touch', 'xargs sh -c "touch $1"',
  'xargs -I{} sh -c {}', 'xargs git status', 'watch ls', 'flock /tmp/l ls', 'strace ls', 'busybox touch f', 'su -c "touch f"', 'ssh host ls',
  'eval "$CMD"', 'eval touch f', '$CMD', '${CMD}', '$(echo touch) f', 'cat $HOME/.ssh/id_rsa', 'cat ~/.ssh/id_rsa', 'cat ../x', 'cat .*/x',
  'cat {..,x}/secret', 'cat < ~/.ssh/id_rsa', 'ls {a,b} > f', 'cd', 'cd ~ && cat .ssh/id_rsa', 'printf -v x %s y', "printf -v 'a[$(touch f)]' %s y",
  "[ -v 'a[$(touch f)]' ]", "test -v 'a[$(touch f)]'", '[[ -f x ]]', 'for f in *; do cat $f; done', 'case x in x) ls;; esac', 'coproc ls',
  'a=(1 2)', 'export PATH=.', 'IFS=x', 'read x', 'trap "touch f" EXIT', 'set -x', 'shopt -s dotglob', 'hostname evil', 'date -s now', 'yq -i .a=1 f.yaml',
  'tree -o f', 'file -C -m x', 'file *', 'printf *', 'printf $X', 'hostname -F f', "y='a[$(touch f)]'; echo $[y]", 'x=\'$(touch f)\'; echo ${x@P}', 'ag --pager=./x foo', "echo 'unterminated", 'echo "unterminated', 'echo $(unterminated', 'cat <<EOF\nno end',
];

/** Wrappers that leave a read-only command read-only. */
const NEUTRAL_WRAPPERS = ['', 'env ', 'env -i ', 'LANG=C ', 'env LC_ALL=C ', 'nice ', 'nice -n 5 ', 'time ', 'time -p ', 'timeout 5 ', 'timeout -s KILL 5 ', 'stdbuf -o0 ', 'command ', '/usr/bin/env '];
/** Wrappers that make any command asked (another user, a file written, a program-naming variable, an option not understood). */
const ASKING_WRAPPERS = ['sudo ', 'doas ', 'sudo -u root ', 'nohup ', 'X=1 ', 'PATH=.:$PATH ', 'LD_PRELOAD=./x.so ', 'env PATH=. ', 'env -S ', 'time -o t.txt ', 'nice --weird ', 'env -u HOME -Z '];
/** Groupings, pipelines, lists and substitutions around a command (`%` is the command, `%q` the command single-quoted). */
const GROUPINGS = [
  '%', '{ %; }', '( % )', 'true && %', '% || true', '% | cat', 'cat README.md | %', 'ls; %', 'if true; then %; fi', 'while false; do %; done', '% &',
  'echo $( % )', 'echo "$( % )"', 'sh -c %q', 'bash -c %q', 'bash -lc %q', 'eval %q', 'diff <(%) a.txt', '! %', '%\nls', 'ls\n%',
];
/** Redirections that open a file for writing. */
const WRITING_REDIRECTIONS = [' > f', ' >| f', ' >> f', ' <> f', ' &> f', ' &>> f', ' 2> f', ' 1>f', ' 10> f', ' >&f', ' > "$F"', ' >$F', ' 2>>f', ' >f.txt 2>&1', ' 1<>f', ' {fd}>f'];
/** Redirections that write no file. */
const HARMLESS_REDIRECTIONS = ['', ' 2>/dev/null', ' >/dev/null', ' 2>&1', ' >&2', ' </dev/null', ' < README.md', ' 1>&2', ' &>/dev/null', " <<< 'text'"];

/** A small deterministic PRNG (mulberry32): the corpus is the same on every run. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = <T,>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

function group(pattern: string, command: string): string {
  return pattern.includes('%q') ? pattern.replace('%q', () => q(command)) : pattern.replace('%', () => command);
}

interface Case {
  command: string;
  readOnly: boolean;
}

function corpus(size: number, seed: number): Case[] {
  const rand = prng(seed);
  const out: Case[] = [];
  for (let i = 0; i < size; i++) {
    const writer = rand() < 0.5;
    const core = writer ? pick(rand, WRITERS) : pick(rand, READ_ONLY);
    const asking = rand() < 0.25;
    const wrapper = asking ? pick(rand, ASKING_WRAPPERS) : pick(rand, NEUTRAL_WRAPPERS);
    const writes = rand() < 0.35;
    const redirection = writes ? pick(rand, WRITING_REDIRECTIONS) : pick(rand, HARMLESS_REDIRECTIONS);
    let command = `${wrapper}${core}${redirection}`;
    // One or two levels of grouping.
    command = group(pick(rand, GROUPINGS), command);
    if (rand() < 0.3) command = group(pick(rand, GROUPINGS), command);
    out.push({ command, readOnly: !writer && !asking && !writes });
  }
  return out;
}

/** Every read-only command's family, remembered: writers must still ask. */
const READ_ONLY_RULES = READ_ONLY.map(commandSessionRule);

describe('the reported attacks (issue 26)', () => {
  const attacks = ['> a.txt', 'env > created-unasked.txt', 'env >> .gitignore', 'env "X=1; touch ../pwn-x" > chosen.sh', 'env -i > f', 'nice > f'];
  it.each(attacks)('%s asks in default and auto-edit mode, with or without remembered rules', (command) => {
    for (const mode of ['default', 'auto-edit'] as const) {
      for (const sessionRules of [[], READ_ONLY_RULES, ['env *', 'nice *', 'X=* env *']]) {
        const d = decide(command, { mode, sessionRules });
        expect(d.decision, `${mode} ${JSON.stringify(sessionRules)}`).toBe('ask');
        expect(d.reason).not.toMatch(/Approved/);
      }
    }
  });
  it('a redirection makes a family of its own, and approving it names that rule', () => {
    expect(commandSessionRule('env > created-unasked.txt')).toBe('env * >');
    expect(commandSessionRule('> a.txt')).toBe('>');
    const d = decide('env > other.txt', { sessionRules: ['env * >'] });
    expect(d).toMatchObject({ decision: 'allow', source: 'session_rule' });
    expect(d.reason).toBe('Approved for this session by the rule "env * >".');
  });
});

describe('every form is asked (default mode, no rules)', () => {
  it.each(WRITERS)('%s', (command) => {
    expect(classifyCommand(command).readOnly).toBe(false);
    expect(decide(command).decision).toBe('ask');
    expect(decide(command, { mode: 'auto-edit' }).decision).toBe('ask');
    expect(matchingRules(READ_ONLY_RULES, command)).toBeNull();
  });
  it.each(READ_ONLY)('read-only: %s', (command) => {
    expect(decide(command)).toMatchObject({ decision: 'allow', source: 'policy' });
  });
});

describe('generated corpus', () => {
  const cases = corpus(6000, 26);
  it('has both kinds in numbers', () => {
    expect(cases.filter((c) => c.readOnly).length).toBeGreaterThan(1000);
    expect(cases.filter((c) => !c.readOnly).length).toBeGreaterThan(3000);
  });
  it('asks for every command that writes or runs something, in default and auto-edit mode', () => {
    const wrong: string[] = [];
    for (const c of cases) {
      if (c.readOnly) continue;
      for (const mode of ['default', 'auto-edit'] as const) {
        const d = decide(c.command, { mode });
        if (d.decision !== 'ask') wrong.push(`${mode}: ${JSON.stringify(c.command)} → ${d.decision}`);
      }
      // Remembering every read-only family covers none of them.
      if (matchingRules(READ_ONLY_RULES, c.command) !== null) wrong.push(`covered: ${JSON.stringify(c.command)}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  });
  it('allows the read-only ones unasked', () => {
    const wrong = cases.filter((c) => c.readOnly && decide(c.command).decision !== 'allow').map((c) => JSON.stringify(c.command));
    expect(wrong.slice(0, 20)).toEqual([]);
  });
  it('a command approved for the session is covered again by its own rule, and named', () => {
    for (const c of cases.slice(0, 1500)) {
      const rule = commandSessionRule(c.command);
      const d = decide(c.command, { sessionRules: [rule] });
      if (c.readOnly) continue;
      expect(d.decision, c.command).toBe('allow');
      expect(d.reason, c.command).toBe(`Approved for this session by the rule "${rule}".`);
    }
  });
});

describe('command families stay useful', () => {
  const rules = ['npm test *'];
  it('npm test * allows npm test with any arguments, and nothing else', () => {
    for (const c of ['npm test', 'npm test -- foo', 'npm test -- --watch=false src/a.test.ts', 'timeout 60 npm test', 'LANG=C npm test -- x', 'npm test 2>&1', 'npm test 2>/dev/null', 'npm test -- $FILE', 'npm test -- *.ts']) {
      expect(decide(c, { sessionRules: rules }), c).toMatchObject({ decision: 'allow', source: 'session_rule', reason: 'Approved for this session by the rule "npm test *".' });
    }
    for (const c of [
      'npm test > out.txt', 'npm test -- x >> .gitignore', 'sudo npm test', 'NODE_OPTIONS="--require ./x.js" npm test', 'npm test; rm -f x', 'npm test && touch f',
      'npm test | tee f', 'npm test $(touch f)', 'npm --prefix ../other test', 'npm test --script-shell=./evil.sh', 'npm publish', 'npm run test', 'npm',
      'bash -c "npm test; touch f"', 'npm test & touch f', 'xargs npm test', 'echo $(npm test) > f', 'npm $X', 'npm test $X',
    ]) {
      expect(decide(c, { sessionRules: rules }).decision, c).toBe('ask');
    }
  });
  it('naming a place outside the root is a family of its own', () => {
    expect(commandSessionRule('echo x > ~/.bashrc')).toBe('echo * > (outside the root)');
    expect(commandSessionRule('echo x > $F')).toBe('echo * > (outside the root)');
    expect(commandSessionRule('cp a.txt ../b.txt')).toBe('cp * (outside the root)');
    expect(commandSessionRule('cat $HOME/.ssh/id_rsa')).toBe('cat * (outside the root)');
    for (const c of ['echo x > ~/.bashrc', 'echo x >> ../y', 'cp a.txt ~/b', 'rm -f /tmp/x', 'tee ../y', 'cat < ~/.ssh/id_rsa']) {
      expect(matchingRules(['echo * >', 'cp *', 'rm *', 'tee *', 'cat *'], c), c).toBeNull();
    }
    expect(matchingRules(['echo * >', 'cp *'], 'echo x > y && cp a b')).toEqual(['echo * >', 'cp *']);
  });
  it('a compound rule names itself when it matched', () => {
    const rule = commandSessionRule('npm ci && npm test');
    expect(rule).toBe('npm ci * && npm test *');
    expect(ruleFamilies(rule)).toEqual(['npm ci *', 'npm test *']);
    expect(decide('npm test -- x', { sessionRules: ['git status *', rule] }).reason).toBe(`Approved for this session by the rule "${rule}".`);
    expect(decide('npm ci && ls > f', { sessionRules: [rule, 'ls * >'] }).reason).toBe(`Approved for this session by the rule "${rule}" and "ls * >".`);
  });
  it('inline code is remembered exactly, quoted so that its text cannot split the rule', () => {
    const rule = commandSessionRule(`python -c 'print(1) && 2'`);
    expect(rule).toBe('python -c "print(1) && 2"');
    expect(ruleFamilies(rule)).toEqual([rule]);
    expect(matchingRules([rule], `python -c 'print(1) && 2'`)).toEqual([rule]);
    expect(matchingRules([rule], `python -c 'print(2)'`)).toBeNull();
  });
  it('a line with a part that cannot be classified is remembered exactly, and only covers itself', () => {
    const rule = commandSessionRule('f() { ls; }; f');
    expect(rule).toBe('exactly: f() { ls; }; f');
    expect(matchingRules([rule], 'f() { ls; }; f')).toEqual([rule]);
    expect(matchingRules([rule, 'ls *'], 'f() { rm x; }; f')).toBeNull();
  });
  it('a rule stored by the old fallback (the bare command text) covers nothing', () => {
    expect(matchingRules(['> a.txt'], '> a.txt')).toBeNull();
    expect(matchingRules(['env > x'], 'env > x')).toBeNull();
  });
});

describe('redirections are read by their operator', () => {
  it.each([
    ['ls > f', '>', null, true],
    ['ls >| f', '>|', null, true],
    ['ls >> f', '>>', null, true],
    ['ls <> f', '<>', null, true],
    ['ls &> f', '&>', null, true],
    ['ls &>> f', '&>>', null, true],
    ['ls 2> f', '>', '2', true],
    ['ls 10>f', '>', '10', true],
    ['ls {fd}>f', '>', '{fd}', true],
    ['ls >&f', '>&', null, true],
    ['ls 2>&1', '>&', '2', false],
    ['ls >&-', '>&', null, false],
    ['ls > /dev/null', '>', null, false],
    ['ls < f', '<', null, false],
    ['ls <<< f', '<<<', null, false],
    ['ls 2 > f', '>', null, true],
  ] as const)('%s', (line, op, fd, writes) => {
    const [cmd] = parseCommandLine(line).commands;
    expect(cmd!.redirections).toEqual([expect.objectContaining({ op, fd, writes })]);
    expect(cmd!.words[0]).toBe('ls');
  });
});
