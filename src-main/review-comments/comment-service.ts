/**
 * Review comments on a feature's diff (seen from the feature page, the CLI, and the run that
 * sends them): stored in SQLite with the commit they were made on, quoted from that commit, sent
 * as one fix round in the feature's next run, and judged again once the fix is committed.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { AppError, type ReviewComment, type ReviewCommentStatus } from '../../src-preload/contract';
import { git, GitError } from '../git/git';
import { FileTooLargeError, readFileInsideAsync, UnsafePathError } from '../platform/contained-path';
import type { Database } from '../store/db';
import { TREES_DIR } from '../worktrees/worktree-manager';
import { fixRoundText, judgeAnchor, linesOf } from './anchor';

/** A file a comment quotes is source code, not a data dump; past this it is not read. */
const MAX_COMMENTED_FILE_BYTES = 8 * 1024 * 1024;
/** The quote is what the agent is shown: a comment on more lines than this quotes the first of them. */
const MAX_QUOTED_LINES = 80;

interface Row {
  id: string;
  repo_root: string;
  feature_slug: string | null;
  session_id: string | null;
  file: string;
  line_start: number;
  line_end: number;
  quote: string;
  body: string;
  revision: string;
  status: ReviewCommentStatus;
  sent_revision: string | null;
  base_text: string | null;
  created_at: number;
  updated_at: number;
}

function toComment(r: Row): ReviewComment {
  return { id: r.id, slug: r.feature_slug ?? '', sessionId: r.session_id, file: r.file, lineStart: r.line_start, lineEnd: r.line_end, quote: r.quote, body: r.body, revision: r.revision, status: r.status, sentRevision: r.sent_revision, createdAt: r.created_at, updatedAt: r.updated_at };
}

/** A session's file text kept with its comment, to judge it after the turn; a larger file is judged by its quote. */
const MAX_KEPT_TEXT_CHARS = 1024 * 1024;

function newId(at: number): string {
  return `rc-${at.toString(36)}${randomBytes(5).toString('hex')}`;
}

/** A path relative to the worktree or folder, with forward slashes; refused when it leaves it. */
function cleanPath(path: string): string {
  const file = path.replace(/\\/g, '/').replace(/^\.\//, '');
  if (file === '' || file.startsWith('/') || file.split('/').includes('..')) throw new AppError('invalid_input', `"${path}" is not a path inside the worktree.`);
  return file;
}

/** The feature's worktree, where its branch is checked out. */
export function featureWorktree(repoRoot: string, slug: string): string {
  return join(repoRoot, TREES_DIR, slug);
}

/** A file as committed at `rev` (HEAD by default) in the worktree; null when that commit has no such file. */
async function fileAtHead(worktree: string, repoRoot: string, file: string, rev = 'HEAD'): Promise<string | null> {
  try {
    return await git(['show', `${rev}:${file}`], { cwd: worktree, repository: repoRoot, maxOutputBytes: MAX_COMMENTED_FILE_BYTES });
  } catch (e) {
    // "does not exist in 'HEAD'" / "exists on disk, but not in 'HEAD'": the file is not committed there.
    if (e instanceof GitError && /does not exist|exists on disk, but not in|invalid object name/i.test(`${e.message}\n${e.stderr}`)) return null;
    throw e;
  }
}

/**
 * A file as the worktree holds it now (the fix may be uncommitted when auto-commit is off): a
 * regular file inside the worktree only, never through a link; null when it is gone or is not one.
 */
async function fileInWorktree(worktree: string, file: string): Promise<string | null> {
  try {
    return (await readFileInsideAsync(worktree, join(worktree, file), { maxBytes: MAX_COMMENTED_FILE_BYTES, what: 'a commented file' })).toString('utf8');
  } catch (e) {
    // Gone, replaced by a link or a folder, or grown past any source file: its lines are not there to judge.
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof UnsafePathError || e instanceof FileTooLargeError) return null;
    throw e;
  }
}

export class ReviewCommentService {
  constructor(private readonly o: { db: Database; now?: () => number }) {}

  private now(): number {
    return this.o.now?.() ?? Date.now();
  }

  private row(id: string): Row {
    const r = this.o.db.prepare('SELECT * FROM review_comments WHERE id = ?').get(id) as Row | undefined;
    if (!r) throw new AppError('not_found', `There is no review comment ${id}.`);
    return r;
  }

  /** A feature's comments (never a session's), oldest first. */
  list(repoRoot: string, slug: string, status?: ReviewCommentStatus): ReviewComment[] {
    const rows = (status
      ? this.o.db.prepare('SELECT * FROM review_comments WHERE repo_root = ? AND feature_slug = ? AND status = ? ORDER BY created_at, rowid').all(repoRoot, slug, status)
      : this.o.db.prepare('SELECT * FROM review_comments WHERE repo_root = ? AND feature_slug = ? ORDER BY created_at, rowid').all(repoRoot, slug)) as Row[];
    return rows.map(toComment);
  }

