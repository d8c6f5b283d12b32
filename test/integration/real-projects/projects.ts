/**
 * The corpus of real projects (issue 21): real code copied at test time from installed
 * packages (ms, semver, picomatch, yallist, lru-cache, debug) with tests written around the
 * real runners installed from the registry (node:test, vitest, jest, mocha), Python projects for
 * pytest and unittest, and a Makefile project. Each gets a git history and a bare origin.
 */
import { cpSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { gitIn, tempDir } from '../../support/temp';

const ROOT = resolve(__dirname, '../../..');
const MODULES = join(ROOT, 'node_modules');

export interface CorpusProject {
  name: string;
  /** The test command a user of this project runs, in its non-watch form. */
  expected: string;
  /** Writes the project into `dir` (an empty folder). */
  build(dir: string): void;
  /** An edit that breaks the project's tests, and the failure as its runner prints it. */
  broken: { path: string; content: string };
  failure: RegExp;
}

export interface BuiltProject {
  dir: string;
  origin: string;
  cleanup(): void;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }
}

/** A copy of an installed package's own files (its code as published), with `scripts` replaced. */
function copyPackage(dir: string, pkg: string, scripts: Record<string, string>): void {
  cpSync(join(MODULES, pkg), dir, { recursive: true, filter: (src) => !src.includes(`${pkg}/node_modules`) });
  const json = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as Record<string, unknown>;
  delete json.devDependencies;
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ ...json, scripts }, null, 2) + '\n');
}

/**
 * What `npm install` would have put in node_modules, linked from Flightdeck's own install (no
 * network here): the runner and its bin, and the package's runtime dependencies.
 */
function linkModules(dir: string, packages: readonly string[], bins: readonly string[]): void {
  mkdirSync(join(dir, 'node_modules', '.bin'), { recursive: true });
  for (const p of packages) symlinkSync(join(MODULES, p), join(dir, 'node_modules', p));
  for (const b of bins) symlinkSync(join(MODULES, '.bin', b), join(dir, 'node_modules', '.bin', b));
}

const NODE_IGNORE = 'node_modules/\ncoverage/\n';
const PY_IGNORE = '__pycache__/\n.pytest_cache/\n';

