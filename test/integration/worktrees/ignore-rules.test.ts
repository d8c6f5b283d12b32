/**
 * A new worktree's copy asks git which env files are ignored only when git's files do not settle
 * it (ignore-rules.ts): a name the top `.gitignore` or `info/exclude` names outright, with no
 * negation and not in the index, is ignored without a `git check-ignore`. Whatever it says is
 * checked against git itself, over rule files written to trip it (comments, escapes, trailing
 * spaces, CRs, wildcards, folders-only rules, negations, tracked files, a version 4 index).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { observeGit, type GitCallTiming } from '../../../src-main/git/git';
import { ignoredByFiles } from '../../../src-main/worktrees/ignore-rules';
import { copyIgnoredFiles } from '../../../src-main/worktrees/worktree-prepare';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';
import { gitIn, makeRepo } from '../../support/temp';

const cleanups: Array<() => void> = [];
afterEach(() => {
  observeGit(null);
  while (cleanups.length) cleanups.pop()!();
});

function repo(gitignore: string, exclude = ''): string {
  const r = makeRepo('fd-ignore-rules-');
  cleanups.push(r.cleanup);
  writeFileSync(join(r.path, '.gitignore'), gitignore);
  writeFileSync(join(r.path, '.git', 'info', 'exclude'), exclude);
  gitIn(r.path, 'add', '.gitignore');
  gitIn(r.path, 'commit', '-q', '-m', 'rules');
  return r.path;
}

/** What git itself says is ignored among `names` (tracked files never are). */
function gitIgnored(root: string, names: string[]): Set<string> {
  try {
    return new Set(execFileSync('git', ['check-ignore', '--', ...names], { cwd: root, encoding: 'utf8' }).split('\n').filter(Boolean));
  } catch (e) {
    if ((e as { status?: number }).status === 1) return new Set();
    throw e;
  }
}

function checkIgnores(calls: GitCallTiming[]): string[][] {
  return calls.filter((c) => c.args[0] === 'check-ignore').map((c) => c.args.slice(c.args.indexOf('--') + 1) as string[]);
}

