/**
 * Seed 001 §8: the auto-verify whitelist, which of its commands applies to a repository, and
 * when a turn's edits call for verification. Pure apart from looking at files in the root.
 */
import { KNOWN_TEST_COMMANDS, detectTestCommand, isKnownTestCommand } from '../../test-runners/detect';
import { projectFilesOnDisk } from '../../test-runners/disk';

/**
 * The commands auto-verify may run: exactly those the test-runner detector can produce, each
 * in its runner's non-watch form. Nothing else, whatever the config says.
 */
export const VERIFY_WHITELIST = KNOWN_TEST_COMMANDS;

export function isWhitelisted(command: string): boolean {
  return isKnownTestCommand(command);
}

/** The test command of the repository at `root` (src-main/test-runners), or null when it has none. */
export function detectVerifyCommand(root: string): string | null {
  return detectTestCommand(projectFilesOnDisk(root))?.command ?? null;
}

/** Prose formats. Plain .txt is not one: requirements.txt and test fixtures are code to verify. */
const DOC_EXT = /\.(md|markdown|mdx|rst|adoc|asciidoc|org)$/i;
const DOC_NAMES = /^(LICEN[CS]E|CHANGELOG|AUTHORS|NOTICE|CONTRIBUTING|CODEOWNERS|README)(\.[a-z]+)?$/i;

/** Documentation-only paths do not call for running tests. */
export function isDocPath(rel: string): boolean {
  const parts = rel.split('/');
  const base = parts[parts.length - 1] ?? rel;
  return DOC_EXT.test(base) || DOC_NAMES.test(base) || parts.slice(0, -1).some((p) => p === 'docs' || p === 'doc');
}

/** In default mode, auto-verify runs only when the user asked for verification in so many words. */
const EXPLICIT_VERIFY = [
  /\b(run|rerun|re-run|make sure|ensure|check|verify|confirm)\b[^.\n]{0,40}\b(tests?|specs?|test suite|build)\b/i,
  /\b(tests?|specs?)\b[^.\n]{0,20}\b(pass|passing|green)\b/i,
  /\bverify\b/i,
  /\bauto-?verify\b/i,
  /(跑|运行|执行)[^。\n]{0,10}测试/,
  /验证/,
  /测试[^。\n]{0,6}通过/,
];

/**
 * Clause boundaries: a negation only reaches to the end of its clause ("don't touch the API,
 * and run the tests" asks for tests). "and"/"并" start a new clause too, so "do not rename it
 * and run the tests" still asks; the price is that "don't build and test" reads as not asking,
 * the safe side for a request that names no runner verb anyway.
 */
const CLAUSE_BREAK = /[.;!?\n。；！？，,、]+|\s+(?:but|and|then|also|however)\s+|但是?|不过|然后|并且|并|再/i;

/** Words that turn a request to test into a request not to, before it ("don't run the tests"). */
const EN_NEGATION = String.raw`do\s*n[o']?t|does\s*n[o']?t|dont|never|no\s+need\s+(?:to|for)|not|without|skip(?:ping)?|avoid(?:ing)?|need\s*n[o']?t|should\s*n[o']?t|must\s*n[o']?t|can\s*n[o']?t|won't|will\s+not|refrain\s+from|hold\s+off(?:\s+on)?`;
const ZH_NEGATION = /不要|别|不用|无需|不必|不需要|甭|勿|跳过|先不|暂不|不准|不许|禁止|不想|没必要/;
const PREFIX_NEGATION = [new RegExp(String.raw`\b(?:${EN_NEGATION}|no|stop)\b`, 'i'), ZH_NEGATION];
/**
 * …or inside the request ("make sure not to run the tests", "tests don't need to pass"). A bare
 * "no" is not one here: "make sure no test fails" asks for tests.
 */
const INNER_NEGATION = [new RegExp(String.raw`\b(?:${EN_NEGATION})\b`, 'i'), ZH_NEGATION];
/** Negated negations ask after all: "don't forget to run the tests", "别忘了跑测试". */
const DOUBLE_NEGATION = [/\b(?:do\s*n[o']?t|dont|never)\s+(?:forget|neglect|skip|omit)\b/i, /(?:不要|别|勿|不准|不许)(?:忘|漏|跳过|省略)/];

function clauseAsks(clause: string): boolean {
  for (const r of EXPLICIT_VERIFY) {
    const m = r.exec(clause);
    if (!m) continue;
    const prefix = clause.slice(0, m.index);
    if (DOUBLE_NEGATION.some((n) => n.test(prefix + m[0]))) return true;
    const negated = PREFIX_NEGATION.some((n) => n.test(prefix)) || INNER_NEGATION.some((n) => n.test(m[0]));
    if (!negated) return true;
  }
  return false;
}

/**
 * Whether the input asks for verification: some clause asks for tests (or a build check) and
 * that clause does not say not to, in English or Chinese.
 */
export function asksForVerification(input: string): boolean {
  return input.split(CLAUSE_BREAK).some((c) => c !== undefined && clauseAsks(c));
}
