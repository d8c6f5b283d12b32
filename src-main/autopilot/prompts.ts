import { join } from 'node:path';
import { AppError } from '../../src-preload/contract';
import { PromptTemplates } from '../features/templates';

/**
 * The autopilot's three prompts (plan update, execute, fix or re-plan), rendered by the shared
 * prompt engine (src-main/features/templates.ts): the built-in ones are
 * `resources/prompts/autopilot/*.j2`; a trusted repository overrides one with a file of the same
 * name under `.flightdeck/prompts/autopilot/` of its main checkout (never of the run's worktree,
 * which the run's agent writes: its edit of a template there is never used), a user for every
 * repository under `<data folder>/prompts/autopilot/`. The first folder that has the file wins.
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

/** The repository's override folder in its main checkout (searched only when the repository is trusted). */
export const REPOSITORY_PROMPTS_DIR = join('.flightdeck', 'prompts');

export interface AutopilotPromptsOptions {
  /** The repository's main checkout (what the user trusted), never the run's worktree. */
  repository: string;
  dataDir?: string;
  builtinDir?: string;
  /**
   * Whether the main checkout's `.flightdeck/prompts` is searched (workspace trust), asked at each
   * prompt so a change since the run started counts; absent: never.
   */
  useRepositoryTemplates?: boolean | (() => boolean);
}

export class AutopilotPrompts {
  constructor(private readonly o: AutopilotPromptsOptions) {}

  render<N extends PromptName>(name: N, vars: PromptVars[N]): string {
    // A new engine per prompt: it keeps only the override folders that exist, and one created
    // while a run goes on must count from the next prompt.
    try {
      const trusted = typeof this.o.useRepositoryTemplates === 'function' ? this.o.useRepositoryTemplates() : (this.o.useRepositoryTemplates ?? false);
      const templates = new PromptTemplates({
        ...(trusted ? { repository: { root: this.o.repository, dirs: [REPOSITORY_PROMPTS_DIR] } } : {}),
        ...(this.o.dataDir ? { userDir: join(this.o.dataDir, 'prompts') } : {}),
        ...(this.o.builtinDir ? { builtinDir: this.o.builtinDir } : {}),
      });
      return templates.render(`autopilot/${name}`, vars as unknown as Record<string, unknown>).trim() + '\n';
    } catch (e) {
      throw new AppError('invalid_input', `The autopilot prompt "${name}" could not be rendered: ${(e as Error).message}`, { template: `autopilot/${name}` });
    }
  }
}
