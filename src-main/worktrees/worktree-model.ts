/**
 * Worktrees, the pure part: slug rules, the parsers of git's porcelain output, archive ref names
 * and the "what would be lost" summary. No I/O here; WorktreeManager does the git calls.
 */
import { AppError } from '../../src-preload/contract/errors';

/** Long enough for a descriptive feature name, short enough for a branch name and a folder. */
export const MAX_SLUG_LENGTH = 64;
/** Shared with feature slugs (features/state.ts): a feature's slug becomes its worktree's folder and branch. */
export const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SLUG_RULE = `lowercase letters, digits and single hyphens (not at the start or end), at most ${MAX_SLUG_LENGTH} characters, e.g. "add-user-auth"`;

/** Null when the slug is valid, else the message naming the rule. */
export function slugProblem(slug: string): string | null {
  if (slug.length > MAX_SLUG_LENGTH) return `"${slug.slice(0, 80)}${slug.length > 80 ? '…' : ''}" is too long (${slug.length} characters) for a worktree name: use ${SLUG_RULE}.`;
  if (!SLUG_RE.test(slug)) return `"${slug}" is not a valid worktree name: use ${SLUG_RULE}.`;
  return null;
}

export function validateSlug(slug: string): string {
  const problem = slugProblem(slug);
  if (problem) throw new AppError('invalid_input', problem, { slug });
  return slug;
}

/**
 * The slug an archive of a worktree is filed under: its folder name when that is a valid slug
 * (always so for Flightdeck's own), else the name folded into one (a hand-made `../My_Fix` → `my-fix`).
 */
export function archiveSlugFor(folderName: string): string {
  if (slugProblem(folderName) === null) return folderName;
  const folded = folderName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .slice(0, MAX_SLUG_LENGTH)
    .replace(/^-+|-+$/g, '');
  return folded || 'worktree';
}

// ---- git worktree list --porcelain ------------------------------------------------------------

export interface PorcelainWorktree {
  path: string;
  /** Null for a bare repository's entry. */
  head: string | null;
  /** Short branch name (`feature/x`), null when detached or bare. */
  branch: string | null;
  bare: boolean;
  detached: boolean;
  /** Null when not locked; the reason (possibly empty) when locked. */
  locked: string | null;
  /** Null unless git says the worktree can be pruned (its folder vanished); git's reason. */
  prunable: string | null;
}

/**
 * Parses `git worktree list --porcelain` (newline-separated) or `--porcelain -z` (NUL-separated,
 * which keeps paths with newlines intact). Records are separated by an empty line/field; unknown
 * attributes (newer gits add some) are ignored.
 */
export function parseWorktreeList(text: string): PorcelainWorktree[] {
  const sep = text.includes('\0') ? '\0' : '\n';
  const out: PorcelainWorktree[] = [];
  let cur: PorcelainWorktree | null = null;
  for (const field of text.split(sep)) {
    if (field === '') {
      if (cur) out.push(cur);
      cur = null;
      continue;
    }
    const space = field.indexOf(' ');
    const key = space < 0 ? field : field.slice(0, space);
    const value = space < 0 ? '' : field.slice(space + 1);
    if (key === 'worktree') {
      if (cur) out.push(cur);
      cur = { path: value, head: null, branch: null, bare: false, detached: false, locked: null, prunable: null };
      continue;
    }
    if (!cur) continue;
    if (key === 'HEAD') cur.head = value;
    else if (key === 'branch') cur.branch = value.replace(/^refs\/heads\//, '');
    else if (key === 'bare') cur.bare = true;
    else if (key === 'detached') cur.detached = true;
    else if (key === 'locked') cur.locked = value;
    else if (key === 'prunable') cur.prunable = value || 'its folder is missing';
  }
  if (cur) out.push(cur);
  return out;
}

// ---- git status --porcelain=v1 -z --------------------------------------------------------------

export interface StatusEntry {
  /** Two-letter porcelain code, e.g. " M", "A ", "??". */
  code: string;
  path: string;
  /** The old path of a rename or copy. */
  from?: string;
}

export function parseStatusZ(text: string): StatusEntry[] {
  const fields = text.split('\0');
  const out: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.length < 4) continue;
    const code = f.slice(0, 2);
    const entry: StatusEntry = { code, path: f.slice(3) };
    // A rename or copy is followed by its source path as the next field.
    if (code[0] === 'R' || code[0] === 'C') entry.from = fields[++i];
    out.push(entry);
  }
  return out;
}

