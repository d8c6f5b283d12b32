import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync, utimesSync } from 'node:fs';
import { tmpdir, hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { adrsWritten, formatAdr, listAdrs, parseAdr, slugify, writeAdr, type AdrInput } from '../../../src-main/mailbox/adr';

let ws: string;
beforeEach(() => {
  ws = mkdtempSync(join(tmpdir(), 'fd-adr-'));
});
afterEach(() => rmSync(ws, { recursive: true, force: true }));

const input: AdrInput = { title: 'Use SQLite for the run index', context: 'Runs were listed by scanning folders.', failedAttempts: 'A JSON index file corrupted on crashes.', decision: 'One SQLite database in WAL mode.', consequences: 'A native module to build.' };
const decisions = () => join(ws, 'docs/decisions');

describe('ADR files', () => {
  it('have the four sections under a numbered title and parse back', () => {
    const text = formatAdr({ ...input, number: 7 });
    expect(text).toBe(
      '# ADR-0007: Use SQLite for the run index\n\n## 上下文\n\nRuns were listed by scanning folders.\n\n## 失败的尝试\n\nA JSON index file corrupted on crashes.\n\n## 最终决策\n\nOne SQLite database in WAL mode.\n\n## 后果\n\nA native module to build.\n',
    );
    expect(parseAdr(text)).toEqual({ ...input, number: 7 });
    expect(parseAdr(formatAdr({ ...input, number: 8, failedAttempts: '' })).failedAttempts).toBe('');
    expect(parseAdr('# ADR-0003: Title\r\n\r\n## Context\r\nc\r\n## Decision\r\nd\r\n')).toMatchObject({ number: 3, title: 'Title', context: 'c', decision: 'd' });
    expect(() => parseAdr('no heading')).toThrow(/ADR-NNNN/);
    expect(() => formatAdr({ ...input, number: 1, title: ' ' })).toThrow(/title/);
    expect(() => formatAdr({ ...input, number: 1, decision: '' })).toThrow(/最终决策/);
  });

  it('slugs keep letters of any script and stay short', () => {
    expect(slugify('Use SQLite for the run index!')).toBe('use-sqlite-for-the-run-index');
    expect(slugify('使用 Flask 框架')).toBe('使用-flask-框架');
    expect(slugify('***')).toBe('decision');
    expect([...slugify('word '.repeat(40))].length).toBeLessThanOrEqual(60);
    expect(slugify('a'.repeat(100))).toBe('a'.repeat(60));
  });

  it('are numbered after the existing ones, filling no gap that is not there', () => {
    mkdirSync(decisions(), { recursive: true });
    writeFileSync(join(decisions(), 'ADR-0001-first.md'), '# ADR-0001: First\n');
    writeFileSync(join(decisions(), 'ADR-0002-second.md'), '# ADR-0002: Second\n');
    writeFileSync(join(decisions(), 'README.md'), 'not an ADR');
    const a = writeAdr(ws, input);
    expect(a).toEqual({ number: 3, slug: 'use-sqlite-for-the-run-index', file: join(decisions(), 'ADR-0003-use-sqlite-for-the-run-index.md') });
    expect(parseAdr(readFileSync(a.file, 'utf8'))).toEqual({ ...input, number: 3 });
    expect(writeAdr(ws, input).number).toBe(4);
    expect(listAdrs(ws).map((x) => [x.number, x.slug])).toEqual([[1, 'first'], [2, 'second'], [3, 'use-sqlite-for-the-run-index'], [4, 'use-sqlite-for-the-run-index']]);
    expect(readdirSync(decisions()).filter((n) => n.startsWith('.'))).toEqual([]);
  });

  it('skip a number locked by a live writer and take one whose writer is gone', () => {
    mkdirSync(decisions(), { recursive: true });
    // Number 1: held by this very process (alive). Number 2: held by a process that cannot exist.
    writeFileSync(join(decisions(), '.ADR-0001.lock'), `${process.pid}\n${hostname()}\n`);
    writeFileSync(join(decisions(), '.ADR-0002.lock'), `2147483646\n${hostname()}\n`);
    expect(writeAdr(ws, input).number).toBe(2);
    // Number 3: from another machine, abandoned long ago.
    writeFileSync(join(decisions(), '.ADR-0003.lock'), `1\nanother-host\n`);
    const old = new Date(Date.now() - 60 * 60 * 1000);
    utimesSync(join(decisions(), '.ADR-0003.lock'), old, old);
    expect(writeAdr(ws, input).number).toBe(3);
    expect(writeAdr(ws, input).number).toBe(4);
    expect(readdirSync(decisions()).filter((n) => n.startsWith('.'))).toEqual(['.ADR-0001.lock']);
  });

  it('get consecutive numbers with no collision from 10 writers in separate processes at once', async () => {
    const WRITERS = 10;
    const EACH = 5;
    const go = join(ws, 'go');
    const fixture = join(__dirname, '../../fixtures/mailbox/adr-writer.ts');
    let ready = 0;
    let allReady!: () => void;
    const everyoneReady = new Promise<void>((r) => (allReady = r));
    const runs = Array.from({ length: WRITERS }, (_, i) =>
      new Promise<number[]>((resolve, reject) => {
        const child = spawn(process.execPath, ['--import', 'tsx', fixture, ws, go, `writer${i}`, String(EACH)], { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        child.stdout.on('data', (d: Buffer) => {
          const had = out.includes('ready\n');
          out += d.toString();
          if (!had && out.includes('ready\n') && ++ready === WRITERS) allReady();
        });
        child.stderr.on('data', (d: Buffer) => (err += d.toString()));
        child.on('error', reject);
        child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out.slice(out.indexOf('ready\n') + 6)) as number[]) : reject(new Error(`writer${i} exited ${code}: ${err}`))));
      }),
    );
    // Start everyone at once, after all have loaded, so they really write at the same time.
    await Promise.race([everyoneReady, Promise.all(runs)]);
    writeFileSync(go, '');
    const got = await Promise.all(runs);
    const all = got.flat().sort((a, b) => a - b);
    expect(all).toEqual(Array.from({ length: WRITERS * EACH }, (_, i) => i + 1));
    const files = listAdrs(ws);
    expect(files.map((f) => f.number)).toEqual(all);
    // Every file is whole and says which writer wrote it; each writer got the numbers it reported.
    for (const [i, numbers] of got.entries()) {
      for (const n of numbers) {
        const adr = parseAdr(readFileSync(files[n - 1]!.file, 'utf8'));
        expect(adr.number).toBe(n);
        expect(adr.title).toMatch(new RegExp(`^writer${i} decision \\d$`));
      }
    }
    expect(readdirSync(decisions()).filter((n) => n.startsWith('.'))).toEqual([]);
  }, 120_000);
});

