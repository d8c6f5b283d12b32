import { copyFileSync, existsSync, lstatSync, mkdirSync, symlinkSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, openSync, ftruncateSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MAILBOX_FOLDERS, admitCommandFile, ensureMailbox, loadCommandFile, mailboxLayout, rejectCommandFile } from '../../../src-main/mailbox/layout';
import type { CommandProblem, MailboxState } from '../../../src-main/mailbox/command-file';
import { isAppError } from '../../../src-preload/contract/errors';

const FIXTURES = join(__dirname, '../../fixtures/mailbox');
const expected = JSON.parse(readFileSync(join(FIXTURES, 'malformed/expected.json'), 'utf8')) as Record<string, { code: string; line?: number; field?: string }>;

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fd-mailbox-'));
});
afterEach(() => {
  rmSync(root, { recursive: true, force: true });
});

const pending = (name = '') => join(root, MAILBOX_FOLDERS.commandsPending, name);
const rejected = (name = '') => join(root, MAILBOX_FOLDERS.commandsRejected, name);
const problem: CommandProblem = { code: 'unknown_command_type', field: 'command_type', value: '"start"', line: 5, message: 'line 5: command_type is "start"; it must be new, continue or end.' };
const noState: MailboxState = { sessionStatus: () => undefined, isKnownCommandId: () => false };

describe('mailbox layout', () => {
  it('creates every folder and names files inside them', () => {
    const l = ensureMailbox(root);
    for (const rel of ['commands/pending', 'commands/processed', 'commands/rejected', 'reports/pending', 'sessions', 'logs', 'workspace', 'context/project', 'context/task']) {
      expect(existsSync(join(root, rel)), rel).toBe(true);
    }
    expect(l.sessionFile('abc-1')).toBe(join(root, 'sessions/abc-1.json'));
    expect(l.report('task-1')).toBe(join(root, 'reports/pending/report-task-1.md'));
    expect(l.detailedReport('task-1')).toBe(join(root, 'reports/pending/detailed-report-task-1.md'));
    expect(l.debugLog('task-1')).toBe(join(root, 'logs/debug-task-1.log'));
    expect(l.runtimeLog).toBe(join(root, 'logs/claude_runtime.log'));
    expect(l.monitorLog).toBe(join(root, 'logs/monitor.log'));
    expect(l.taskContext('task-1')).toBe(join(root, 'context/task/task-1'));
  });

  it('refuses ids that would leave their folder', () => {
    for (const bad of ['../x', 'a/b', '.', '..', '', '.hidden']) {
      expect(() => mailboxLayout(root).sessionFile(bad), bad).toThrow(/cannot name a file/);
      expect(() => mailboxLayout(root).report(bad), bad).toThrow(/cannot name a file/);
    }
  });
});

describe('rejectCommandFile', () => {
  beforeEach(() => ensureMailbox(root));

  it('moves the file beside an explanation naming line, field and value', () => {
    writeFileSync(pending('bad.md'), 'original bytes');
    const r = rejectCommandFile(root, 'bad.md', [problem, { code: 'missing_field', field: 'id', message: 'The front matter has no "id".' }], new Date('2026-02-22T10:00:00Z'));
    expect(r).toEqual({ file: rejected('bad.md'), errorFile: rejected('bad.md.error.md') });
    expect(existsSync(pending('bad.md'))).toBe(false);
    expect(readFileSync(rejected('bad.md'), 'utf8')).toBe('original bytes');
    const err = readFileSync(rejected('bad.md.error.md'), 'utf8');
    expect(err).toContain('# Rejected command: bad.md');
    expect(err).toContain('2026-02-22T10:00:00.000Z');
    expect(err).toContain('1. line 5: command_type is "start"; it must be new, continue or end.\n');
    expect(err).toContain('2. The front matter has no "id".\n');
    // What a message leaves out is added in front of it.
    writeFileSync(pending('terse.md'), 'x');
    const terse = rejectCommandFile(root, 'terse.md', [{ code: 'invalid_field', field: 'gpus', value: '"-1"', line: 6, message: 'Not a GPU count.' }]);
    expect(readFileSync(terse.errorFile, 'utf8')).toContain('1. (line 6, field `gpus`, value "-1") Not a GPU count.\n');
    expect(err).toContain('commands/pending/');
    expect(readdirSync(rejected()).sort()).toEqual(['bad.md', 'bad.md.error.md', 'terse.md', 'terse.md.error.md']);
  });

  it('never replaces an earlier rejected file of the same name', () => {
    for (let i = 1; i <= 3; i++) {
      writeFileSync(pending('task.md'), `version ${i}`);
      rejectCommandFile(root, 'task.md', [problem]);
    }
    // A stray explanation without its file still blocks that name.
    writeFileSync(rejected('task-4.md.error.md'), 'someone else');
    writeFileSync(pending('task.md'), 'version 4');
    const r = rejectCommandFile(root, 'task.md', [problem]);
    expect(r.file).toBe(rejected('task-5.md'));
    expect(readFileSync(rejected('task.md'), 'utf8')).toBe('version 1');
    expect(readFileSync(rejected('task-2.md'), 'utf8')).toBe('version 2');
    expect(readFileSync(rejected('task-3.md'), 'utf8')).toBe('version 3');
    expect(readFileSync(rejected('task-5.md'), 'utf8')).toBe('version 4');
    expect(readFileSync(rejected('task-4.md.error.md'), 'utf8')).toBe('someone else');
    expect(readdirSync(rejected()).sort()).toEqual(['task-2.md', 'task-2.md.error.md', 'task-3.md', 'task-3.md.error.md', 'task-4.md.error.md', 'task-5.md', 'task-5.md.error.md', 'task.md', 'task.md.error.md']);
    expect(readdirSync(pending())).toEqual([]);
  });

  it('refuses names outside pending/ and missing files, touching nothing', () => {
    for (const bad of ['../x.md', 'a/b.md', '..', '']) {
      expect(() => rejectCommandFile(root, bad, [problem]), bad).toThrow(/not a file name/);
    }
    let err: unknown;
    try {
      rejectCommandFile(root, 'ghost.md', [problem]);
    } catch (e) {
      err = e;
    }
    expect(isAppError(err) && err.code).toBe('not_found');
    expect(readdirSync(rejected())).toEqual([]);
  });
});

