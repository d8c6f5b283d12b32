/**
 * A lossless model of a PLAN.md: the original lines (each with its own line ending) and the
 * sections and step items found in them, as line spans. Nothing here rewrites text; edits work
 * on the line array (see edit.ts) so everything the parser does not understand survives byte
 * for byte. Pure: no fs, no electron.
 */

export type Eol = '\r\n' | '\n' | '\r' | '';

export interface Line {
  text: string;
  eol: Eol;
}

/** The sections the runner reads and writes; anything else is kept as unknown text. */
export type SectionKind = 'goal' | 'acceptance' | 'next' | 'backlog' | 'done' | 'blocked' | 'notes';

/** The sections a plan must have; Blocked appears only once a step is blocked. */
export const REQUIRED_SECTIONS: readonly SectionKind[] = ['goal', 'acceptance', 'next', 'backlog', 'done', 'notes'];

/** Sections whose checkbox items are steps carrying a STEP_ID. */
export const STEP_SECTIONS: readonly SectionKind[] = ['next', 'backlog', 'done', 'blocked'];

/** How each section is written when Flightdeck has to create its heading. */
export const SECTION_TITLES: Record<SectionKind, string> = {
  goal: 'Goal',
  acceptance: 'Acceptance',
  next: 'Next (exactly ONE item)',
  backlog: 'Backlog',
  done: 'Done',
  blocked: 'Blocked',
  notes: 'Notes',
};

/**
 * Heading words per section, compared after lower-casing and dropping a trailing parenthesis
 * ("Next (exactly ONE item)" → "next"). The Chinese names are accepted because plans are
 * often written in Chinese, like the proposal the format comes from.
 */
const SECTION_ALIASES: Record<string, SectionKind> = {
  goal: 'goal',
  '目标': 'goal',
  acceptance: 'acceptance',
  '验收': 'acceptance',
  next: 'next',
  '下一步': 'next',
  backlog: 'backlog',
  '待办': 'backlog',
  done: 'done',
  '完成': 'done',
  '已完成': 'done',
  blocked: 'blocked',
  '阻塞': 'blocked',
  notes: 'notes',
  '备注': 'notes',
};

export interface Section {
  /** undefined: a section Flightdeck does not know, kept untouched. */
  kind: SectionKind | undefined;
  title: string;
  /** 0-based index of the `## ` heading line. */
  heading: number;
  /** 0-based index one past the section's last line. */
  end: number;
}

export interface StepItem {
  section: SectionKind;
  /** 0-based index of the item's `- [ ]` line. */
  line: number;
  /** One past the item's last line (continuation lines indented under it belong to it). */
  end: number;
  checked: boolean;
  /** The text inside `(STEP_ID=…)`, undefined when the marker is missing. */
  rawId: string | undefined;
  /** The id when it is well formed (three or more digits), else undefined. */
  id: string | undefined;
  /** The item text without checkbox and marker. */
  text: string;
}

/** A list line that is meant as a checkbox but is not one Flightdeck can read. */
export interface OddItem {
  section: SectionKind;
  line: number;
  reason: 'no_checkbox' | 'malformed_checkbox';
}

export interface PlanDocument {
  lines: Line[];
  /** The line ending Flightdeck uses for lines it adds: the file's own. */
  eol: '\r\n' | '\n' | '\r';
  sections: Section[];
  steps: StepItem[];
  odd: OddItem[];
}

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  const re = /\r\n|\n|\r/g;
  let start = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    lines.push({ text: text.slice(start, m.index), eol: m[0] as Eol });
    start = m.index + m[0].length;
  }
  if (start < text.length) lines.push({ text: text.slice(start), eol: '' });
  return lines;
}

export function joinLines(lines: readonly Line[]): string {
  let s = '';
  for (const l of lines) s += l.text + l.eol;
  return s;
}

function dominantEol(lines: readonly Line[]): '\r\n' | '\n' | '\r' {
  const counts = { '\r\n': 0, '\n': 0, '\r': 0 };
  for (const l of lines) if (l.eol) counts[l.eol]++;
  if (counts['\r\n'] > counts['\n'] && counts['\r\n'] >= counts['\r']) return '\r\n';
  if (counts['\r'] > counts['\n']) return '\r';
  return '\n';
}

