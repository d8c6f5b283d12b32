/**
 * The hard floor: commands so destructive that no mode, preset or session approval lets
 * them run (unless the user turns the floor off in settings). Pure; heavily unit-tested.
 *
 * It looks at every simple command of the line, including `$(…)`, backticks, `sh -c '…'`
 * and `sudo`/`env` wrappers, so hiding `rm -rf /` inside another command does not help.
 */
import { allCommands, basename, unwrap, type SimpleCommand } from './shell-parse';

export interface HardFloorContext {
  /** Branches a force push must never rewrite. */
  baseBranches?: readonly string[];
  /** The branch checked out in the root, when known (a bare `git push -f` pushes it). */
  currentBranch?: string | null;
}

export interface FloorVerdict {
  readonly blocked: boolean;
  /** What was recognized, written for the user ("rm -rf of the home folder"). */
  readonly reason: string | null;
}

/** Base branches protected when the caller knows no better. */
export const DEFAULT_BASE_BRANCHES = ['main', 'master'] as const;

/** Folders whose recursive removal ruins the machine or the user's home. */
const PROTECTED_PATHS = new Set([
  '/', '/*', '~', '~/', '~/*', '$HOME', '${HOME}', '$HOME/', '${HOME}/', '$HOME/*', '${HOME}/*',
  '/bin', '/boot', '/dev', '/etc', '/home', '/lib', '/lib64', '/opt', '/root', '/sbin', '/srv', '/sys', '/proc', '/usr', '/var',
  '/home/*', '/usr/*', '/etc/*', '/var/*', '..', '../', '/.', '/..', '.*', '~/.', '~/..',
]);

/** Whole block devices (and their partitions): writing raw bytes there destroys file systems. */
const BLOCK_DEVICE = /^\/dev\/(sd[a-z]+\d*|hd[a-z]+\d*|vd[a-z]+\d*|xvd[a-z]+\d*|nvme\d+n\d+(p\d+)?|mmcblk\d+(p\d+)?|disk\d+(s\d+)?|rdisk\d+|md\d+|dm-\d+|mapper\/.+|loop\d+)$/;

/** `:(){ :|:& };:` and renamed variants: a function that pipes into itself in the background. */
const FORK_BOMB = /([A-Za-z_:][\w:]*)\s*\(\s*\)\s*\{[^}]*?\1\s*\|\s*\1\s*&[^}]*\}\s*;?\s*\1/;
const PERL_FORK_BOMB = /\bfork\s+while\s+fork\b/;
const DROP_DATABASE = /\bdrop\s+database\b/i;
/**
 * SQL clients: `DROP DATABASE` only counts when one of them is on the line (as a command or
 * fed through a pipe), so `grep -r "DROP DATABASE" .` stays allowed.
 */
const SQL_CLIENTS = new Set(['psql', 'mysql', 'mariadb', 'sqlite3', 'sqlcmd', 'cockroach', 'clickhouse-client', 'clickhouse', 'mongo', 'mongosh', 'duckdb', 'pgcli', 'mycli', 'usql', 'isql', 'sqlplus', 'docker', 'kubectl']);

const OK: FloorVerdict = { blocked: false, reason: null };
const block = (reason: string): FloorVerdict => ({ blocked: true, reason });

function normalizePath(p: string): string {
  let s = p.trim();
  // `/./`, `//` and trailing slashes do not change what is removed.
  s = s.replace(/\/\.(?=\/|$)/g, '').replace(/\/{2,}/g, '/');
  if (s.length > 1 && s.endsWith('/') && !s.endsWith('*/')) s = s.slice(0, -1);
  return s === '' ? '/' : s;
}

