/**
 * The malformed corpus dropped into a live mailbox together with valid files: every malformed
 * file lands in rejected/ with its reasons, nothing is lost, the valid ones still run, and the
 * watcher keeps going.
 */
import { copyFileSync, existsSync, openSync, closeSync, ftruncateSync, readFileSync, readdirSync, renameSync, symlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { newSession, writeSessionFile } from '../../../src-main/mailbox/session-file';
import { makeFifo } from '../../support/fifo';
import { commandText, dropCommand, ls, mailboxHarness, until, type MailboxHarness } from './support';

const FIXTURES = join(__dirname, '../../fixtures/mailbox');
const expected = JSON.parse(readFileSync(join(FIXTURES, 'malformed/expected.json'), 'utf8')) as Record<string, { code: string; line?: number; field?: string }>;

/** 50 MB of Markdown-looking text: refused by size before it is read. */
const FIFTY_MB = 50 * 1024 * 1024;

describe('the malformed corpus in a live mailbox', () => {
  let h: MailboxHarness;
  afterEach(async () => {
    await h?.cleanup();
  });

  it('rejects every malformed file with its reasons while valid files dropped among them run', async () => {
    h = await mailboxHarness([]);
    const root = h.root;
    const pending = join(root, 'commands/pending');
    const p = h.processor();
    // A session for the valid end command (crlf-bom-en.md ends session abc123-def456).
    writeSessionFile(root, newSession('abc123-def456', join(root, 'workspace'), new Date()));

    const malformed = Object.keys(expected).sort();
    expect(malformed.length).toBeGreaterThanOrEqual(40);
    p.start();
    const valid = ['histoformer-zh.md', 'optional-headings-zh.md', 'crlf-bom-en.md'];
    // Interleaved: valid files between the malformed ones.
    malformed.forEach((name, i) => {
      copyFileSync(join(FIXTURES, 'malformed', name), join(pending, `.${name}.part`));
      renameSync(join(pending, `.${name}.part`), join(pending, name));
      if (i % 20 === 10) {
        const v = valid.shift();
        if (v) copyFileSync(join(FIXTURES, 'valid', v), join(pending, v));
      }
    });
    for (const v of valid) copyFileSync(join(FIXTURES, 'valid', v), join(pending, v));

    // Generated here: a 50 MB file, a symbolic link, a FIFO, an unknown session, a duplicate id.
    const big = join(pending, '.huge.md.part');
    const fd = openSync(big, 'w');
    writeSync(fd, commandText({ id: 'task-huge', task: 'huge' }));
    ftruncateSync(fd, FIFTY_MB);
    closeSync(fd);
    renameSync(big, join(pending, 'huge-50mb.md'));
    symlinkSync('/etc/passwd', join(pending, 'link.md'));
    makeFifo(join(pending, 'fifo.md'));
    dropCommand(root, 'unknown-session.md', commandText({ id: 'task-unknown', type: 'continue', session: 'ses-doesnotexist', task: 'x' }));
    dropCommand(root, 'dup-a.md', commandText({ id: 'task-dup', task: 'first of two with one id' }));
    dropCommand(root, 'dup-b.md', commandText({ id: 'task-dup', task: 'second of two with one id' }));
    // An editor's temporary files are never taken.
    dropCommand(root, 'notes.md.swp', 'swap');
    dropCommand(root, 'notes.md~', 'backup');

    const generated = ['huge-50mb.md', 'link.md', 'fifo.md', 'unknown-session.md'];
    await until(() => ls(pending).filter((n) => n.endsWith('.md')).length === 0, 'pending/ emptied of .md files', 120_000);

    const rejected = join(root, 'commands/rejected');
    const processed = join(root, 'commands/processed');
    for (const name of [...malformed, ...generated]) {
      expect(existsSync(join(rejected, name)) || readdirSync(rejected).some((n) => n === name), `${name} in rejected/`).toBe(true);
      const why = readFileSync(join(rejected, `${name}.error.md`), 'utf8');
      expect(why).toContain(`# Rejected command: ${name}`);
      const e = expected[name];
      if (e?.line !== undefined) expect(why, `${name}: names line ${e.line}`).toContain(`line ${e.line}`);
      if (e?.field !== undefined) expect(why, `${name}: names ${e.field}`).toContain(e.field);
    }
    expect(readFileSync(join(rejected, 'huge-50mb.md.error.md'), 'utf8')).toContain(`${FIFTY_MB} bytes`);
    expect(readFileSync(join(rejected, 'link.md.error.md'), 'utf8')).toContain('symbolic link');
    expect(readFileSync(join(rejected, 'fifo.md.error.md'), 'utf8')).toContain('special file');
    expect(readFileSync(join(rejected, 'unknown-session.md.error.md'), 'utf8')).toContain('names no session');

    // Exactly one of the two files with one id ran; the other was rejected as a duplicate.
    const dupRan = ['dup-a.md', 'dup-b.md'].filter((n) => existsSync(join(processed, n)));
    const dupRejected = ['dup-a.md', 'dup-b.md'].filter((n) => existsSync(join(rejected, n)));
    expect(dupRan).toHaveLength(1);
    expect(dupRejected).toHaveLength(1);
    expect(readFileSync(join(rejected, `${dupRejected[0]}.error.md`), 'utf8')).toContain('already used');

    // The valid ones ran and were reported.
    for (const v of ['histoformer-zh.md', 'optional-headings-zh.md', 'crlf-bom-en.md']) expect(existsSync(join(processed, v)), `${v} processed`).toBe(true);
    for (const id of ['histoformer-task', 'task-20260222-001', 'task-crlf', 'task-dup']) expect(existsSync(join(root, `reports/pending/report-${id}.md`)), `report of ${id}`).toBe(true);
    expect(JSON.parse(readFileSync(join(root, 'sessions/abc123-def456.json'), 'utf8')).status).toBe('ended');

    // Nothing lost: every file dropped is in exactly one place.
    const all = [...malformed, ...generated, 'dup-a.md', 'dup-b.md', 'histoformer-zh.md', 'optional-headings-zh.md', 'crlf-bom-en.md'];
    for (const n of all) expect([existsSync(join(rejected, n)), existsSync(join(processed, n))].filter(Boolean), n).toHaveLength(1);
    // The temporary files are still where the editor left them.
    expect(ls(pending)).toEqual(['notes.md.swp', 'notes.md~']);

    // The watcher is still running: a new valid file after all that runs too.
    dropCommand(root, 'after.md', commandText({ id: 'task-after', task: 'after the storm' }));
    await until(() => existsSync(join(processed, 'after.md')), 'after.md processed');
  }, 180_000);
});
