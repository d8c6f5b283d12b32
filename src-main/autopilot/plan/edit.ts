import { AppError } from '../../../src-preload/contract';
import { SECTION_TITLES, contentEnd, findSection, joinLines, parsePlan, stepsIn, type Line, type PlanDocument, type SectionKind, type StepItem } from './document';
import { formatProblem, validatePlan } from './validate';

/**
 * Edits of a PLAN.md the runner makes itself. Each takes the file's text and returns the new
 * text; only the lines that change are touched, the rest (unknown sections, prose, Chinese
 * text, CRLF, a missing final newline) comes back byte for byte. An edit refuses a plan that
 * does not validate: guessing at a malformed plan would silently overwrite what its author meant.
 */

export interface StepView {
  id: string;
  text: string;
  /** 1-based line of the step's checkbox. */
  line: number;
}

export interface PlanView {
  next: StepView | undefined;
  backlog: StepView[];
  done: StepView[];
  blocked: StepView[];
}

function view(s: StepItem): StepView {
  return { id: s.id ?? s.rawId ?? '', text: s.text, line: s.line + 1 };
}

/** The steps of each section, as the runner reads them. */
export function readSteps(input: string | PlanDocument): PlanView {
  const doc = typeof input === 'string' ? parsePlan(input) : input;
  return {
    next: stepsIn(doc, 'next').map(view)[0],
    backlog: stepsIn(doc, 'backlog').map(view),
    done: stepsIn(doc, 'done').map(view),
    blocked: stepsIn(doc, 'blocked').map(view),
  };
}

function requireValid(text: string): PlanDocument {
  const doc = parsePlan(text);
  const problems = validatePlan(doc);
  if (problems.length > 0) {
    throw new AppError('invalid_input', `PLAN.md is not valid, so it was not changed:\n${problems.map(formatProblem).join('\n')}`, {
      problems,
    });
  }
  return doc;
}

/**
 * Inserts lines at `at`, in the file's line ending. Inserting after a last line that has no
 * newline gives that line one and leaves the new last line without, so "no final newline" stays true.
 */
function insert(doc: PlanDocument, at: number, texts: readonly string[]): void {
  if (texts.length === 0) return;
  const added: Line[] = texts.map((text) => ({ text, eol: doc.eol }));
  if (at === doc.lines.length && at > 0 && doc.lines[at - 1]!.eol === '') {
    doc.lines[at - 1]!.eol = doc.eol;
    added[added.length - 1]!.eol = '';
  }
  doc.lines.splice(at, 0, ...added);
}

/** Removes lines [from, to); when they were the end of a file without final newline, the new last line loses its newline. */
function remove(doc: PlanDocument, from: number, to: number): Line[] {
  const removed = doc.lines.splice(from, to - from);
  if (to > 0 && removed[removed.length - 1]?.eol === '' && doc.lines.length > 0 && from === doc.lines.length) doc.lines[doc.lines.length - 1]!.eol = '';
  return removed;
}

function lineTexts(doc: PlanDocument, s: StepItem): string[] {
  return doc.lines.slice(s.line, s.end).map((l) => l.text);
}

function section(doc: PlanDocument, kind: SectionKind) {
  const s = findSection(doc, kind);
  if (!s) throw new AppError('invalid_input', `PLAN.md has no "${SECTION_TITLES[kind]}" section`);
  return s;
}

function checked(text: string, on: boolean): string {
  return text.replace(/^([ \t]*[-*+][ \t]+)\[[ xX]\]/, `$1[${on ? 'x' : ' '}]`);
}

/** Appends lines at the end of a section's content (before the blank lines that separate it from the next). */
function appendTo(doc: PlanDocument, kind: SectionKind, texts: readonly string[]): PlanDocument {
  insert(doc, contentEnd(doc, section(doc, kind)), texts);
  return reparse(doc);
}

function reparse(doc: PlanDocument): PlanDocument {
  return parsePlan(joinLines(doc.lines));
}

/** Puts a step (its lines as given) as the only item of Next. */
function intoNext(doc: PlanDocument, texts: readonly string[]): PlanDocument {
  // At the end of the section's content: after any prose that explains it (a comment, a hint).
  return appendTo(doc, 'next', texts);
}

function takeFirst(doc: PlanDocument, kind: SectionKind): { doc: PlanDocument; texts: string[] } | undefined {
  const first = stepsIn(doc, kind)[0];
  if (!first) return undefined;
  const texts = lineTexts(doc, first);
  remove(doc, first.line, first.end);
  return { doc: reparse(doc), texts };
}