describe('the ADRs a task wrote', () => {
  it('reads each created or changed ADR in the folder, names an unreadable one by its file, and never follows a link', () => {
    const ws = mkdtempSync(join(tmpdir(), 'fd-adrs-written-'));
    try {
      const dir = join(ws, 'docs', 'decisions');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'ADR-0002-use-sqlite.md'), formatAdr({ number: 2, title: 'Use SQLite', context: 'One writer.', failedAttempts: '', decision: 'SQLite,\n  in WAL mode.', consequences: 'No server.' }));
      writeFileSync(join(dir, 'ADR-0001-broken.md'), 'not an ADR at all');
      const secret = join(ws, 'secret.md');
      writeFileSync(secret, formatAdr({ number: 3, title: 'Secret', context: 'TOP SECRET', failedAttempts: '', decision: 'TOP SECRET', consequences: '' }));
      symlinkSync(secret, join(dir, 'ADR-0003-linked.md'));
      const files = [
        { path: 'docs/decisions/ADR-0002-use-sqlite.md', operation: 'created' },
        { path: 'docs/decisions/ADR-0001-broken.md', operation: 'modified' },
        { path: 'docs/decisions/ADR-0003-linked.md', operation: 'created' },
        { path: 'docs/decisions/ADR-0004-gone.md', operation: 'deleted' },
        { path: 'docs/ADR-0005-elsewhere.md', operation: 'created' },
        { path: 'src/app.ts', operation: 'created' },
      ];
      expect(adrsWritten(ws, files)).toEqual([
        { path: 'docs/decisions/ADR-0001-broken.md', number: 1, title: 'broken', decision: null, context: null, consequences: null },
        { path: 'docs/decisions/ADR-0002-use-sqlite.md', number: 2, title: 'Use SQLite', decision: 'SQLite, in WAL mode.', context: 'One writer.', consequences: 'No server.' },
        { path: 'docs/decisions/ADR-0003-linked.md', number: 3, title: 'linked', decision: null, context: null, consequences: null },
      ]);
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