describe('admitting the malformed corpus', () => {
  beforeEach(() => ensureMailbox(root));

  it('rejects every malformed file with its reason, admits the valid ones among them, and loses none', () => {
    const malformed = Object.keys(expected);
    const valid = readdirSync(join(FIXTURES, 'valid'));
    for (const n of malformed) copyFileSync(join(FIXTURES, 'malformed', n), pending(n));
    for (const n of valid) copyFileSync(join(FIXTURES, 'valid', n), pending(`valid-${n}`));
    // Generated here, never committed: far above the size limit.
    const huge = pending('huge-50mb.md');
    const fd = openSync(huge, 'w');
    ftruncateSync(fd, 50 * 1024 * 1024);
    closeSync(fd);
    const state: MailboxState = { sessionStatus: (id) => (id === 'abc123-def456' ? 'active' : undefined), isKnownCommandId: () => false };

    const admitted: string[] = [];
    for (const name of readdirSync(pending()).sort()) {
      const a = admitCommandFile(root, name, state);
      if (a.ok) admitted.push(name);
      else {
        const want = name === 'huge-50mb.md' ? 'too_large' : expected[name]!.code;
        expect(a.problems.map((p) => p.code), name).toContain(want);
        const err = readFileSync(a.rejection.errorFile, 'utf8');
        for (const p of a.problems) expect(err, name).toContain(p.message);
      }
    }
    expect(admitted.sort()).toEqual(valid.map((n) => `valid-${n}`).sort());
    // Nothing lost: every malformed file is in rejected/ byte for byte, with its explanation.
    expect(readdirSync(pending()).sort()).toEqual(admitted.sort());
    for (const n of malformed) {
      expect(readFileSync(rejected(n)).equals(readFileSync(join(FIXTURES, 'malformed', n))), n).toBe(true);
      expect(existsSync(rejected(`${n}.error.md`)), n).toBe(true);
    }
    expect(readdirSync(rejected()).length).toBe(2 * (malformed.length + 1));
    expect(readFileSync(rejected('huge-50mb.md.error.md'), 'utf8')).toContain(`${50 * 1024 * 1024} bytes`);
  });

  it('rejects a valid file whose session is unknown or whose id was used', () => {
    copyFileSync(join(FIXTURES, 'valid/continue-en.md'), pending('c.md'));
    const a = admitCommandFile(root, 'c.md', noState);
    expect(!a.ok && a.problems.map((p) => p.code)).toEqual(['unknown_session']);
    copyFileSync(join(FIXTURES, 'valid/histoformer-zh.md'), pending('h.md'));
    const b = admitCommandFile(root, 'h.md', { ...noState, isKnownCommandId: (id) => id === 'histoformer-task' });
    expect(!b.ok && b.problems.map((p) => p.code)).toEqual(['duplicate_id']);
    expect(readdirSync(rejected()).sort()).toEqual(['c.md', 'c.md.error.md', 'h.md', 'h.md.error.md']);
  });

  it('rejects a symbolic link, a folder and a pipe without reading through them, and moves them aside', () => {
    writeFileSync(join(root, 'secret.txt'), 'secret');
    symlinkSync(join(root, 'secret.txt'), pending('link.md'));
    mkdirSync(pending('folder.md'));
    const fifo = spawnSync('mkfifo', [pending('pipe.md')]);
    const names = fifo.status === 0 ? ['folder.md', 'link.md', 'pipe.md'] : ['folder.md', 'link.md'];
    for (const name of names) {
      const a = admitCommandFile(root, name, noState);
      expect(!a.ok && a.problems.map((p) => p.code), name).toEqual(['not_a_file']);
    }
    expect(lstatSync(rejected('link.md')).isSymbolicLink()).toBe(true);
    expect(lstatSync(rejected('folder.md')).isDirectory()).toBe(true);
    expect(readFileSync(rejected('link.md.error.md'), 'utf8')).toContain('a symbolic link');
    expect(readFileSync(join(root, 'secret.txt'), 'utf8')).toBe('secret');
    expect(readdirSync(pending())).toEqual([]);
  });

  it('reads a file at the size limit and refuses one byte more without reading it all', () => {
    writeFileSync(pending('a.md'), Buffer.alloc(1024 * 1024, 0x61));
    const a = loadCommandFile(pending('a.md'));
    expect(a.ok && a.bytes.length).toBe(1024 * 1024);
    writeFileSync(pending('b.md'), Buffer.alloc(1024 * 1024 + 1, 0x61));
    const b = loadCommandFile(pending('b.md'));
    expect(!b.ok && b.problem.code).toBe('too_large');
  });
});
