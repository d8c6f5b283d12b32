/**
 * The Coder role's PreToolUse guard (the features' and autopilot's agents): the block list an
 * unattended agent must never run, whatever the session's mode and whether or not the user
 * turned the hard floor off. It is the hard floor, made stricter where an unattended run needs
 * it: every force push (not only to a base branch) and `DROP TABLE` as well as `DROP DATABASE`.
 * Pure; unit-tested.
 */
import { checkHardFloor, type FloorVerdict } from './hard-floor';
import { allCommands, basename, unwrap } from './shell-parse';

/** The same SQL clients the hard floor knows: a statement counts only when one of them is on the line. */
const SQL_CLIENT = /^(psql|mysql|mariadb|sqlite3|sqlcmd|cockroach|clickhouse-client|clickhouse|mongo|mongosh|duckdb|pgcli|mycli|usql|isql|sqlplus|docker|kubectl)$/;
const DROP_TABLE = /\bdrop\s+table\b/i;

const block = (reason: string): FloorVerdict => ({ blocked: true, reason });

function forcePush(args: readonly string[]): boolean {
  let i = 0;
  while (i < args.length && args[i]!.startsWith('-')) i += args[i] === '-C' || args[i] === '-c' ? 2 : 1;
  if (args[i] !== 'push') return false;
  const rest = args.slice(i + 1);
  const flag = rest.some((a) => a === '--force' || a === '-f' || a.startsWith('--force-with-lease') || a === '--force-if-includes' || a === '--mirror' || /^-[a-zA-Z]*f/.test(a));
  // `+ref` in a refspec is a force push of that ref.
  const plus = rest.filter((a) => !a.startsWith('-')).slice(1).some((r) => r.startsWith('+'));
  return flag || plus;
}

/** Returns why the command is refused for an agent in the Coder role, or null when the guard lets it through. */
export function checkRoleGuard(command: string): FloorVerdict {
  // Every base branch is protected here: an unattended agent pushes only its own branch, plainly.
  const floor = checkHardFloor(command, { baseBranches: [], currentBranch: null });
  if (floor.blocked) return floor;
  const { commands } = allCommands(command);
  for (const c of commands) {
    const w = unwrap(c.words);
    if (w.length === 0) continue;
    if (basename(w[0]!) === 'git' && forcePush(w.slice(1))) return block('git push --force (an agent never rewrites a remote branch)');
  }
  const heads = commands.map((c) => basename(unwrap(c.words)[0] ?? ''));
  if (DROP_TABLE.test(command) && heads.some((h) => SQL_CLIENT.test(h))) return block('DROP TABLE');
  return { blocked: false, reason: null };
}
