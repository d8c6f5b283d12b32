import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ensureMailbox } from '../../../src-main/mailbox/layout';
import { SessionFileSchema, endSession, formatSessionFile, listSessionFiles, newSession, parseSessionFile, readSessionFile, recordTurn, writeSessionFile } from '../../../src-main/mailbox/session-file';

let root: string;
beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'fd-sessions-'));
  ensureMailbox(root);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const t0 = new Date('2026-02-22T10:00:00Z');
const t1 = new Date('2026-02-22T10:30:00Z');

describe('session files', () => {
  it('have exactly the six fields, in order, and move through turns to ended', () => {
    let s = newSession('abc123-def456', '/app/volumes/workspace', t0);
    s = recordTurn(s, t0);
    s = recordTurn(recordTurn(s, t1), t1);
    const file = writeSessionFile(root, s);
    expect(file).toBe(join(root, 'sessions/abc123-def456.json'));
    const json = JSON.parse(readFileSync(file, 'utf8'));
    expect(Object.keys(json)).toEqual(['session_id', 'created_at', 'last_activity', 'turn_count', 'status', 'workspace']);
    expect(json).toEqual({ session_id: 'abc123-def456', created_at: '2026-02-22T10:00:00.000Z', last_activity: '2026-02-22T10:30:00.000Z', turn_count: 3, status: 'active', workspace: '/app/volumes/workspace' });
    const ended = endSession(readSessionFile(root, 'abc123-def456')!, t1);
    writeSessionFile(root, ended);
    expect(readSessionFile(root, 'abc123-def456')).toMatchObject({ status: 'ended', turn_count: 3 });
    expect(() => recordTurn(ended, t1)).toThrow(/has ended/);
    expect(() => endSession(ended, t1)).toThrow(/already ended/);
    // Atomic writes leave no temporary files behind.
    expect(readdirSync(join(root, 'sessions'))).toEqual(['abc123-def456.json']);
  });

  it('read the format written by other tools', () => {
    const text = '{"session_id":"uuid","created_at":"2026-02-22T10:00:00Z","last_activity":"2026-02-22T10:30:00Z","turn_count":3,"status":"active","workspace":"/app/volumes/workspace"}';
    expect(parseSessionFile(text, 'x')).toEqual(JSON.parse(text));
    expect(formatSessionFile(parseSessionFile(text, 'x'))).toBe(`${JSON.stringify(JSON.parse(text), null, 2)}\n`);
  });

  it.each([
    ['not JSON', '{', /not valid JSON/],
    ['an extra field', { extra: 1 }, /extra/],
    ['a missing field', { workspace: undefined }, /workspace/],
    ['a negative turn count', { turn_count: -1 }, /turn_count/],
    ['a fractional turn count', { turn_count: 1.5 }, /turn_count/],
    ['an unknown status', { status: 'paused' }, /status/],
    ['a bad time', { last_activity: 'later' }, /last_activity: must be an ISO 8601 time/],
    ['an unsafe id', { session_id: '../x' }, /session_id/],
  ])('reject %s with the field named', (_, change, why) => {
    const good = { session_id: 's1', created_at: '2026-02-22T10:00:00Z', last_activity: '2026-02-22T10:00:00Z', turn_count: 0, status: 'active', workspace: '/w' };
    const text = typeof change === 'string' ? change : JSON.stringify({ ...good, ...change });
    expect(() => parseSessionFile(text, 'sessions/s1.json')).toThrow(why);
    expect(() => parseSessionFile(text, 'sessions/s1.json')).toThrow(/sessions\/s1\.json/);
    if (typeof change !== 'string') expect(SessionFileSchema.safeParse({ ...good, ...change }).success).toBe(false);
  });

  it('list every session oldest first and name the unreadable ones without hiding the rest', () => {
    writeSessionFile(root, newSession('b', '/w', t1));
    writeSessionFile(root, newSession('a', '/w', t1));
    writeSessionFile(root, newSession('c', '/w', t0));
    writeFileSync(join(root, 'sessions/broken.json'), '{"session_id": "broken"}');
    writeFileSync(join(root, 'sessions/mismatch.json'), formatSessionFile(newSession('other', '/w', t0)));
    writeFileSync(join(root, 'sessions/.c.json.123.tmp'), 'half');
    const l = listSessionFiles(root);
    expect(l.sessions.map((s) => s.session_id)).toEqual(['c', 'a', 'b']);
    expect(l.invalid.map((i) => i.file)).toEqual(['broken.json', 'mismatch.json']);
    expect(l.invalid[1]!.reason).toMatch(/must match/);
    expect(readSessionFile(root, 'missing')).toBeUndefined();
  });

  it('a failed write leaves the previous file intact', () => {
    const s = newSession('s1', '/w', t0);
    writeSessionFile(root, s);
    expect(() => writeSessionFile(root, { ...s, turn_count: -5 })).toThrow();
    expect(readSessionFile(root, 's1')).toEqual(s);
  });

  it('refuses a FIFO put in place of a session file instead of waiting on it', () => {
    execFileSync('mkfifo', [join(root, 'sessions/fifo.json')]);
    expect(() => readSessionFile(root, 'fifo')).toThrow(/FIFO/);
  });
});
