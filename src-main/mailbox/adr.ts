/**
 * Architecture decision records: `docs/decisions/ADR-NNNN-<slug>.md` in a workspace, each with
 * the sections 上下文 (context), 失败的尝试 (failed attempts), 最终决策 (decision) and 后果
 * (consequences). Several agents may record decisions in one workspace at the same moment, and
 * the numbers must still run 1, 2, 3… with no number used twice and none skipped.
 *
 * Numbering: the slug differs between writers, so an exclusive create of the ADR file itself
 * cannot stop two of them taking one number. Each number is therefore reserved with an
 * exclusive create (`O_EXCL`, here a hard link, which is the same test-and-set) of a lock file
 * named after the number alone, `.ADR-NNNN.lock`. A writer takes the lowest number that has
 * neither an ADR nor a lock; if that lock exists it tries the next; holding the lock it checks
 * again that no ADR took the number meanwhile (a writer that finished between our scan and our
 * lock), links its finished ADR into place, and only then removes the lock. So at every moment
 * a number is visibly taken (by a lock or an ADR), a number is given up only when an ADR holds
 * it, and the lowest free number is always the next one: no collisions and no gaps.
 */
import { linkSync, lstatSync, mkdirSync, readdirSync, statSync, unlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { basename, join } from 'node:path';
import { AppError } from '../../src-preload/contract/errors';
import { writeNewFile } from '../platform/atomic-file';
import { readFileNoWait } from '../platform/read-no-wait';

/** Where ADRs live, relative to the workspace. */
export const ADR_FOLDER = 'docs/decisions';

/** Numbers are written with at least four digits (ADR-0001); beyond 9999 they simply grow. */
const ADR_NUMBER_DIGITS = 4;

/** Long enough for a readable file name, short enough for every file system's name limit. */
const MAX_SLUG_LENGTH = 60;

/**
 * A lock is held for the few milliseconds of writing one small file. One whose owner process
 * is gone (same machine) is abandoned at once; one from another machine (a shared folder) or
 * without a readable owner is abandoned after this long, which no live writer ever needs.
 */
const STALE_LOCK_MS = 10 * 60 * 1000;

/** Attempts before giving up; each failed one means another writer took the number, so this bounds a pathological loop only. */
const MAX_ATTEMPTS = 10_000;

export const ADR_SECTIONS = {
  context: '上下文',
  failedAttempts: '失败的尝试',
  decision: '最终决策',
  consequences: '后果',
} as const;
export type AdrSection = keyof typeof ADR_SECTIONS;

/** English headings accepted when reading an ADR someone wrote by hand. */
const ENGLISH_SECTIONS: Record<string, AdrSection> = { context: 'context', 'failed attempts': 'failedAttempts', decision: 'decision', consequences: 'consequences' };

export interface AdrInput {
  title: string;
  context: string;
  failedAttempts: string;
  decision: string;
  consequences: string;
}

export interface Adr extends AdrInput {
  number: number;
}

export interface AdrFile {
  number: number;
  slug: string;
  file: string;
}

const ADR_NAME = /^ADR-(\d{4,})(?:-(.+))?\.md$/;
const LOCK_NAME = /^\.ADR-(\d{4,})\.lock$/;

export function formatAdrNumber(n: number): string {
  return `ADR-${String(n).padStart(ADR_NUMBER_DIGITS, '0')}`;
}

/** A file-name slug from a title: letters and digits of any script, lower-cased, joined by "-". */
export function slugify(title: string): string {
  const words = title
    .normalize('NFKC')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  let slug = '';
  for (const w of words) {
    const next = slug ? `${slug}-${w}` : w;
    if ([...next].length > MAX_SLUG_LENGTH) {
      if (!slug) slug = [...w].slice(0, MAX_SLUG_LENGTH).join('');
      break;
    }
    slug = next;
  }
  return slug || 'decision';
}

/** The Markdown of an ADR. */
export function formatAdr(adr: Adr): string {
  const title = adr.title.trim();
  if (title === '' || /[\r\n]/.test(title)) throw new AppError('invalid_input', 'An ADR needs a one-line title.');
  for (const key of ['context', 'decision'] as const) {
    if (adr[key].trim() === '') throw new AppError('invalid_input', `An ADR needs its "${ADR_SECTIONS[key]}" section.`);
  }
  const body = (s: string) => (s.trim() === '' ? '—' : s.trim());
  return [
    `# ${formatAdrNumber(adr.number)}: ${title}`,
    '',
    ...(Object.keys(ADR_SECTIONS) as AdrSection[]).flatMap((k) => [`## ${ADR_SECTIONS[k]}`, '', body(adr[k]), '']),
  ].join('\n');
}

/** Reads an ADR's number, title and sections (Chinese or English headings). */
export function parseAdr(text: string): Adr {
  const lines = text.replace(/^\uFEFF/, '').split(/\r\n|\n|\r/);
  const head = lines.findIndex((l) => l.trim() !== '');
  const m = head >= 0 ? /^#\s+ADR-(\d+)\s*[:：]\s*(.+?)\s*$/.exec(lines[head]!) : null;
  if (!m) throw new AppError('invalid_input', 'An ADR starts with a heading "# ADR-NNNN: title".');
  const out: Adr = { number: Number(m[1]), title: m[2]!, context: '', failedAttempts: '', decision: '', consequences: '' };
  let current: AdrSection | undefined;
  const text_: Partial<Record<AdrSection, string[]>> = {};
  for (const l of lines.slice(head + 1)) {
    const h = /^##\s+(.+?)\s*$/.exec(l);
    if (h) {
      const name = h[1]!.trim();
      current = (Object.keys(ADR_SECTIONS) as AdrSection[]).find((k) => ADR_SECTIONS[k] === name) ?? ENGLISH_SECTIONS[name.toLowerCase()];
      if (current) text_[current] = [];
      continue;
    }
    if (current) text_[current]!.push(l);
  }
  for (const k of Object.keys(ADR_SECTIONS) as AdrSection[]) {
    const s = (text_[k] ?? []).join('\n').trim();
    out[k] = s === '—' ? '' : s;
  }
  return out;
}

/** The ADRs in a workspace, by number. */
export function listAdrs(workspace: string): AdrFile[] {
  const dir = join(workspace, ADR_FOLDER);
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw e;
  }
  const out: AdrFile[] = [];
  for (const name of names) {
    const m = ADR_NAME.exec(name);
    if (m) out.push({ number: Number(m[1]), slug: m[2] ?? '', file: join(dir, name) });
  }
  return out.sort((a, b) => a.number - b.number || a.file.localeCompare(b.file));
}

