/**
 * Pure planning logic: the development phases of a design spec, the names they get in
 * state.yml, and the documents inside a model's answer. No I/O.
 *
 * Phases come only from the spec's `## Development Phases` section, as its `### Phase N: <name>`
 * headings. A spec without that section (or with no such heading in it) has no phases: the
 * caller reports that to the user instead of guessing them from other headings.
 */
import { QUALITY_PHASES } from './state';

export interface ExtractedPhase {
  /** The heading's text after "Phase N:". */
  title: string;
  /** The state.yml name: the title in kebab-case, unique within the feature. */
  name: string;
}

export interface PhaseExtraction {
  phases: ExtractedPhase[];
  /** True when the section exists and holds at least one phase heading. */
  found: boolean;
  /** Why nothing was found, for the user (null when found). */
  problem: string | null;
}

const SECTION_RE = /^ {0,3}##\s+Development\s+Phases\s*#*\s*$/i;
/** `### Phase 2: Transport layer` (also "Phase 2 -", "Phase 2." and the full-width colon). */
const PHASE_RE = /^ {0,3}###\s+Phase\s+(\d+)\s*[:：.\-–—]\s*(.+?)\s*#*\s*$/i;
const HEADING_RE = /^ {0,3}(#{1,6})\s/;
const FENCE_RE = /^ {0,3}(`{3,}|~{3,})/;

export const NO_PHASES_MESSAGE =
  'the design spec has no development phases: it needs a "## Development Phases" section with "### Phase 1: <name>" headings';

/** The kebab-case name of a phase title; letters of any script are kept, `phase-N` when none. */
export function phaseName(title: string, position: number): string {
  const kebab = title
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
  return kebab === '' ? `phase-${position}` : kebab;
}

/**
 * Names for phase titles in their order, made unique: a repeated name, or one equal to a fixed
 * quality phase (`review`, `verify`), gets a numeric suffix so state.yml's names never collide.
 */
export function namePhases(titles: readonly string[]): ExtractedPhase[] {
  const taken = new Set<string>(QUALITY_PHASES);
  return titles.map((raw, i) => {
    const title = raw.trim();
    const base = phaseName(title, i + 1);
    let name = base;
    for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
    taken.add(name);
    return { title, name };
  });
}

/** The phases of a design spec, from its `## Development Phases` section only. */
export function extractPhases(designMd: string): PhaseExtraction {
  const lines = designMd.split(/\r?\n/);
  let inSection = false;
  let sawSection = false;
  let fence: string | null = null;
  const titles: string[] = [];
  for (const line of lines) {
    const f = FENCE_RE.exec(line);
    if (fence !== null) {
      // A fence closes with the same character, at least as long as it opened.
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    if (SECTION_RE.test(line)) {
      inSection = true;
      sawSection = true;
      continue;
    }
    const h = HEADING_RE.exec(line);
    if (inSection && h && h[1]!.length <= 2) inSection = false;
    if (!inSection) continue;
    const p = PHASE_RE.exec(line);
    if (p) titles.push(p[2]!);
  }
  if (titles.length === 0) {
    const problem = sawSection
      ? 'the design spec\'s "## Development Phases" section has no "### Phase N: <name>" headings'
      : NO_PHASES_MESSAGE;
    return { phases: [], found: false, problem };
  }
  return { phases: namePhases(titles), found: true, problem: null };
}

/**
 * The document in a model's answer: the answer itself, or the inside of a single code fence
 * wrapping all of it (models often fence a document they were asked not to fence).
 */
export function unwrapDocument(answer: string): string {
  const text = answer.trim();
  const m = /^(`{3,}|~{3,})[ \t]*(?:markdown|md)?[ \t]*\n([\s\S]*?)\n\1[ \t]*$/i.exec(text);
  return (m ? m[2]! : text).trim() + '\n';
}

/** The text between `<tag>` and `</tag>` in a model's answer (the last complete pair), or null. */
export function taggedBlock(answer: string, tag: string): string | null {
  const re = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g');
  let last: string | null = null;
  for (let m = re.exec(answer); m; m = re.exec(answer)) last = m[1]!;
  if (last === null) return null;
  // The model may still fence the YAML or Markdown inside the tags.
  const inner = last.trim();
  const fenced = /^(`{3,})[^\n]*\n([\s\S]*?)\n\1\s*$/.exec(inner);
  return (fenced ? fenced[2]! : inner).trim();
}
