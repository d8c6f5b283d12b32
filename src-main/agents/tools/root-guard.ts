/**
 * Confinement of file tools to the session's root. A path is accepted only when both its
 * spelling and its real location (symlinks resolved, up to the deepest existing ancestor)
 * are inside the root's real path: `..`, absolute paths elsewhere and symlinks that leave the
 * root are refused with a message the model can act on.
 */
import { existsSync, lstatSync, realpathSync } from 'node:fs';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';

export class ToolError extends Error {
  override readonly name = 'ToolError';
}

export interface RootedPath {
  /** Absolute real path (the target itself may not exist yet). */
  abs: string;
  /** Path relative to the root, with `/` separators, for messages and snapshots. */
  rel: string;
}

function inside(root: string, p: string): boolean {
  const r = relative(root, p);
  return r === '' || (!r.startsWith('..') && !isAbsolute(r) && r.split(sep)[0] !== '..');
}

/** The real path of `p`, or of its deepest existing ancestor with the rest appended. */
function realish(p: string): string {
  let cur = p;
  const rest: string[] = [];
  for (;;) {
    if (existsSync(cur) || isDanglingLink(cur)) {
      const real = isDanglingLink(cur) ? null : realpathSync(cur);
      if (real === null) throw new ToolError(`${p} is a symbolic link to something that does not exist; refusing to follow it.`);
      return rest.length ? resolve(real, ...rest.reverse()) : real;
    }
    const parent = dirname(cur);
    if (parent === cur) return p;
    rest.push(cur.slice(parent.length + (parent.endsWith(sep) ? 0 : 1)));
    cur = parent;
  }
}

function isDanglingLink(p: string): boolean {
  try {
    return lstatSync(p).isSymbolicLink() && !existsSync(p);
  } catch {
    return false;
  }
}

export function resolveInRoot(root: string, userPath: unknown, opts: { write?: boolean } = {}): RootedPath {
  if (typeof userPath !== 'string' || userPath.trim() === '') throw new ToolError('A path is required.');
  if (userPath.includes('\0')) throw new ToolError('The path contains a NUL byte.');
  const realRoot = realpathSync(root);
  const spelled = isAbsolute(userPath) ? resolve(userPath) : resolve(realRoot, userPath);
  // An absolute path may name the root by its non-real spelling (a symlinked /tmp): accept both.
  const lexicalOk = inside(realRoot, spelled) || inside(resolve(root), spelled);
  if (!lexicalOk) {
    throw new ToolError(`${userPath} is outside the session root (${realRoot}). File tools only work inside it; use a path relative to the root.`);
  }
  const target = inside(realRoot, spelled) ? spelled : resolve(realRoot, relative(resolve(root), spelled));
  const real = realish(target);
  if (!inside(realRoot, real)) {
    throw new ToolError(`${userPath} leads outside the session root through a symbolic link (to ${real}); refused.`);
  }
  const rel = relative(realRoot, real).split(sep).join('/') || '.';
  // Any .git folder (nested repositories too), in any case (case-insensitive file systems): hooks there run code.
  if (opts.write && rel.split('/').some((segment) => segment.toLowerCase() === '.git')) {
    throw new ToolError(`${userPath} is inside .git; the repository's internals are not edited with file tools (use git commands).`);
  }
  return { abs: real, rel };
}