describe('which env files a new worktree gets, without git where its files settle it', () => {
  it('names the ignore files give outright are copied with no check-ignore; the rest are still asked', async () => {
    const root = repo('.trees/\n.env\n', '/.envrc\n');
    for (const f of ['.env', '.envrc', 'notes.local']) writeFileSync(join(root, f), `${f}\n`);
    const { entry } = await new WorktreeManager({ settleMs: 20 }).create(root, 'copy');
    const calls: GitCallTiming[] = [];
    observeGit((c) => calls.push(c));
    const r = await copyIgnoredFiles(root, entry.path, ['.env', '.envrc', 'notes.local']);
    observeGit(null);
    expect(r.copied.sort()).toEqual(['.env', '.envrc']);
    expect(r.skipped).toEqual([{ path: 'notes.local', reason: 'not ignored by git (tracked files come with the checkout)' }]);
    // Only the name the files do not settle went to git.
    expect(checkIgnores(calls)).toEqual([['notes.local']]);

    // Nothing left to ask: no git at all.
    calls.length = 0;
    observeGit((c) => calls.push(c));
    const again = await copyIgnoredFiles(root, entry.path, ['.env']);
    expect(again.skipped).toEqual([{ path: '.env', reason: 'already in the worktree' }]);
    expect(calls).toEqual([]);
  });

  it('a tracked file is not ignored though the rules name it, as git says; a negation anywhere or a version 4 index leaves all to git', () => {
    const root = repo('.env\nsecret.cfg\n');
    for (const f of ['.env', 'secret.cfg']) writeFileSync(join(root, f), 'x\n');
    gitIn(root, 'add', '-f', 'secret.cfg');
    gitIn(root, 'commit', '-q', '-m', 'tracked though ignored');
    expect(ignoredByFiles(root, ['.env', 'secret.cfg'])).toEqual({ ignored: new Set(['.env']), unsure: ['secret.cfg'] });
    expect(gitIgnored(root, ['.env', 'secret.cfg'])).toEqual(new Set(['.env']));

    gitIn(root, 'update-index', '--index-version', '4');
    expect(ignoredByFiles(root, ['.env']).ignored.size).toBe(0);
    gitIn(root, 'update-index', '--index-version', '2');
    expect(ignoredByFiles(root, ['.env']).ignored).toEqual(new Set(['.env']));

    writeFileSync(join(root, '.git', 'info', 'exclude'), '!.env\n');
    expect(ignoredByFiles(root, ['.env'])).toEqual({ ignored: new Set(), unsure: ['.env'] });
  });

  it('the index is read entry by entry, as a real repository has it: a tracked path holding "link" or a tracked .env below the top does not stop the answer; a split index does', () => {
    const root = repo('.env\n');
    writeFileSync(join(root, '.env'), 'SECRET=1\n');
    // Paths a real project has (this one: issue-links.ts, docs/links.md): their bytes hold "link", the split-index extension's name.
    mkdirSync(join(root, 'docs', 'pkg'), { recursive: true });
    writeFileSync(join(root, 'docs', 'links.md'), 'x\n');
    writeFileSync(join(root, 'docs', 'pkg', '.env'), 'tracked below the top\n');
    gitIn(root, 'add', '-f', 'docs');
    // A version 3 index: an intent-to-add entry has the extended flags (two more bytes before its path).
    writeFileSync(join(root, 'later.txt'), 'x\n');
    gitIn(root, 'add', '-N', 'later.txt');
    gitIn(root, 'commit', '-q', '-m', 'docs');
    expect(readFileSync(join(root, '.git', 'index')).readUInt32BE(4)).toBe(3);
    expect(gitIgnored(root, ['.env'])).toEqual(new Set(['.env']));
    expect(ignoredByFiles(root, ['.env'])).toEqual({ ignored: new Set(['.env']), unsure: [] });

    gitIn(root, 'update-index', '--split-index');
    expect(ignoredByFiles(root, ['.env'])).toEqual({ ignored: new Set(), unsure: ['.env'] });
    gitIn(root, 'update-index', '--no-split-index');
    expect(ignoredByFiles(root, ['.env'])).toEqual({ ignored: new Set(['.env']), unsure: [] });
  });

  it('a byte-order mark before the first line is skipped as git skips it: a negation behind it is still one, a name behind it still named', () => {
    const root = repo('\ufeff!.env\n', '.env\n');
    writeFileSync(join(root, '.env'), 'SECRET=1\n');
    // The top .gitignore un-ignores .env before info/exclude is looked at: git copies nothing.
    expect(gitIgnored(root, ['.env'])).toEqual(new Set());
    expect(ignoredByFiles(root, ['.env'])).toEqual({ ignored: new Set(), unsure: ['.env'] });

    writeFileSync(join(root, '.gitignore'), '\ufeff.env\n');
    writeFileSync(join(root, '.git', 'info', 'exclude'), '');
    expect(gitIgnored(root, ['.env'])).toEqual(new Set(['.env']));
    expect(ignoredByFiles(root, ['.env'])).toEqual({ ignored: new Set(['.env']), unsure: [] });
  });

  it('never calls ignored what git does not: comments, escapes, spaces, CRs, wildcards, folder rules, names below the top', () => {
    const names = ['.env', '#.env', 'a b', '.envrc', 'x', 'y', 'dir', 'z.cfg', 'crlf', 'sub'];
    const root = repo(['#.env', '\\#.env', '.envrc ', 'a b', 'x\r', 'dir/', '*.cfg', 'y\\', 'crlf\r', '/sub/.env', 'sub/.env', ''].join('\n'));
    for (const n of names.filter((n) => n !== 'dir' && n !== 'sub')) writeFileSync(join(root, n), 'v\n');
    mkdirSync(join(root, 'dir'));
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', '.env'), 'v\n');
    const all = [...names, 'sub/.env'];
    const mine = ignoredByFiles(root, all);
    const git = gitIgnored(root, all);
    for (const n of mine.ignored) expect(git.has(n), `${n} called ignored`).toBe(true);
    // Everything else is left to git, so the union is git's answer.
    expect(new Set([...mine.ignored, ...[...git].filter((n) => mine.unsure.includes(n))])).toEqual(git);
    // None of these lines is a plain name: nothing settled without git.
    expect(mine.ignored.size).toBe(0);
  });
});
