/**
 * Session files, `sessions/<session_id>.json`: one per agent session started from the mailbox,
 * holding exactly `session_id`, `created_at`, `last_activity`, `turn_count`, `status` (active /
 * ended) and `workspace`, so tools that read this format elsewhere read Flightdeck's too. The
 * transitions are pure functions; reading and writing are the only side effects, and every
 * write replaces the file atomically so a reader never sees half of one.
 */
import { readdirSync } from 'node:fs';
import { z } from 'zod';
import { AppError } from '../../src-preload/contract/errors';
import { writeFileAtomic } from '../platform/atomic-file';
import { readFileNoWait } from '../platform/read-no-wait';
import { SAFE_ID, parseIsoTime } from './command-file';
import { mailboxLayout } from './layout';

const IsoTime = z.string().refine((s) => !Number.isNaN(parseIsoTime(s)), { message: 'must be an ISO 8601 time such as "2026-02-22T10:00:00Z"' });

/** Exactly the fields of a session file: an extra or missing key is an error. */
export const SessionFileSchema = z.strictObject({
  session_id: z.string().regex(SAFE_ID, 'must be letters, digits, ".", "_" and "-", starting with a letter or digit'),
  created_at: IsoTime,
  last_activity: IsoTime,
  turn_count: z.number().int().nonnegative(),
  status: z.enum(['active', 'ended']),
  workspace: z.string().min(1),
});
export type SessionFile = z.infer<typeof SessionFileSchema>;

/** Session files hold no secrets, but other tools and users read them: world-readable like any project file. */
const SESSION_FILE_MODE = 0o644;

/** A session that has not had its first turn yet. */
export function newSession(sessionId: string, workspace: string, now: Date): SessionFile {
  const t = now.toISOString();
  return SessionFileSchema.parse({ session_id: sessionId, created_at: t, last_activity: t, turn_count: 0, status: 'active', workspace });
}

/** One more turn (a `new` or `continue` command ran). An ended session takes no more turns. */
export function recordTurn(s: SessionFile, now: Date): SessionFile {
  if (s.status === 'ended') throw new AppError('conflict', `Session ${s.session_id} has ended; it takes no more turns.`);
  return { ...s, turn_count: s.turn_count + 1, last_activity: now.toISOString() };
}

/** The session is over (an `end` command). Ending twice is an error the caller reports. */
export function endSession(s: SessionFile, now: Date): SessionFile {
  if (s.status === 'ended') throw new AppError('conflict', `Session ${s.session_id} has already ended.`);
  return { ...s, status: 'ended', last_activity: now.toISOString() };
}

/** The JSON text of a session file (validated first, two-space indented, ending in a newline). */
export function formatSessionFile(s: SessionFile): string {
  const valid = SessionFileSchema.parse(s);
  const ordered = { session_id: valid.session_id, created_at: valid.created_at, last_activity: valid.last_activity, turn_count: valid.turn_count, status: valid.status, workspace: valid.workspace };
  return `${JSON.stringify(ordered, null, 2)}\n`;
}

/** Parses a session file's text; the error names the file and every wrong field. */
export function parseSessionFile(text: string, where: string): SessionFile {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new AppError('invalid_input', `${where} is not valid JSON: ${(e as Error).message}`);
  }
  const r = SessionFileSchema.safeParse(json);
  if (!r.success) {
    const why = r.error.issues.map((i) => (i.path.length > 0 ? `${i.path.join('.')}: ${i.message}` : i.message)).join('; ');
    throw new AppError('invalid_input', `${where} is not a valid session file: ${why}`, { issues: r.error.issues.map((i) => ({ path: i.path.map(String), message: i.message })) });
  }
  return r.data;
}

/** Writes `sessions/<session_id>.json` atomically. */
export function writeSessionFile(root: string, s: SessionFile): string {
  const file = mailboxLayout(root).sessionFile(s.session_id);
  writeFileAtomic(file, formatSessionFile(s), { mode: SESSION_FILE_MODE });
  return file;
}

/** Reads a session, or undefined when the mailbox has no file for it. A file for another id is an error. */
export function readSessionFile(root: string, sessionId: string): SessionFile | undefined {
  const file = mailboxLayout(root).sessionFile(sessionId);
  let text: string;
  try {
    // A FIFO or device dropped into sessions/ is refused rather than waited on.
    text = readFileNoWait(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  const s = parseSessionFile(text, `sessions/${sessionId}.json`);
  if (s.session_id !== sessionId) throw new AppError('invalid_input', `sessions/${sessionId}.json holds session ${JSON.stringify(s.session_id)}; the file name and session_id must match.`);
  return s;
}

export interface SessionListing {
  sessions: SessionFile[];
  /** Files that could not be read, each with the reason (one bad file does not hide the others). */
  invalid: { file: string; reason: string }[];
}

/** Every session file in the mailbox, oldest first. Temporary files of an atomic write are skipped. */
export function listSessionFiles(root: string): SessionListing {
  const dir = mailboxLayout(root).folders.sessions;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { sessions: [], invalid: [] };
    throw e;
  }
  const out: SessionListing = { sessions: [], invalid: [] };
  for (const name of names.sort()) {
    if (name.startsWith('.') || !name.endsWith('.json')) continue;
    const id = name.slice(0, -'.json'.length);
    try {
      const s = readSessionFile(root, id);
      if (s) out.sessions.push(s);
    } catch (e) {
      out.invalid.push({ file: name, reason: (e as Error).message });
    }
  }
  out.sessions.sort((a, b) => parseIsoTime(a.created_at) - parseIsoTime(b.created_at) || a.session_id.localeCompare(b.session_id));
  return out;
}
