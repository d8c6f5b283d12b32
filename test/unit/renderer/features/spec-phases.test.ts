import { describe, expect, it } from 'vitest';
import { addPhase, missingPhasesReason, movePhase, removePhase, renamePhase, specPhaseNames } from '../../../../src-renderer/src/features/spec-phases';

const SPEC = `# Design: add-user-auth

Sessions with cookies.

## Development Phases

The order matters.

### Phase 1: type-definitions
Define the User type.

### Phase 2: transport-layer
HTTP handlers.
\`\`\`md
### Phase 9: not-a-phase (inside a code block)
\`\`\`

### Phase 3: client-methods
Client calls.

## Risks
None known.
`;

describe('the phases of a design spec', () => {
  it('are the ### Phase N: sections under ## Development Phases, in order, code blocks ignored', () => {
    expect(specPhaseNames(SPEC)).toEqual(['type-definitions', 'transport-layer', 'client-methods']);
    expect(missingPhasesReason(SPEC)).toBeNull();
  });

  it('a spec without the section, or with it but no phase, has none and says which (nothing guessed from other headings)', () => {
    const noSection = '# Design\n\n## Steps\n\n### Step 1: do it\n### Phase 1: outside the section\n';
    expect(specPhaseNames(noSection)).toEqual([]);
    expect(missingPhasesReason(noSection)).toMatch(/no "## Development Phases" section/);
    const empty = '# Design\n\n## Development Phases\n\nTo be decided.\n\n## Risks\n';
    expect(specPhaseNames(empty)).toEqual([]);
    expect(missingPhasesReason(empty)).toMatch(/lists no "### Phase N: <name>" sections/);
  });

  it('phases after the section (past the next ## heading) do not count', () => {
    expect(specPhaseNames('## Development Phases\n### Phase 1: a\n## Later\n### Phase 2: b\n')).toEqual(['a']);
  });

  it('moving a phase carries its body and renumbers the headings; the rest of the spec is untouched', () => {
    const moved = movePhase(SPEC, 2, 0);
    expect(specPhaseNames(moved)).toEqual(['client-methods', 'type-definitions', 'transport-layer']);
    expect(moved).toContain('### Phase 1: client-methods\nClient calls.\n\n### Phase 2: type-definitions\nDefine the User type.');
    expect(moved).toContain('### Phase 3: transport-layer\nHTTP handlers.\n```md\n### Phase 9: not-a-phase');
    expect(moved.startsWith('# Design: add-user-auth\n\nSessions with cookies.\n\n## Development Phases\n\nThe order matters.\n\n### Phase 1:')).toBe(true);
    expect(moved.endsWith('## Risks\nNone known.\n')).toBe(true);
    // Moving it back gives the original text.
    expect(movePhase(moved, 0, 2)).toBe(SPEC);
  });

  it('moving the last phase of a spec that ends with the section keeps one blank line between phases', () => {
    const spec = '## Development Phases\n\n### Phase 1: a\nA.\n\n### Phase 2: b\nB.';
    expect(movePhase(spec, 1, 0)).toBe('## Development Phases\n\n### Phase 1: b\nB.\n\n### Phase 2: a\nA.\n');
  });

  it('rename, remove and add rewrite the headings; out-of-range or blank edits change nothing', () => {
    expect(specPhaseNames(renamePhase(SPEC, 1, '  wire   protocol '))).toEqual(['type-definitions', 'wire protocol', 'client-methods']);
    expect(renamePhase(SPEC, 1, '   ')).toBe(SPEC);
    expect(renamePhase(SPEC, 7, 'x')).toBe(SPEC);
    const removed = removePhase(SPEC, 0);
    expect(specPhaseNames(removed)).toEqual(['transport-layer', 'client-methods']);
    expect(removed).not.toContain('Define the User type.');
    expect(removed).toContain('### Phase 1: transport-layer');
    expect(specPhaseNames(addPhase(SPEC, 'docs'))).toEqual(['type-definitions', 'transport-layer', 'client-methods', 'docs']);
    expect(addPhase(SPEC, ' ')).toBe(SPEC);
    expect(movePhase(SPEC, 0, 5)).toBe(SPEC);
  });

  it('adding a phase to a spec without the section creates the section at its end', () => {
    const spec = '# Design\n\nJust prose.\n';
    const out = addPhase(spec, 'first-step');
    expect(out).toBe('# Design\n\nJust prose.\n\n## Development Phases\n\n### Phase 1: first-step\n');
    expect(specPhaseNames(out)).toEqual(['first-step']);
  });

  it('survives malformed input: CRLF-free garbage, headings without names, huge numbers', () => {
    for (const bad of ['', '##', '## Development Phases', '## Development Phases\n### Phase :x', '## Development Phases\n### Phase 99999999999: big\n', '```\n## Development Phases\n### Phase 1: fenced\n']) {
      expect(() => specPhaseNames(bad)).not.toThrow();
    }
    expect(specPhaseNames('```\n## Development Phases\n### Phase 1: fenced\n')).toEqual([]);
    expect(specPhaseNames('## Development Phases\n### Phase 99999999999: big\n')).toEqual(['big']);
  });
});
