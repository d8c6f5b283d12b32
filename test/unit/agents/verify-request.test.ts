import { describe, expect, it } from 'vitest';
import { asksForVerification } from '../../../src-main/agents/orchestrator/verify-detect';
import { isVerifyDefiningPath } from '../../../src-main/agents/orchestrator/verify-guard';

/** Default mode verifies only when asked in so many words; saying not to is not asking. */
const ASKS: Array<[string, boolean]> = [
  // English, asking
  ['fix the bug and run the tests', true],
  ['Run the tests after the change', true],
  ['make sure the tests pass', true],
  ['verify the fix', true],
  ['please re-run the test suite', true],
  ["don't touch the API, and run the tests", true],
  ['do not rename it and run the tests', true],
  ["Don't forget to run the tests", true],
  ['make sure no test fails', true],
  ['check that the build passes', true],
  // English, saying not to
  ['do NOT run the tests', false],
  ["don't run tests", false],
  ['dont run the tests', false],
  ['no need to run the tests', false],
  ['no need to test', false],
  ['skip the tests', false],
  ['without running the tests', false],
  ['fix it without running tests', false],
  ['make sure not to run the tests', false],
  ['never run the test suite', false],
  ["tests don't need to pass", false],
  ['No tests, just fix it', false],
  ['just fix the typo', false],
  // Chinese, asking
  ['修复后运行测试', true],
  ['改完跑一下测试', true],
  ['确保测试通过', true],
  ['请验证一下', true],
  ['别忘了跑测试', true],
  ['不要改接口，然后运行测试', true],
  ['记得执行测试', true],
  // Chinese, saying not to
  ['不要运行测试', false],
  ['别跑测试', false],
  ['不用运行测试', false],
  ['无需运行测试', false],
  ['不需要验证', false],
  ['先不要跑测试', false],
  ['不必执行测试', false],
  ['跳过测试', false],
  ['改一下README', false],
];

describe('explicit requests to test (default mode)', () => {
  it.each(ASKS)('%j → %s', (input, expected) => {
    expect(asksForVerification(input)).toBe(expected);
  });

  it('has at least 20 phrasings, both asking and saying not to', () => {
    expect(ASKS.filter(([, v]) => v).length).toBeGreaterThanOrEqual(10);
    expect(ASKS.filter(([, v]) => !v).length).toBeGreaterThanOrEqual(10);
    expect(ASKS.length).toBeGreaterThanOrEqual(20);
  });
});

describe('files that decide what the verify command runs', () => {
  it.each([
    'package.json', 'packages/web/package.json', '.npmrc', '.yarnrc.yml', 'pyproject.toml', 'pytest.ini', 'setup.cfg', 'tox.ini', 'conftest.py', 'tests/unit/conftest.py',
    'Cargo.toml', 'crates/x/build.rs', '.cargo/config.toml', 'go.mod', 'Makefile', 'GNUmakefile', 'justfile', 'pom.xml', 'build.gradle.kts', 'settings.gradle', 'gradlew',
    'gradle/wrapper/gradle-wrapper.properties', '.mvn/jvm.config', 'buildSrc/src/main/kotlin/x.kt', 'jest.config.js', 'vitest.config.ts', '.mocharc.yml',
  ])('%s is one', (p) => expect(isVerifyDefiningPath(p)).toBe(true));

  it.each(['src/app.js', 'README.md', 'tests/test_app.py', 'src/lib.rs', 'main.go', 'package-lock.json', 'docs/Makefile.md'])('%s is not', (p) => expect(isVerifyDefiningPath(p)).toBe(false));
});