export const CORPUS: CorpusProject[] = [
  {
    name: 'ms (node:test)',
    expected: 'npm test',
    build(dir) {
      copyPackage(dir, 'ms', { test: 'node --test' });
      write(dir, {
        '.gitignore': NODE_IGNORE,
        'test/ms.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst ms = require('..');\n\ntest('parses durations', () => {\n  assert.strictEqual(ms('2 days'), 172800000);\n  assert.strictEqual(ms('1.5h'), 5400000);\n});\n\ntest('formats milliseconds', () => {\n  assert.strictEqual(ms(60000), '1m');\n  assert.strictEqual(ms(ms('10 hours'), { long: true }), '10 hours');\n});\n",
      });
    },
    broken: { path: 'index.js', content: 'module.exports = function () { return 0; };\n' },
    failure: /fail [1-9]/,
  },
  {
    name: 'semver (vitest, watch by default)',
    expected: 'npm test -- --run',
    build(dir) {
      copyPackage(dir, 'semver', { test: 'vitest' });
      linkModules(dir, ['vitest'], ['vitest']);
      write(dir, {
        '.gitignore': NODE_IGNORE,
        'test/semver.test.mjs': "import { expect, test } from 'vitest';\nimport semver from '../index.js';\n\ntest('compares versions', () => {\n  expect(semver.gt('1.2.3', '1.2.0')).toBe(true);\n  expect(semver.satisfies('1.4.0', '^1.2.0')).toBe(true);\n  expect(semver.inc('1.2.3', 'minor')).toBe('1.3.0');\n});\n",
      });
    },
    broken: { path: 'functions/inc.js', content: "module.exports = () => '0.0.0';\n" },
    failure: /AssertionError|FAIL/,
  },
  {
    name: 'picomatch (vitest run)',
    expected: 'npm test',
    build(dir) {
      copyPackage(dir, 'picomatch', { test: 'vitest run' });
      linkModules(dir, ['vitest'], ['vitest']);
      write(dir, {
        '.gitignore': NODE_IGNORE,
        'test/match.test.mjs': "import { expect, test } from 'vitest';\nimport picomatch from '../index.js';\n\ntest('matches globs', () => {\n  expect(picomatch('*.js')('a.js')).toBe(true);\n  expect(picomatch('src/**/*.ts')('src/a/b.ts')).toBe(true);\n  expect(picomatch('*.js')('a.ts')).toBe(false);\n});\n",
      });
    },
    broken: { path: 'index.js', content: 'module.exports = () => () => true;\n' },
    failure: /AssertionError|FAIL/,
  },
  {
    name: 'yallist (jest)',
    expected: 'npm test -- --watchAll=false',
    build(dir) {
      copyPackage(dir, 'yallist', { test: 'jest' });
      linkModules(dir, ['jest'], ['jest']);
      write(dir, {
        '.gitignore': NODE_IGNORE,
        '__tests__/yallist.test.js': "const Yallist = require('../yallist');\n\ntest('keeps order', () => {\n  const list = Yallist.create([1, 2, 3]);\n  list.push(4);\n  expect(list.toArray()).toEqual([1, 2, 3, 4]);\n  expect(list.length).toBe(4);\n});\n",
      });
    },
    broken: { path: 'yallist.js', content: "module.exports = { create: () => ({ push() {}, toArray: () => [], length: 0 }) };\n" },
    failure: /expect\(received\)/,
  },
  {
    name: 'lru-cache (mocha)',
    expected: 'npm test',
    build(dir) {
      copyPackage(dir, 'lru-cache', { test: 'mocha' });
      linkModules(dir, ['mocha', 'yallist'], ['mocha']);
      write(dir, {
        '.gitignore': NODE_IGNORE,
        'test/lru.test.js': "const assert = require('assert');\nconst LRU = require('..');\n\ndescribe('lru-cache', () => {\n  it('evicts the least recently used', () => {\n    const cache = new LRU({ max: 2 });\n    cache.set('a', 1);\n    cache.set('b', 2);\n    cache.get('a');\n    cache.set('c', 3);\n    assert.strictEqual(cache.has('b'), false);\n    assert.strictEqual(cache.get('a'), 1);\n  });\n});\n",
      });
    },
    broken: { path: 'index.js', content: 'module.exports = class { set() {} get() {} has() { return true; } };\n' },
    failure: /\d+ failing/,
  },
  {
    name: 'debug (node:test on a folder)',
    expected: 'npm test',
    build(dir) {
      copyPackage(dir, 'debug', { test: 'node --test test/' });
      linkModules(dir, ['ms'], []);
      write(dir, {
        '.gitignore': NODE_IGNORE,
        'test/debug.test.js': "const test = require('node:test');\nconst assert = require('node:assert');\nconst debug = require('..');\n\ntest('namespaces are enabled by pattern', () => {\n  debug.enable('app:*');\n  assert.strictEqual(debug('app:db').enabled, true);\n  assert.strictEqual(debug('other').enabled, false);\n});\n",
      });
    },
    broken: { path: 'src/index.js', content: 'module.exports = Object.assign(() => ({ enabled: false }), { enable() {} });\n' },
    failure: /fail [1-9]/,
  },
  {
    name: 'ms (mocha through a nested script)',
    expected: 'npm test',
    build(dir) {
      copyPackage(dir, 'ms', { test: 'npm run unit', unit: 'mocha' });
      linkModules(dir, ['mocha'], ['mocha']);
      write(dir, {
        '.gitignore': NODE_IGNORE,
        '.mocharc.json': '{ "spec": "test/**/*.spec.js" }\n',
        'test/ms.spec.js': "const assert = require('assert');\nconst ms = require('..');\n\ndescribe('ms', () => {\n  it('parses', () => assert.strictEqual(ms('1m'), 60000));\n});\n",
      });
    },
    broken: { path: 'index.js', content: 'module.exports = () => -1;\n' },
    failure: /\d+ failing/,
  },
  {
    name: 'textstats (pytest)',
    expected: 'python3 -m pytest -q',
    build(dir) {
      write(dir, {
        '.gitignore': PY_IGNORE,
        'pyproject.toml': '[project]\nname = "textstats"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        'textstats.py': 'from collections import Counter\n\n\ndef word_count(text):\n    return len(text.split())\n\n\ndef top_words(text, n=1):\n    return [w for w, _ in Counter(text.lower().split()).most_common(n)]\n',
        'tests/test_textstats.py': 'import pytest\n\nfrom textstats import top_words, word_count\n\n\ndef test_word_count():\n    assert word_count("a b  c") == 3\n\n\n@pytest.mark.parametrize("text,top", [("b a b", ["b"]), ("x", ["x"])])\ndef test_top_words(text, top):\n    assert top_words(text) == top\n',
      });
    },
    broken: { path: 'textstats.py', content: 'def word_count(text):\n    return 0\n\n\ndef top_words(text, n=1):\n    return []\n' },
    failure: /\d+ failed/,
  },
  {
    name: 'roman (unittest)',
    expected: 'python3 -m unittest discover -s tests',
    build(dir) {
      write(dir, {
        '.gitignore': PY_IGNORE,
        'roman.py': 'NUMERALS = [(1000, "M"), (900, "CM"), (500, "D"), (400, "CD"), (100, "C"), (90, "XC"), (50, "L"), (40, "XL"), (10, "X"), (9, "IX"), (5, "V"), (4, "IV"), (1, "I")]\n\n\ndef to_roman(n):\n    out = ""\n    for value, numeral in NUMERALS:\n        while n >= value:\n            out += numeral\n            n -= value\n    return out\n',
        'tests/test_roman.py': 'import unittest\n\nfrom roman import to_roman\n\n\nclass RomanTest(unittest.TestCase):\n    def test_small(self):\n        self.assertEqual(to_roman(4), "IV")\n\n    def test_year(self):\n        self.assertEqual(to_roman(2024), "MMXXIV")\n\n\nif __name__ == "__main__":\n    unittest.main()\n',
      });
    },
    broken: { path: 'roman.py', content: 'def to_roman(n):\n    return "I" * n\n' },
    failure: /FAILED \(failures=\d+\)/,
  },
  {
    name: 'wordfreq (make test)',
    expected: 'make test',
    build(dir) {
      write(dir, {
        '.gitignore': 'build/\n',
        Makefile: 'SHELL := /bin/sh\n\n.PHONY: test\n\ntest:\n\tsh tests/run.sh\n',
        'bin/wordfreq.sh': '#!/bin/sh\n# The most frequent word of standard input.\ntr -s " " "\\n" | sort | uniq -c | sort -rn | head -n 1 | awk \'{print $2}\'\n',
        'tests/run.sh': '#!/bin/sh\nset -e\ngot=$(printf "b a b\\n" | sh bin/wordfreq.sh)\nif [ "$got" != "b" ]; then echo "FAIL: expected b, got \'$got\'"; exit 1; fi\necho "ok 1 wordfreq"\n',
      });
    },
    broken: { path: 'bin/wordfreq.sh', content: '#!/bin/sh\necho a\n' },
    failure: /make: \*\*\* \[.*test\] Error 1/,
  },
];

/** The project in a fresh folder with one commit on main, pushed to a bare origin. */
export function buildProject(p: CorpusProject): BuiltProject {
  const dir = tempDir('fd-corpus-');
  const remote = tempDir('fd-corpus-origin-');
  p.build(dir.path);
  gitIn(dir.path, 'init', '-q', '-b', 'main');
  gitIn(dir.path, 'config', 'user.name', 'Corpus Test');
  gitIn(dir.path, 'config', 'user.email', 'corpus@example.com');
  gitIn(dir.path, 'add', '.');
  gitIn(dir.path, 'commit', '-q', '-m', `import ${p.name}`);
  const origin = join(remote.path, 'origin.git');
  gitIn(dir.path, 'init', '-q', '--bare', '-b', 'main', origin);
  gitIn(dir.path, 'remote', 'add', 'origin', origin);
  gitIn(dir.path, 'push', '-q', '-u', 'origin', 'main');
  return {
    dir: dir.path,
    origin,
    cleanup() {
      dir.cleanup();
      remote.cleanup();
    },
  };
}
