import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { joinLines, parsePlan } from '../../../src-main/autopilot/plan';

const FIXTURES = join(__dirname, '../../fixtures/autopilot');

/** Texts the parser must hand back unchanged, whatever it makes of them. */
const ODD_TEXTS: Record<string, string> = {
  empty: '',
  'only newlines': '\n\n\r\n\r',
  'no trailing newline': '# PLAN\n## Goal\n- 目标',
  'mixed endings': '# PLAN\r\n## Goal\n- x\r## 背景\r\n  缩进\t制表符  \n',
  'bom and trailing spaces': '\uFEFF# PLAN   \n## Notes  \n- a  \n',
  'fenced headings': '# PLAN\n```\n## Next\n- [ ] (STEP_ID=1) x\n```\n~~~\n## Done\n',
  'html and tables': '<!-- keep me -->\n| a | b |\n|---|---|\n| 中 | 文 |\n',
  'surrogate pairs': '## Notes\n- 🚀 emoji 𝔘𝔫𝔦𝔠𝔬𝔡𝔢\n',
  'lone surrogates and controls': '## Goal\n- \u0000\u0007 \uD800 x\n',
};

describe('PLAN.md round trip', () => {
  for (const [name, text] of Object.entries(ODD_TEXTS)) {
    it(`returns "${name}" byte for byte`, () => {
      expect(joinLines(parsePlan(text).lines)).toBe(text);
    });
  }

  it('returns every fixture byte for byte, also converted to CRLF and without its final newline', () => {
    const dir = join(FIXTURES, 'malformed');
    const texts = [readFileSync(join(FIXTURES, 'valid-seed-format.md'), 'utf8'), ...readdirSync(dir).map((f) => readFileSync(join(dir, f), 'utf8'))];
    for (const t of texts) {
      for (const variant of [t, t.replace(/\r?\n/g, '\r\n'), t.replace(/\r?\n$/, '')]) {
        expect(Buffer.from(joinLines(parsePlan(variant).lines))).toEqual(Buffer.from(variant));
      }
    }
  });

  it('keeps each line ending as it was and picks the dominant one for new lines', () => {
    expect(parsePlan('a\r\nb\r\nc\n').eol).toBe('\r\n');
    expect(parsePlan('a\nb\r\nc\n').eol).toBe('\n');
    expect(parsePlan('a').eol).toBe('\n');
    expect(parsePlan('a\r\nb').lines).toEqual([
      { text: 'a', eol: '\r\n' },
      { text: 'b', eol: '' },
    ]);
  });
});