/** An ADR larger than this is not a decision record someone reads; the report names it without reading it. */
const MAX_ADR_BYTES = 256 * 1024;

/** A decision a task recorded as an ADR file: its number, title and decision, as the report shows them. */
export interface AdrWritten {
  path: string;
  number: number;
  title: string;
  decision: string | null;
  context: string | null;
  consequences: string | null;
}

/**
 * The ADRs a task created or changed, from the task's file list (paths relative to the
 * workspace). Each is read only when it is a regular file (never through a link) inside the
 * ADR folder and of a sane size; one that cannot be parsed is still listed by its file name.
 */
export function adrsWritten(workspace: string, files: ReadonlyArray<{ path: string; operation: string }>): AdrWritten[] {
  const out: AdrWritten[] = [];
  for (const f of files) {
    if (f.operation === 'deleted') continue;
    const rel = f.path.replace(/\\/g, '/');
    const slash = rel.lastIndexOf('/');
    if (rel.slice(0, slash) !== ADR_FOLDER) continue;
    const m = ADR_NAME.exec(rel.slice(slash + 1));
    if (!m) continue;
    const fallback: AdrWritten = { path: rel, number: Number(m[1]), title: (m[2] ?? '').replace(/-/g, ' '), decision: null, context: null, consequences: null };
    try {
      const file = join(workspace, rel);
      const st = lstatSync(file);
      if (!st.isFile() || st.size > MAX_ADR_BYTES) {
        out.push(fallback);
        continue;
      }
      const adr = parseAdr(readFileNoWait(file, 'utf8'));
      const flat = (t: string) => (t.trim() === '' ? null : t.replace(/\s+/g, ' ').trim());
      out.push({ path: rel, number: adr.number, title: adr.title, decision: flat(adr.decision), context: flat(adr.context), consequences: flat(adr.consequences) });
    } catch {
      // Gone since the task, unreadable, or not in the ADR format: the report still names it.
      out.push(fallback);
    }
  }
  return out.sort((a, b) => a.number - b.number);
}