/** One line of a note: newlines inside it become spaces so the note stays one list item. */
function oneLine(s: string): string {
  return s.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * The Next step passed verification: it moves to the end of Done, checked, and the first
 * Backlog step becomes Next. Returns the new text and the step completed.
 */
export function completeNext(text: string): { text: string; completed: StepView; next: StepView | undefined } {
  let doc = requireValid(text);
  const current = stepsIn(doc, 'next')[0];
  if (!current) throw new AppError('conflict', 'PLAN.md has no Next step to complete');
  const completed = view(current);
  const taken = takeFirst(doc, 'next')!;
  taken.texts[0] = checked(taken.texts[0]!, true);
  doc = appendTo(taken.doc, 'done', taken.texts);
  const promoted = takeFirst(doc, 'backlog');
  if (promoted) doc = intoNext(promoted.doc, promoted.texts);
  return { text: joinLines(doc.lines), completed, next: readSteps(doc).next };
}

export interface BlockReason {
  /** Why the step cannot be closed (the last failure, what is missing). */
  reason: string;
  /** What a human has to decide or provide before the step can go on. */
  decision: string;
}

/**
 * The Next step cannot be closed: it moves to Blocked (the section is added before Notes when
 * the plan has none) and Notes gets why and what a human must decide. Next stays empty: the
 * run waits for the human's answer (see unblock) instead of starting another step.
 */
export function blockNext(text: string, why: BlockReason): { text: string; blocked: StepView } {
  let doc = requireValid(text);
  const current = stepsIn(doc, 'next')[0];
  if (!current) throw new AppError('conflict', 'PLAN.md has no Next step to mark blocked');
  const blocked = view(current);
  const taken = takeFirst(doc, 'next')!;
  doc = taken.doc;
  if (!findSection(doc, 'blocked')) {
    const notes = section(doc, 'notes');
    insert(doc, notes.heading, [`## ${SECTION_TITLES.blocked}`, '']);
    doc = reparse(doc);
  }
  doc = appendTo(doc, 'blocked', taken.texts);
  doc = appendTo(doc, 'notes', [
    `- BLOCKED (STEP_ID=${blocked.id}): ${oneLine(why.reason)} — a human must decide: ${oneLine(why.decision)}`,
  ]);
  return { text: joinLines(doc.lines), blocked };
}

/**
 * A human answered a blocked step: it goes back to Next (which must be empty) and the answer
 * is kept in Notes for the next plan update to read.
 */
export function unblock(text: string, stepId: string, answer: string): { text: string; step: StepView } {
  let doc = requireValid(text);
  const item = stepsIn(doc, 'blocked').find((s) => s.id === stepId);
  if (!item) throw new AppError('not_found', `PLAN.md has no blocked step STEP_ID=${stepId}`);
  const next = stepsIn(doc, 'next')[0];
  if (next) throw new AppError('conflict', `Next already holds STEP_ID=${next.id ?? next.rawId}; finish or move it before resuming STEP_ID=${stepId}`);
  const step = view(item);
  const texts = lineTexts(doc, item);
  remove(doc, item.line, item.end);
  doc = intoNext(reparse(doc), texts);
  doc = appendTo(doc, 'notes', [`- ANSWER (STEP_ID=${stepId}): ${oneLine(answer)}`]);
  return { text: joinLines(doc.lines), step };
}

/** Adds one note at the end of Notes. The plan need not be valid: a note never changes what the runner reads. */
export function addNote(text: string, note: string): string {
  const doc = parsePlan(text);
  return joinLines(appendTo(doc, 'notes', [`- ${oneLine(note)}`]).lines);
}

export interface NewPlan {
  goal: string;
  testCmd: string;
  /** The steps in order: the first becomes Next, the others the Backlog. May be empty. */
  steps?: readonly string[];
  /** Line ending of the new file. */
  eol?: '\n' | '\r\n';
}


/** What the bootstrap (state S0) records as done: it wrote the plan file. */
export const BOOTSTRAP_STEP = 'Initialize the plan file';

/** The plan a run starts from when the repository has none (state S0, bootstrap). */
export function newPlan(p: NewPlan): string {
  const steps = p.steps ?? [];
  // The command sits in one inline code span, which a backtick would end early.
  if (p.testCmd.includes('`')) throw new AppError('invalid_input', 'The acceptance command cannot contain a backtick (`); wrap it in a script instead');
  if (oneLine(p.testCmd) === '') throw new AppError('invalid_input', 'The acceptance command is empty');
  const id = (i: number) => String(i + 1).padStart(3, '0');
  const item = (i: number) => `- [ ] (STEP_ID=${id(i)}) ${oneLine(steps[i]!)}`;
  const lines = [
    '# PLAN',
    '',
    `## ${SECTION_TITLES.goal}`,
    `- ${oneLine(p.goal)}`,
    '',
    `## ${SECTION_TITLES.acceptance}`,
    `- [ ] TEST_CMD passes: \`${oneLine(p.testCmd)}\``,
    '',
    `## ${SECTION_TITLES.next}`,
    ...(steps.length > 0 ? [item(0)] : []),
    '',
    `## ${SECTION_TITLES.backlog}`,
    ...steps.slice(1).map((_, i) => item(i + 1)),
    '',
    `## ${SECTION_TITLES.done}`,
    // The seed's format starts Done with the bootstrap itself, as step 000.
    `- [x] (STEP_ID=000) ${BOOTSTRAP_STEP}`,
    '',
    `## ${SECTION_TITLES.notes}`,
    '',
  ];
  return lines.join(p.eol ?? '\n');
}
