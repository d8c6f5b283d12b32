/**
 * The development phases of a design spec, read from and written back to the spec's own text.
 *
 * The spec lists its phases under a `## Development Phases` heading as `### Phase N: <name>`
 * sections; that text is what gets written to the repository and what the run reads, so it is
 * the one source of truth. The phase list on the approval screen is a view of it: renaming,
 * reordering, adding or removing a phase rewrites those sections (body text moves with its
 * heading, numbers are renewed). A spec without the heading, or with the heading but no
 * `### Phase N:` section, has no phases — nothing is guessed from other headings.
 */

/** The heading that holds the phases (level 2, as the plan templates ask for). */
export const PHASES_HEADING = 'Development Phases';

const SECTION_RE = /^##\s+Development Phases\s*#*\s*$/i;
const PHASE_RE = /^###\s+Phase\s+(\d+)\s*[:：]\s*(.*?)\s*#*\s*$/i;
/** A heading that closes the phases section: level 1 or 2 (phase bodies may use ### and deeper). */
const SECTION_END_RE = /^#{1,2}\s/;
const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})/;

export interface SpecPhase {
  /** The number written in the heading (may be out of order in a hand-edited spec). */
  number: number;
  name: string;
  /** The lines under the heading, up to the next phase or the end of the section. */
  body: string[];
}

export interface PhaseLayout {
  /** Lines before the `## Development Phases` heading (or the whole spec when there is none). */
  before: string[];
  /** The heading line itself; null when the spec has no phases section. */
  heading: string | null;
  /** Lines between the heading and the first phase. */
  intro: string[];
  phases: SpecPhase[];
  /** Lines after the section (from the next level-1/2 heading on). */
  after: string[];
}

/** Marks which lines are inside fenced code blocks, where a `###` is code, not a heading. */
function fencedLines(lines: readonly string[]): boolean[] {
  const inside: boolean[] = [];
  let fence: string | null = null;
  for (const line of lines) {
    const m = FENCE_RE.exec(line);
    if (fence === null) {
      inside.push(false);
      if (m) fence = m[1]!;
    } else {
      inside.push(true);
      if (m && m[1]![0] === fence[0] && m[1]!.length >= fence.length && line.trim() === m[1]) fence = null;
    }
  }
  return inside;
}

export function parsePhaseLayout(spec: string): PhaseLayout {
  const lines = spec.split('\n');
  const fenced = fencedLines(lines);
  const start = lines.findIndex((l, i) => !fenced[i] && SECTION_RE.test(l));
  if (start < 0) return { before: lines, heading: null, intro: [], phases: [], after: [] };
  let end = lines.length;
  for (let i = start + 1; i < lines.length; i++) {
    if (!fenced[i] && SECTION_END_RE.test(lines[i]!)) {
      end = i;
      break;
    }
  }
  const intro: string[] = [];
  const phases: SpecPhase[] = [];
  for (let i = start + 1; i < end; i++) {
    const line = lines[i]!;
    const m = fenced[i] ? null : PHASE_RE.exec(line);
    if (m) phases.push({ number: Number(m[1]), name: m[2]!, body: [] });
    else if (phases.length > 0) phases[phases.length - 1]!.body.push(line);
    else intro.push(line);
  }
  return { before: lines.slice(0, start), heading: lines[start]!, intro, phases, after: lines.slice(end) };
}

/** The phase names in spec order; an empty list means "this spec has no phases". */
export function specPhaseNames(spec: string): string[] {
  return parsePhaseLayout(spec).phases.map((p) => p.name);
}

/** Why a spec has no phases, in words for the approval screen; null when it has some. */
export function missingPhasesReason(spec: string): string | null {
  const layout = parsePhaseLayout(spec);
  if (layout.heading === null) return `The design spec has no "## ${PHASES_HEADING}" section.`;
  if (layout.phases.length === 0) return `The "## ${PHASES_HEADING}" section lists no "### Phase N: <name>" sections.`;
  return null;
}

function trimBlankEnd(lines: readonly string[]): string[] {
  let n = lines.length;
  while (n > 0 && lines[n - 1]!.trim() === '') n--;
  return lines.slice(0, n);
}

/** Writes a layout back as text, numbering the phases 1…n in their order. */
export function renderPhaseLayout(layout: PhaseLayout): string {
  if (layout.heading === null) return layout.before.join('\n');
  const out: string[] = [...layout.before, layout.heading];
  const intro = trimBlankEnd(layout.intro);
  out.push(...(intro.length > 0 ? intro : ['']));
  if (intro.length > 0) out.push('');
  layout.phases.forEach((p, i) => {
    out.push(`### Phase ${i + 1}: ${p.name}`);
    out.push(...trimBlankEnd(p.body));
    out.push('');
  });
  if (layout.after.length > 0) out.push(...layout.after);
  else {
    // The section was the end of the document: end with one newline, as it would be written.
    while (out.length > 1 && out[out.length - 1] === '' && out[out.length - 2] === '') out.pop();
  }
  return out.join('\n');
}

/** A phase name as it may appear in a heading: one line, trimmed. */
export function cleanPhaseName(name: string): string {
  return name.replace(/\s+/g, ' ').trim();
}

export function renamePhase(spec: string, index: number, name: string): string {
  const layout = parsePhaseLayout(spec);
  const phase = layout.phases[index];
  const clean = cleanPhaseName(name);
  if (!phase || clean === '') return spec;
  phase.name = clean;
  return renderPhaseLayout(layout);
}

/** Moves phase `from` to position `to`, its body with it. */
export function movePhase(spec: string, from: number, to: number): string {
  const layout = parsePhaseLayout(spec);
  const n = layout.phases.length;
  if (from < 0 || from >= n || to < 0 || to >= n || from === to) return spec;
  const [moved] = layout.phases.splice(from, 1);
  layout.phases.splice(to, 0, moved!);
  return renderPhaseLayout(layout);
}

export function removePhase(spec: string, index: number): string {
  const layout = parsePhaseLayout(spec);
  if (index < 0 || index >= layout.phases.length) return spec;
  layout.phases.splice(index, 1);
  return renderPhaseLayout(layout);
}

/**
 * Appends a phase. A spec without the section gets one at its end: the user asked for the
 * phase explicitly, so this writes what they said rather than guessing.
 */
export function addPhase(spec: string, name: string): string {
  const clean = cleanPhaseName(name);
  if (clean === '') return spec;
  const layout = parsePhaseLayout(spec);
  if (layout.heading === null) {
    const before = trimBlankEnd(layout.before);
    return renderPhaseLayout({ before: before.length > 0 ? [...before, ''] : [], heading: `## ${PHASES_HEADING}`, intro: [], phases: [{ number: 1, name: clean, body: [] }], after: [] });
  }
  layout.phases.push({ number: layout.phases.length + 1, name: clean, body: [] });
  return renderPhaseLayout(layout);
}
