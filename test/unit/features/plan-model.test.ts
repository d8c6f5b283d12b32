import { describe, expect, it } from 'vitest';
import { extractPhases, namePhases, NO_PHASES_MESSAGE, phaseName, taggedBlock, unwrapDocument } from '../../../src-main/features/plan-model';

const SPEC = `# add-auth: user login

## Overview
Login.

### Phase 9: not a phase (outside the section)

## Development Phases

Some intro.

### Phase 1: Type definitions
Types.

\`\`\`md
### Phase 7: inside a code fence
\`\`\`

#### Phase 5: a level-4 heading is not a phase

### Phase 2 - Transport layer ###
### Notes (another level-3 heading)
### Phase 3: Client methods

## Risks and Open Questions
### Phase 4: after the section
`;

describe('extractPhases', () => {
  it('takes only the ### Phase N headings of the Development Phases section, in order', () => {
    const r = extractPhases(SPEC);
    expect(r.found).toBe(true);
    expect(r.problem).toBeNull();
    expect(r.phases).toEqual([
      { title: 'Type definitions', name: 'type-definitions' },
      { title: 'Transport layer', name: 'transport-layer' },
      { title: 'Client methods', name: 'client-methods' },
    ]);
  });

  it('a spec without the section has no phases, even when it has Phase headings elsewhere', () => {
    const r = extractPhases('# x\n\n## Plan\n\n### Phase 1: Guessable\n');
    expect(r).toEqual({ phases: [], found: false, problem: NO_PHASES_MESSAGE });
  });

  it('a section without phase headings says so', () => {
    const r = extractPhases('# x\n\n## Development Phases\n\n1. do it\n2. test it\n\n### Step one\n');
    expect(r.found).toBe(false);
    expect(r.problem).toContain('has no "### Phase N: <name>" headings');
  });

  it('handles CRLF line ends, full-width colons and non-Latin titles', () => {
    const r = extractPhases('## Development Phases\r\n### Phase 1：类型定义\r\n### Phase 2: !!!\r\n');
    expect(r.phases).toEqual([
      { title: '类型定义', name: '类型定义' },
      { title: '!!!', name: 'phase-2' },
    ]);
  });

  it('an empty or malformed document is simply "no phases", never a crash', () => {
    for (const text of ['', '\n\n', '```\n## Development Phases\n### Phase 1: x\n', '## Development Phases']) expect(extractPhases(text).found).toBe(false);
  });
});

describe('phase names', () => {
  it('kebab-cases titles and keeps names unique and apart from review/verify', () => {
    expect(phaseName('  Add OAuth2 (PKCE) flow ', 1)).toBe('add-oauth2-pkce-flow');
    expect(namePhases(['Setup', 'setup', 'Review', 'Verify', 'review']).map((p) => p.name)).toEqual(['setup', 'setup-2', 'review-2', 'verify-2', 'review-3']);
  });
});

describe('model answers', () => {
  it('unwraps a document fenced as a whole, leaves inner fences alone', () => {
    expect(unwrapDocument('```markdown\n# Title\n\n```ts\nx\n```\n```')).toBe('# Title\n\n```ts\nx\n```\n');
    expect(unwrapDocument('# Title\n\n```ts\nx\n```\n')).toBe('# Title\n\n```ts\nx\n```\n');
  });

  it('reads the last tagged block, fenced or not, and null when absent', () => {
    expect(taggedBlock('a <config_yml>\nchecks: []\n</config_yml> b', 'config_yml')).toBe('checks: []');
    expect(taggedBlock('<config_yml>x</config_yml><config_yml>\n```yaml\nchecks: [a]\n```\n</config_yml>', 'config_yml')).toBe('checks: [a]');
    expect(taggedBlock('<config_yml> never closed', 'config_yml')).toBeNull();
  });
});
