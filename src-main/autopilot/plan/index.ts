export { parsePlan, joinLines, splitLines, findSection, stepsIn, SECTION_TITLES, REQUIRED_SECTIONS } from './document';
export type { PlanDocument, Section, SectionKind, StepItem, Line, Eol } from './document';
export { validatePlan, formatProblem, acceptanceCommand } from './validate';
export type { PlanProblem } from './validate';
export { readSteps, completeNext, blockNext, unblock, addNote, newPlan } from './edit';
export type { StepView, PlanView, BlockReason, NewPlan } from './edit';