  /** A comment on lines of a file as committed on the feature's branch (HEAD of its worktree). */
  async add(c: { repoRoot: string; slug: string; file: string; lineStart: number; lineEnd: number; body: string }): Promise<ReviewComment> {
    const worktree = featureWorktree(c.repoRoot, c.slug);
    const file = cleanPath(c.file);
    if (c.lineEnd < c.lineStart) throw new AppError('invalid_input', `The range ${c.lineStart}-${c.lineEnd} ends before it starts.`);
    let revision: string;
    try {
      revision = (await git(['rev-parse', 'HEAD'], { cwd: worktree, repository: c.repoRoot })).trim();
    } catch (e) {
      throw new AppError('not_found', `The feature "${c.slug}" has no worktree with a commit to comment on (${worktree}): ${e instanceof Error ? e.message.split('\n')[0] : String(e)}`);
    }
    const text = await fileAtHead(worktree, c.repoRoot, file);
    if (text === null) throw new AppError('not_found', `${file} is not in the feature's last commit (${revision.slice(0, 8)}): comment on committed lines.`);
    const end = Math.min(c.lineEnd, c.lineStart + MAX_QUOTED_LINES - 1);
    const quote = linesOf(text, c.lineStart, end);
    if (quote === null) throw new AppError('invalid_input', `${file} has ${text.split('\n').length - (text.endsWith('\n') ? 1 : 0)} lines at ${revision.slice(0, 8)}: there is no line ${c.lineEnd}.`);
    const at = this.now();
    return this.insert({ id: newId(at), repo_root: c.repoRoot, feature_slug: c.slug, session_id: null, file, line_start: c.lineStart, line_end: c.lineEnd, quote, body: c.body.trim(), revision, status: 'open', sent_revision: null, base_text: null, created_at: at, updated_at: at });
  }

  private insert(row: Row): ReviewComment {
    this.o.db
      .prepare('INSERT INTO review_comments (id, repo_root, feature_slug, session_id, file, line_start, line_end, quote, body, revision, status, sent_revision, base_text, created_at, updated_at) VALUES (@id, @repo_root, @feature_slug, @session_id, @file, @line_start, @line_end, @quote, @body, @revision, @status, @sent_revision, @base_text, @created_at, @updated_at)')
      .run(row);
    return toComment(row);
  }

  // ---- a session's changes ----------------------------------------------------------------------

  /**
   * A comment on lines of a file as the session's folder holds it now (its changes need not be
   * committed): the file's text is kept with the comment, to judge it against after the turn.
   */
  async addForSession(c: { sessionId: string; root: string; file: string; lineStart: number; lineEnd: number; body: string }): Promise<ReviewComment> {
    const file = cleanPath(c.file);
    if (c.lineEnd < c.lineStart) throw new AppError('invalid_input', `The range ${c.lineStart}-${c.lineEnd} ends before it starts.`);
    const text = await fileInWorktree(c.root, file);
    if (text === null) throw new AppError('not_found', `${file} is not a file in the session's folder.`);
    const quote = linesOf(text, c.lineStart, Math.min(c.lineEnd, c.lineStart + MAX_QUOTED_LINES - 1));
    if (quote === null) throw new AppError('invalid_input', `${file} has no line ${c.lineEnd}.`);
    const revision = await git(['rev-parse', 'HEAD'], { cwd: c.root }).then(
      (h) => h.trim(),
      // Not a repository, or no commit yet: the kept text is the revision.
      () => '',
    );
    const at = this.now();
    return this.insert({ id: newId(at), repo_root: c.root, feature_slug: null, session_id: c.sessionId, file, line_start: c.lineStart, line_end: c.lineEnd, quote, body: c.body.trim(), revision, status: 'open', sent_revision: null, base_text: text.length <= MAX_KEPT_TEXT_CHARS ? text : null, created_at: at, updated_at: at });
  }

  /** A session's comments, oldest first; those sent are judged on the folder once the session is idle. */
  async listForSession(sessionId: string, o: { idle: boolean }): Promise<ReviewComment[]> {
    const rows = () => this.o.db.prepare('SELECT * FROM review_comments WHERE session_id = ? ORDER BY created_at, rowid').all(sessionId) as Row[];
    if (o.idle) {
      // Only a comment still as read (sent, not touched since): two lists can judge at once (the
      // file reads are awaited), and meanwhile the user may have reopened one the other judged
      // already, or sent it again in a new round. Every change moves updated_at on by at least 1
      // (MAX(now, updated_at + 1)), so it tells two states apart within one millisecond too.
      const update = this.o.db.prepare("UPDATE review_comments SET status = ?, updated_at = MAX(?, updated_at + 1) WHERE id = ? AND status = 'sent' AND updated_at = ?");
      for (const r of rows().filter((x) => x.status === 'sent')) {
        const now = await fileInWorktree(r.repo_root, r.file);
        const verdict = r.base_text !== null ? judgeAnchor(toComment(r), r.base_text, now) : now !== null && now.replace(/\r\n/g, '\n').includes(r.quote) ? 'open' : 'outdated';
        update.run(verdict, this.now(), r.id, r.updated_at);
      }
    }
    return rows().map(toComment);
  }