// ---- archive refs -----------------------------------------------------------------------------

export const ARCHIVE_REF_PREFIX = 'refs/flightdeck/archive/';

/** `20260218T103000Z`: sortable as text, valid in a ref name, readable. */
export function archiveTimestamp(d: Date): string {
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z').replace(/[-:]/g, '');
}

export function archiveRef(slug: string, timestamp: string): string {
  return `${ARCHIVE_REF_PREFIX}${validateSlug(slug)}/${timestamp}`;
}

export function parseArchiveRef(ref: string): { slug: string; timestamp: string } | null {
  const m = /^refs\/flightdeck\/archive\/([a-z0-9-]+)\/([0-9TZ-]+)$/.exec(ref);
  return m ? { slug: m[1]!, timestamp: m[2]! } : null;
}

/** What an archive commit records besides its tree and parent (the branch tip). */
export interface ArchiveMeta {
  slug: string;
  branch: string | null;
  base: string | null;
  head: string;
  /** True when the archive's tree is a snapshot of uncommitted work (differs from the tip's). */
  dirty: boolean;
}

export function archiveMessage(m: ArchiveMeta): string {
  return [
    `flightdeck archive of worktree ${m.slug}`,
    '',
    `slug: ${m.slug}`,
    `branch: ${m.branch ?? '(detached)'}`,
    `base: ${m.base ?? '(unknown)'}`,
    `head: ${m.head}`,
    `dirty: ${m.dirty ? 'yes' : 'no'}`,
    '',
  ].join('\n');
}

export function parseArchiveMessage(text: string): ArchiveMeta | null {
  const field = (k: string) => new RegExp(`^${k}: (.*)$`, 'm').exec(text)?.[1]?.trim();
  const slug = field('slug');
  const head = field('head');
  if (!slug || !head || !/^[0-9a-f]{40,64}$/.test(head)) return null;
  const branch = field('branch');
  const base = field('base');
  return {
    slug,
    head,
    branch: !branch || branch === '(detached)' ? null : branch,
    base: !base || base === '(unknown)' ? null : base,
    dirty: field('dirty') === 'yes',
  };
}

// ---- what would be lost -----------------------------------------------------------------------

export interface CommitLine {
  sha: string;
  subject: string;
}

export interface LossReport {
  /** Tracked files with uncommitted changes (staged or not). */
  changed: string[];
  untracked: string[];
  /** Commits on the branch found neither on its base nor on its upstream. */
  unpushed: CommitLine[];
}

export function isLossless(r: LossReport): boolean {
  return r.changed.length === 0 && r.untracked.length === 0 && r.unpushed.length === 0;
}

/** Names shown in one message; the rest are counted (a build folder can hold thousands). */
const MAX_LISTED = 20;

function listed(items: string[]): string {
  const shown = items.slice(0, MAX_LISTED).join(', ');
  return items.length > MAX_LISTED ? `${shown} and ${items.length - MAX_LISTED} more` : shown;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** One sentence per kind of work, naming the files and commit subjects. Empty when nothing would be lost. */
export function summarizeLoss(r: LossReport, base: string | null): string[] {
  const lines: string[] = [];
  if (r.changed.length) lines.push(`${plural(r.changed.length, 'file with uncommitted changes', 'files with uncommitted changes')}: ${listed(r.changed)}`);
  if (r.untracked.length) lines.push(`${plural(r.untracked.length, 'untracked file', 'untracked files')}: ${listed(r.untracked)}`);
  if (r.unpushed.length) {
    const where = base ? `on ${base} or the branch's upstream` : `on the base branch or the branch's upstream`;
    lines.push(`${plural(r.unpushed.length, 'commit', 'commits')} not ${where}: ${listed(r.unpushed.map((c) => `${c.sha.slice(0, 7)} "${c.subject}"`))}`);
  }
  return lines;
}

/** Extracts the path of the lock file from git's "Unable to create '…lock': File exists." message. */
export function lockFileInMessage(stderr: string): string | null {
  const m = /Unable to create '([^']+\.lock)': File exists/.exec(stderr);
  return m ? m[1]! : null;
}