/** An ATX heading as CommonMark reads it: up to three spaces of indent, closing #s dropped. */
const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const FENCE = /^[ \t]{0,3}(```|~~~)/;
/** A checkbox Flightdeck reads: `- [ ] text` or `- [x] text` (also `*`/`+`, `X`). */
const CHECKBOX = /^([ \t]*)[-*+][ \t]+\[([ xX])\](?:[ \t]+(.*)|[ \t]*)$/;
/** Anything that looks like a bracketed checkbox attempt: `- []`, `-[ ]`, `- [v]`, `[ ] text`. */
const CHECKBOX_ATTEMPT = /^[ \t]*(?:[-*+][ \t]*)?\[[^\]]{0,3}\]/;
const LIST_ITEM = /^([ \t]*)[-*+][ \t]+\S/;
const STEP_MARKER = /\(\s*STEP_ID\s*=\s*([^)]*?)\s*\)/i;
/** Three digits at least, as the format's examples (000, 001…); more once a plan grows past 999. */
export const WELL_FORMED_ID = /^\d{3,}$/;

export function sectionKind(title: string): SectionKind | undefined {
  const key = title
    .replace(/[(（][^)）]*[)）]\s*$/, '')
    .trim()
    .toLowerCase();
  return SECTION_ALIASES[key];
}

function indentWidth(s: string): number {
  let w = 0;
  for (const ch of s) w += ch === '\t' ? 4 : 1;
  return w;
}

export function parsePlan(text: string): PlanDocument {
  const lines = splitLines(text);
  const sections: Section[] = [];
  let inFence = false;
  for (let i = 0; i < lines.length; i++) {
    // A byte order mark (editors on Windows add one) is not part of the first heading.
    const t = i === 0 ? lines[i]!.text.replace(/^\uFEFF/, '') : lines[i]!.text;
    if (FENCE.test(t)) {
      inFence = !inFence;
      continue;
    }
    if (inFence) continue;
    const h = HEADING.exec(t);
    if (!h) continue;
    const level = h[1]!.length;
    if (level > 2) continue;
    const last = sections[sections.length - 1];
    if (last && last.end === -1) last.end = i;
    // A level-1 heading (the `# PLAN` title) closes a section but does not open one.
    if (level === 2) sections.push({ kind: sectionKind(h[2]!), title: h[2]!, heading: i, end: -1 });
  }
  const lastSection = sections[sections.length - 1];
  if (lastSection && lastSection.end === -1) lastSection.end = lines.length;

  const steps: StepItem[] = [];
  const odd: OddItem[] = [];
  for (const s of sections) {
    if (!s.kind || !STEP_SECTIONS.includes(s.kind)) continue;
    let fence = false;
    let itemIndent = -1;
    for (let i = s.heading + 1; i < s.end; i++) {
      const t = lines[i]!.text;
      if (FENCE.test(t)) fence = !fence;
      const current = steps[steps.length - 1];
      // Lines indented under a step (details, sub-bullets) move with it.
      if (current && current.end === i && current.section === s.kind && t.trim() !== '' && indentWidth(/^[ \t]*/.exec(t)![0]) > itemIndent) {
        current.end = i + 1;
        continue;
      }
      if (fence) continue;
      const c = CHECKBOX.exec(t);
      if (c) {
        itemIndent = indentWidth(c[1]!);
        const rest = c[3] ?? '';
        const m = STEP_MARKER.exec(rest);
        const rawId = m ? m[1]! : undefined;
        steps.push({
          section: s.kind,
          line: i,
          end: i + 1,
          checked: c[2] !== ' ',
          rawId,
          // Well formed means written exactly as the format shows it, so every reader (grep included) finds it.
          id: rawId !== undefined && WELL_FORMED_ID.test(rawId) && m![0] === `(STEP_ID=${rawId})` ? rawId : undefined,
          text: (m ? rest.replace(m[0], '') : rest).trim(),
        });
        continue;
      }
      if (CHECKBOX_ATTEMPT.test(t)) odd.push({ section: s.kind, line: i, reason: 'malformed_checkbox' });
      else if (LIST_ITEM.exec(t)) odd.push({ section: s.kind, line: i, reason: 'no_checkbox' });
    }
  }
  return { lines, eol: dominantEol(lines), sections, steps, odd };
}

export function findSection(doc: PlanDocument, kind: SectionKind): Section | undefined {
  return doc.sections.find((s) => s.kind === kind);
}

export function stepsIn(doc: PlanDocument, kind: SectionKind): StepItem[] {
  return doc.steps.filter((s) => s.section === kind);
}

/** Index one past the section's last non-blank line (the heading at least). */
export function contentEnd(doc: PlanDocument, section: Section): number {
  let i = section.end;
  while (i > section.heading + 1 && doc.lines[i - 1]!.text.trim() === '') i--;
  return i;
}