function isProtectedPath(p: string): boolean {
  const n = normalizePath(p);
  if (PROTECTED_PATHS.has(n) || PROTECTED_PATHS.has(p.trim()) || /^\/+$/.test(p.trim())) return true;
  // Only climbing up (`../..`, `../../*`), or a system/home root reached through `..` (`/usr/..`):
  // from a project folder these name the home folder or the whole disk.
  if (/^(\.\.\/)*\.\.(\/\*)?$/.test(n)) return true;
  return /(^|\/)\.\.(\/|$)/.test(n) && (n.startsWith('/') || n.startsWith('~') || /^\$\{?HOME/.test(n));
}

function checkRm(args: string[]): FloorVerdict {
  let recursive = false;
  let noPreserve = false;
  const targets: string[] = [];
  let endOfOptions = false;
  for (const a of args) {
    if (!endOfOptions && a === '--') endOfOptions = true;
    else if (!endOfOptions && a.startsWith('--')) {
      if (a === '--recursive') recursive = true;
      if (a === '--no-preserve-root') noPreserve = true;
    } else if (!endOfOptions && a.startsWith('-') && a.length > 1) {
      if (/[rR]/.test(a)) recursive = true;
    } else targets.push(a);
  }
  if (noPreserve) return block('rm --no-preserve-root');
  if (!recursive) return OK;
  const hit = targets.find(isProtectedPath);
  if (hit === undefined) return OK;
  const what = /^(~|\$\{?HOME)/.test(hit) ? 'the home folder' : hit.startsWith('/') && normalizePath(hit) !== '/' && normalizePath(hit) !== '/*' ? hit : hit.startsWith('.') ? 'a parent or hidden folder set' : 'the root file system';
  return block(`recursive rm of ${what} (${hit})`);
}

/** Any recursive chmod/chown of a system or home tree (777 or otherwise) leaves it broken or open. */
function checkChmod(head: string, args: string[]): FloorVerdict {
  const recursive = args.some((a) => a === '--recursive' || /^-[a-zA-Z]*R/.test(a));
  if (!recursive) return OK;
  const positional = args.filter((a) => !a.startsWith('-'));
  const hit = positional.slice(1).find(isProtectedPath);
  return hit === undefined ? OK : block(`${head} -R ${positional[0] ?? ''} ${hit}`.replace(/\s+/g, ' '));
}

function checkDd(args: string[]): FloorVerdict {
  const of = args.find((a) => a.startsWith('of='));
  if (of && BLOCK_DEVICE.test(of.slice(3))) return block(`dd onto the device ${of.slice(3)}`);
  return OK;
}

function checkGitPush(args: string[], ctx: HardFloorContext): FloorVerdict {
  // args start after `git`; global options (-C dir, -c k=v) come before the subcommand.
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  if (args[i] !== 'push') return OK;
  const rest = args.slice(i + 1);
  const force = rest.some((a) => a === '--force' || a === '-f' || a.startsWith('--force-with-lease') || a === '--mirror' || /^-[a-zA-Z]*f/.test(a));
  const refspecs = rest.filter((a) => !a.startsWith('-'));
  const bases = new Set(ctx.baseBranches ?? DEFAULT_BASE_BRANCHES);
  const plusRef = refspecs.slice(1).find((r) => r.startsWith('+') && bases.has(destinationOf(r.slice(1))));
  if (plusRef) return block(`force push to the base branch (${plusRef})`);
  if (rest.includes('--delete') || rest.includes('-d')) {
    const del = refspecs.slice(1).find((r) => bases.has(destinationOf(r)));
    if (del) return block(`deleting the base branch ${del} on the remote`);
  }
  const colonDelete = refspecs.slice(1).find((r) => r.startsWith(':') && bases.has(r.slice(1)));
  if (colonDelete) return block(`deleting the base branch ${colonDelete.slice(1)} on the remote`);
  if (!force) return OK;
  if (rest.includes('--mirror')) return block('git push --mirror --force rewrites every branch of the remote');
  const targets = refspecs.slice(1).map(destinationOf);
  if (targets.length === 0) {
    // A bare `git push -f [remote]` pushes the current branch (or every matching one).
    const current = ctx.currentBranch;
    if (current == null || bases.has(current)) return block(`force push of ${current ?? 'the current branch'} (a base branch, or unknown)`);
    return OK;
  }
  if (rest.includes('--all')) return block('force push of all branches');
  const hit = targets.find((t) => bases.has(t) || (t === 'HEAD' && (ctx.currentBranch == null || bases.has(ctx.currentBranch))));
  return hit === undefined ? OK : block(`force push to the base branch ${hit === 'HEAD' ? (ctx.currentBranch ?? 'HEAD') : hit}`);
}

/** `src:dst` → dst; `refs/heads/main` → main. */
function destinationOf(refspec: string): string {
  const dst = refspec.includes(':') ? refspec.slice(refspec.indexOf(':') + 1) : refspec;
  return dst.replace(/^\+/, '').replace(/^refs\/heads\//, '');
}

function checkCommand(cmd: SimpleCommand, ctx: HardFloorContext): FloorVerdict {
  for (const r of cmd.redirects) if (BLOCK_DEVICE.test(r)) return block(`writing to the device ${r}`);
  const w = unwrap(cmd.words);
  if (w.length === 0) return OK;
  const head = basename(w[0]!);
  const args = w.slice(1);
  if (head === 'rm') return checkRm(args);
  if (head === 'chmod' || head === 'chown' || head === 'chgrp') return checkChmod(head, args);
  if (head === 'dd') return checkDd(args);
  if (/^mkfs(\.|$)/.test(head) || head === 'mke2fs' || head === 'mkswap' || head === 'wipefs') return block(`${head} formats or wipes a file system`);
  if (head === 'shred' && args.some((a) => BLOCK_DEVICE.test(a))) return block('shred of a device');
  if (head === 'git') return checkGitPush(args, ctx);
  if (head === 'find' && args.includes('-delete') && args.slice(0, args.indexOf('-delete')).some((a) => !a.startsWith('-') && isProtectedPath(a))) {
    return block('find … -delete over a system or home folder');
  }
  return OK;
}

/** Classifies one command line. */
export function checkHardFloor(command: string, ctx: HardFloorContext = {}): FloorVerdict {
  if (FORK_BOMB.test(command) || PERL_FORK_BOMB.test(command)) return block('a fork bomb');
  const { commands } = allCommands(command);
  const heads = commands.map((c) => basename(unwrap(c.words)[0] ?? ''));
  if (heads.includes('dropdb')) return block('dropdb (DROP DATABASE)');
  if (DROP_DATABASE.test(command) && heads.some((h) => SQL_CLIENTS.has(h))) return block('DROP DATABASE');
  for (const c of commands) {
    const v = checkCommand(c, ctx);
    if (v.blocked) return v;
  }
  return OK;
}
