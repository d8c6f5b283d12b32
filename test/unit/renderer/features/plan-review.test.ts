import { describe, expect, it } from 'vitest';
import { locateQuote, revisionDiffs, toPlanComments } from '../../../../src-renderer/src/features/plan-review';
import { PlanComment } from '../../../../src-preload/contract/features';

const DOC = '# Design\n\nUse **bcrypt** for `password` hashes.\n\n| a | b |\n|---|---|\n| cost | 12 |\n\nUse bcrypt again.\n';

describe('anchoring a selected passage', () => {
  it('a passage selected in the editor is found as is, the occurrence nearest the selection winning', () => {
    expect(locateQuote(DOC, 'bcrypt', 0)).toEqual({ offset: DOC.indexOf('bcrypt'), quote: 'bcrypt' });
    expect(locateQuote(DOC, 'bcrypt', DOC.length)).toEqual({ offset: DOC.lastIndexOf('bcrypt'), quote: 'bcrypt' });
  });

  it('a passage selected in the preview (markup gone, whitespace changed) maps to the source text', () => {
    const hit = locateQuote(DOC, 'Use bcrypt for password hashes.');
    expect(hit).toEqual({ offset: DOC.indexOf('Use **bcrypt**'), quote: 'Use **bcrypt** for `password` hashes.' });
    const cell = locateQuote(DOC, 'cost\t12');
    expect(cell?.quote).toBe('cost | 12');
  });

  it('a passage that is not in the document, or an empty one, is not anchored', () => {
    expect(locateQuote(DOC, 'scrypt')).toBeNull();
    expect(locateQuote(DOC, '   ')).toBeNull();
    expect(locateQuote(DOC, '~~~')).toBeNull();
  });

  it('comments go out in the contract shape; blank ones are dropped', () => {
    const out = toPlanComments([
      { id: '1', anchor: { doc: 'design', quote: 'bcrypt', offset: 20 }, text: ' use argon2 ' },
      { id: '2', anchor: null, text: 'Split phase 2.' },
      { id: '3', anchor: null, text: '  ' },
    ]);
    expect(out).toEqual([{ anchor: { doc: 'design', quote: 'bcrypt', offset: 20 }, text: 'use argon2' }, { text: 'Split phase 2.' }]);
    for (const c of out) expect(PlanComment.safeParse(c).success).toBe(true);
  });
});

describe('a revision against the one reviewed before', () => {
  it('shows the changed lines per document and nothing for an unchanged one', () => {
    const [design, verification] = revisionDiffs({ designMd: 'a\nb\n', verificationMd: 'same' }, { designMd: 'a\nc\nd\n', verificationMd: 'same' });
    expect(design!.patch).toContain('--- a/specs/design.md');
    expect(design!.patch).toContain('-b');
    expect(design!.patch).toContain('+c');
    expect([design!.added, design!.removed]).toEqual([2, 1]);
    expect(verification).toEqual({ doc: 'verification', patch: '', added: 0, removed: 0 });
  });
});