/** Exclusive create of `dest` holding the finished `tmp`'s content: false when `dest` exists. */
function linkExclusive(tmp: string, dest: string): boolean {
  try {
    linkSync(tmp, dest);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw e;
  }
}

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file);
  } catch {
    // Already gone (a stale-lock sweep by another writer, or never created): nothing left to remove.
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    // EPERM: it exists but belongs to someone else.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** True when the lock's writer is gone, so the number it held may be taken. */
function lockIsStale(lock: string, now: number): boolean {
  let text: string;
  let mtime: number;
  try {
    // No-wait: a FIFO named like a lock must not hang the scan (it then counts as not stale).
    text = readFileNoWait(lock, 'utf8');
    mtime = statSync(lock).mtimeMs;
  } catch {
    // Released between the listing and now: not stale, simply gone; the next scan sees that.
    return false;
  }
  const [pid, host] = text.split('\n');
  if (host === hostname() && /^\d+$/.test(pid ?? '') && !processAlive(Number(pid))) return true;
  return now - mtime > STALE_LOCK_MS;
}

interface Scan {
  adrs: Set<number>;
  locks: Set<number>;
}

function scan(dir: string): Scan {
  const adrs = new Set<number>();
  const locks = new Set<number>();
  for (const name of readdirSync(dir)) {
    const a = ADR_NAME.exec(name);
    if (a) adrs.add(Number(a[1]));
    const l = LOCK_NAME.exec(name);
    if (l) locks.add(Number(l[1]));
  }
  return { adrs, locks };
}

/**
 * Writes a new ADR with the next number (see the module comment) and returns its file. The ADR
 * appears complete: its text is written to a temporary file first and linked into place.
 */
export function writeAdr(workspace: string, input: AdrInput): AdrFile {
  const dir = join(workspace, ADR_FOLDER);
  mkdirSync(dir, { recursive: true });
  const slug = slugify(input.title);
  const token = `${process.pid}.${randomBytes(6).toString('hex')}`;
  const lockTmp = join(dir, `.adr-lock.${token}.tmp`);
  writeNewFile(lockTmp, `${process.pid}\n${hostname()}\n`, 0o644);
  const staleChecked = new Set<number>();
  try {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const { adrs, locks } = scan(dir);
      let n = 1;
      while (adrs.has(n) || (locks.has(n) && (staleChecked.has(n) || !breakIfStale(dir, n)))) {
        if (locks.has(n)) staleChecked.add(n);
        n++;
      }
      const lock = join(dir, `.${formatAdrNumber(n)}.lock`);
      if (!linkExclusive(lockTmp, lock)) continue; // another writer locked n between the scan and now
      try {
        if (scan(dir).adrs.has(n)) continue; // a writer finished n after our scan: take the next
        const text = formatAdr({ ...input, number: n });
        const file = join(dir, `${formatAdrNumber(n)}-${slug}.md`);
        const adrTmp = join(dir, `.adr.${token}.${n}.tmp`);
        writeNewFile(adrTmp, text, 0o644);
        try {
          if (!linkExclusive(adrTmp, file)) continue; // a writer that does not take locks (a person) used this name
        } finally {
          unlinkQuietly(adrTmp);
        }
        // Safety net for the one case the locks cannot cover: two writers who both judged the
        // same abandoned lock stale, so both held n. Each sees the other's ADR (whoever linked
        // later sees the earlier one); whoever sees another gives n up and takes the next free number.
        if (readdirSync(dir).some((name) => name !== basename(file) && Number(ADR_NAME.exec(name)?.[1]) === n)) {
          unlinkQuietly(file);
          continue;
        }
        return { number: n, slug, file };
      } finally {
        unlinkQuietly(lock);
        staleChecked.clear();
      }
    }
  } finally {
    unlinkQuietly(lockTmp);
  }
  throw new AppError('conflict', `Could not number a new ADR in ${ADR_FOLDER}/ after ${MAX_ATTEMPTS} attempts; other writers keep taking the numbers.`);
}

/**
 * Removes the lock of number `n` when its writer is gone, so the number can be used. Returns
 * true when it did. Two writers may judge the same lock stale at once; then the second unlink
 * can remove the first's fresh lock, and both hold n: the check after linking the ADR (in
 * `writeAdr`) resolves that.
 */
function breakIfStale(dir: string, n: number): boolean {
  const lock = join(dir, `.${formatAdrNumber(n)}.lock`);
  if (!lockIsStale(lock, Date.now())) return false;
  try {
    unlinkSync(lock);
  } catch {
    // Another writer removed it first: the number is free either way.
  }
  return true;
}
