import { REQUIRED_SECTIONS, SECTION_TITLES, STEP_SECTIONS, WELL_FORMED_ID, findSection, parsePlan, stepsIn, type PlanDocument, type SectionKind } from './document';

/** One thing wrong with a plan, at a 1-based line number. */
export interface PlanProblem {
  line: number;
  message: string;
}

export function formatProblem(p: PlanProblem): string {
  return `line ${p.line}: ${p.message}`;
}

const SECTION_NAME: Record<SectionKind, string> = {
  goal: 'Goal',
  acceptance: 'Acceptance',
  next: 'Next',
  backlog: 'Backlog',
  done: 'Done',
  blocked: 'Blocked',
  notes: 'Notes',
};

/** The acceptance command inside backticks on a `TEST_CMD` line: "- [ ] TEST_CMD passes: `npm test`". */
const ACCEPTANCE_COMMAND = /TEST_CMD[^`]*`([^`]+)`/;

/** The acceptance command of the plan, or undefined when the Acceptance section names none. */
export function acceptanceCommand(doc: PlanDocument): string | undefined {
  const s = findSection(doc, 'acceptance');
  if (!s) return undefined;
  for (let i = s.heading + 1; i < s.end; i++) {
    const m = ACCEPTANCE_COMMAND.exec(doc.lines[i]!.text);
    if (m && m[1]!.trim() !== '') return m[1]!.trim();
  }
  return undefined;
}

function hasText(doc: PlanDocument, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (doc.lines[i]!.text.replace(/^[ \t]*[-*+][ \t]*/, '').trim() !== '') return true;
  return false;
}

/**
 * Every problem of the plan, in line order. An empty list means the runner can rely on it:
 * each required section once, exactly one Next step while work remains, well-formed unique
 * STEP_IDs, Done checked, Backlog and Next unchecked, and a note for every Blocked step.
 */
export function validatePlan(input: string | PlanDocument): PlanProblem[] {
  const doc = typeof input === 'string' ? parsePlan(input) : input;
  const problems: PlanProblem[] = [];
  const add = (line: number, message: string) => problems.push({ line: line + 1, message });

  // Sections: each known one at most once, the required ones present.
  const firstAt = new Map<SectionKind, number>();
  for (const s of doc.sections) {
    if (!s.kind) continue;
    const first = firstAt.get(s.kind);
    if (first === undefined) firstAt.set(s.kind, s.heading);
    else add(s.heading, `second "${SECTION_NAME[s.kind]}" section (the first is at line ${first + 1}); merge them into one`);
  }
  for (const kind of REQUIRED_SECTIONS) {
    if (!firstAt.has(kind)) add(0, `missing section "## ${SECTION_TITLES[kind]}"`);
  }

  const goal = findSection(doc, 'goal');
  if (goal && !hasText(doc, goal.heading + 1, goal.end)) add(goal.heading, 'Goal is empty: write the goal in one sentence under it');
  const acceptance = findSection(doc, 'acceptance');
  if (acceptance && acceptanceCommand(doc) === undefined) {
    add(acceptance.heading, 'Acceptance names no command: add "- [ ] TEST_CMD passes: `your test command`"');
  }

  for (const o of doc.odd) {
    add(
      o.line,
      o.reason === 'malformed_checkbox'
        ? `malformed checkbox in ${SECTION_NAME[o.section]}: write a step as "- [ ] (STEP_ID=NNN) text" ("- [x]" when done)`
        : `list item without a checkbox in ${SECTION_NAME[o.section]}: write a step as "- [ ] (STEP_ID=NNN) text"`,
    );
  }

  // Step ids: present, well formed, unique across Next, Backlog, Done and Blocked.
  const idAt = new Map<string, number>();
  for (const step of doc.steps) {
    if (!STEP_SECTIONS.includes(step.section)) continue;
    const where = SECTION_NAME[step.section];
    if (step.rawId === undefined) {
      add(
        step.line,
        /STEP_ID/i.test(doc.lines[step.line]!.text)
          ? 'malformed STEP_ID marker: write it as "(STEP_ID=NNN)", parentheses included'
          : `step in ${where} has no "(STEP_ID=NNN)" marker`,
      );
    }
    else if (step.id === undefined) {
      add(
        step.line,
        WELL_FORMED_ID.test(step.rawId)
          ? `malformed STEP_ID marker: write it exactly as "(STEP_ID=${step.rawId})"`
          : `malformed STEP_ID "${step.rawId}": an id is three or more digits, as in "(STEP_ID=001)"`,
      );
    } else {
      const first = idAt.get(step.id);
      if (first === undefined) idAt.set(step.id, step.line);
      else add(step.line, `duplicate STEP_ID=${step.id} (first used at line ${first + 1})`);
    }
    if (step.text === '') add(step.line, `step in ${where} has no text saying what to do`);
    if (step.section === 'done' && !step.checked) add(step.line, 'unchecked item in Done: mark it "- [x]" or move it back to Backlog');
    if (step.section === 'next' && step.checked) add(step.line, 'the Next step is checked: move it to Done or uncheck it');
    if (step.section === 'backlog' && step.checked) add(step.line, 'checked item in Backlog: move it to Done or uncheck it');
    if (step.section === 'blocked' && step.checked) add(step.line, 'checked item in Blocked: a blocked step is not done; uncheck it');
  }

  // Next holds exactly one step while work remains (none is fine when the backlog is empty,
  // or while a blocked step waits for a human).
  const next = findSection(doc, 'next');
  const nextSteps = stepsIn(doc, 'next');
  const blocked = stepsIn(doc, 'blocked');
  if (next) {
    for (const extra of nextSteps.slice(1)) {
      add(extra.line, `Next holds more than one step (the first is at line ${nextSteps[0]!.line + 1}); keep exactly one and move the others to Backlog`);
    }
    const backlog = stepsIn(doc, 'backlog');
    if (nextSteps.length === 0 && backlog.length > 0 && blocked.length === 0) {
      add(next.heading, `Next is empty while Backlog has ${backlog.length} step(s): move the first one (line ${backlog[0]!.line + 1}) to Next`);
    }
  }

  // A blocked step says why and what a human must decide, in Notes.
  const notes = findSection(doc, 'notes');
  for (const step of blocked) {
    if (!step.id) continue;
    // Not a prefix of a longer id: a note about 0050 says nothing about 005.
    const marker = new RegExp(`STEP_ID=${step.id}(?!\\d)`);
    let noted = false;
    if (notes) for (let i = notes.heading + 1; i < notes.end && !noted; i++) noted = marker.test(doc.lines[i]!.text);
    if (!noted) add(step.line, `blocked step ${step.id} has no note in Notes saying why it is blocked and what a human must decide`);
  }

  return problems.sort((a, b) => a.line - b.line);
}
