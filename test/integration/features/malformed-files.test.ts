import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src-main/features/config';
import { FeatureError } from '../../../src-main/features/errors';
import { readState, writeState } from '../../../src-main/features/state';
import { scanFeatures } from '../../../src-main/features/scanner';

const CORPUS = join(__dirname, '../../fixtures/features/malformed');

interface Expected {
  kind: string;
  /** The 1-based line the message must name; null: any line (the YAML parser decides). */
  line: number | null;
  contains: string;
}
const expected = JSON.parse(readFileSync(join(CORPUS, 'expected.json'), 'utf8')) as Record<string, Expected>;
const files = readdirSync(CORPUS).filter((f) => f.endsWith('.yml')).sort();

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'fd-malformed-'));
});
afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function checkError(e: unknown, file: string, exp: Expected): void {
  expect(e, file).toBeInstanceOf(FeatureError);
  const err = e as FeatureError;
  expect(err.kind, file).toBe(exp.kind);
  expect(err.path, file).toBe(file);
  expect(err.line, file).toBeGreaterThanOrEqual(1);
  if (exp.line !== null) expect(err.line, `${file}: ${err.message}`).toBe(exp.line);
  expect(err.message, file).toContain(exp.contains);
  expect(err.message.startsWith(`${file}:${err.line}: `), err.message).toBe(true);
}

describe('malformed config.yml and state.yml corpus', () => {
  it('has at least 30 files, each with an expectation', () => {
    expect(files.length).toBeGreaterThanOrEqual(30);
    expect(files.filter((f) => f.endsWith('.config.yml')).length).toBeGreaterThanOrEqual(15);
    expect(files.filter((f) => f.endsWith('.state.yml')).length).toBeGreaterThanOrEqual(15);
    expect(Object.keys(expected).sort()).toEqual(files);
  });

  for (const name of files) {
    it(`${name}: clear message with path and line, file untouched`, async () => {
      const exp = expected[name]!;
      const before = readFileSync(join(CORPUS, name));
      if (name.endsWith('.config.yml')) {
        const repo = join(root, name);
        mkdirSync(join(repo, '.flightdeck'), { recursive: true });
        const target = join(repo, '.flightdeck', 'config.yml');
        copyFileSync(join(CORPUS, name), target);
        const e = await loadConfig(repo).then(
          () => undefined,
          (x: unknown) => x,
        );
        checkError(e, target, exp);
        expect(readFileSync(target).equals(before)).toBe(true);
      } else {
        // A malformed state file inside a worktree: reading reports it, the scanner lists it as
        // a problem without crashing, and a later write attempt with an invalid state leaves it.
        const repo = join(root, name);
        const dir = join(repo, '.trees', 'add-auth', '.flightdeck', 'add-auth');
        mkdirSync(dir, { recursive: true });
        const target = join(dir, 'state.yml');
        copyFileSync(join(CORPUS, name), target);
        const e = await readState(target).then(
          () => undefined,
          (x: unknown) => x,
        );
        checkError(e, target, exp);
        const scan = await scanFeatures(repo);
        expect(scan.features).toEqual([]);
        expect(scan.problems).toHaveLength(1);
        checkError(scan.problems[0], target, exp);
        expect(() => writeState(target, { status: 'broken' } as never)).toThrow(FeatureError);
        expect(readFileSync(target).equals(before)).toBe(true);
      }
      expect(readFileSync(join(CORPUS, name)).equals(before)).toBe(true);
    });
  }
});