  openCount(sessionId: string): number {
    return (this.o.db.prepare("SELECT COUNT(*) AS n FROM review_comments WHERE session_id = ? AND status = 'open'").get(sessionId) as { n: number }).n;
  }

  /** The message did not reach the agent: the session's sent comments are open again. */
  unsendSession(sessionId: string): void {
    this.o.db.prepare("UPDATE review_comments SET status = 'open', sent_revision = NULL, updated_at = MAX(?, updated_at + 1) WHERE session_id = ? AND status = 'sent'").run(this.now(), sessionId);
  }

  /** The session's open comments as one message for the agent; they are marked sent. Null when none are open. */
  takeForSession(sessionId: string): string | null {
    const open = (this.o.db.prepare("SELECT * FROM review_comments WHERE session_id = ? AND status = 'open' ORDER BY created_at, rowid").all(sessionId) as Row[]).map(toComment);
    if (open.length === 0) return null;
    this.markSent(
      open.map((c) => c.id),
      'session',
    );
    return fixRoundText(open);
  }

  reopen(id: string): ReviewComment {
    const r = this.row(id);
    if (r.status === 'sent') throw new AppError('conflict', 'The comment is in a fix round now; it is judged again when the round ends.');
    this.o.db.prepare("UPDATE review_comments SET status = 'open', updated_at = MAX(?, updated_at + 1) WHERE id = ?").run(this.now(), id);
    return toComment(this.row(id));
  }

  remove(id: string): void {
    const r = this.row(id);
    if (r.status === 'sent') throw new AppError('conflict', 'The comment is in a fix round now and cannot be deleted until the round ends.');
    this.o.db.prepare('DELETE FROM review_comments WHERE id = ?').run(id);
  }

  /** The open comments go into a fix round that starts from `revision`. */
  markSent(ids: readonly string[], revision: string): void {
    const stmt = this.o.db.prepare("UPDATE review_comments SET status = 'sent', sent_revision = ?, updated_at = MAX(?, updated_at + 1) WHERE id = ? AND status = 'open'");
    const at = this.now();
    this.o.db.transaction(() => {
      for (const id of ids) stmt.run(revision, at, id);
    })();
  }

  /**
   * After a fix round: each comment sent in it is addressed (its lines changed), outdated (they
   * are gone) or open again (left as they were), judged on the feature's worktree.
   */
  async judgeSent(repoRoot: string, slug: string): Promise<ReviewComment[]> {
    const worktree = featureWorktree(repoRoot, slug);
    const sent = this.list(repoRoot, slug, 'sent');
    const now = new Map<string, string | null>();
    const before = new Map<string, string | null>();
    // Only a comment still as read (the reads between are awaited: see listForSession).
    const update = this.o.db.prepare("UPDATE review_comments SET status = ?, updated_at = MAX(?, updated_at + 1) WHERE id = ? AND status = 'sent' AND updated_at = ?");
    for (const c of sent) {
      if (!now.has(c.file)) now.set(c.file, await fileInWorktree(worktree, c.file));
      const rev = c.sentRevision || c.revision;
      const key = `${rev}\0${c.file}`;
      if (!before.has(key)) before.set(key, await fileAtHead(worktree, repoRoot, c.file, rev).catch(() => null));
      const was = before.get(key) ?? null;
      const current = now.get(c.file) ?? null;
      // Without the file as sent (history rewritten), the quote alone says whether the lines are still there.
      const verdict = was !== null ? judgeAnchor(c, was, current) : current !== null && current.replace(/\r\n/g, '\n').includes(c.quote) ? 'open' : 'outdated';
      update.run(verdict, this.now(), c.id, c.updatedAt);
    }
    return this.list(repoRoot, slug);
  }

  /** A fix round that never ran to its commit (cancelled, failed): its comments are open again. */
  unsend(repoRoot: string, slug: string): void {
    this.o.db.prepare("UPDATE review_comments SET status = 'open', sent_revision = NULL, updated_at = MAX(?, updated_at + 1) WHERE repo_root = ? AND feature_slug = ? AND status = 'sent'").run(this.now(), repoRoot, slug);
  }
}
