import { join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { PromptTemplates } from '../features/templates';

/**
 * The autopilot's three prompts (plan update, execute, fix or re-plan), rendered by the shared
 * prompt engine (src-main/features/templates.ts): the built-in ones are
 * `resources/prompts/autopilot/*.j2`; a repository overrides one with a file of the same name
 * under `.flightdeck/prompts/autopilot/`, a user for every repository under
 * `<data folder>/prompts/autopilot/`. The first folder that has the file wins.
 */

export type PromptName = 'plan_update' | 'execute' | 'fix_or_replan';

export interface PromptStep {
  id: string;
  text: string;
}

export interface PromptVars {
  plan_update: {
    iteration: number;
    goal: string;
    testCmd: string;
    snapshot: string;
    /** `line N: what is wrong`, when PLAN.md does not validate. */
    problems: string[];
    /** Files the last plan update changed besides PLAN.md (reverted). */
    reverted: string[];
    /** Why the run is planning again (an execute that edited PLAN.md), or empty. */
    replanReason: string;
  };
  execute: { iteration: number; goal: string; testCmd: string; snapshot: string; step: PromptStep; seedFiles: string[] };
  fix_or_replan: { iteration: number; testCmd: string; step: PromptStep | null; exitCode: number | null; output: string; attempt: number; maxAttempts: number };
}

/** The override folders of a run, most specific first (the built-in set comes after them). */
export function overrideDirs(o: { worktree: string; dataDir?: string }): string[] {
  const dirs = [join(o.worktree, '.flightdeck', 'prompts')];
  if (o.dataDir) dirs.push(join(o.dataDir, 'prompts'));
  return dirs;
}

export class AutopilotPrompts {
  constructor(private readonly o: { worktree: string; dataDir?: string; builtinDir?: string }) {}

  render<N extends PromptName>(name: N, vars: PromptVars[N]): string {
    // A new engine per prompt: it keeps only the override folders that exist, and one created
    // while a run goes on must count from the next prompt.
    const templates = new PromptTemplates({ extraDirs: overrideDirs(this.o), ...(this.o.builtinDir ? { builtinDir: this.o.builtinDir } : {}) });
    try {
      return templates.render(`autopilot/${name}`, vars as unknown as Record<string, unknown>).trim() + '\n';
    } catch (e) {
      throw new AppError('invalid_input', `The autopilot prompt "${name}" could not be rendered: ${(e as Error).message}`, { template: `autopilot/${name}` });
    }
  }
}
