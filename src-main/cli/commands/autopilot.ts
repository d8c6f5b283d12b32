import { readFileSync } from 'node:fs';
import { AppError } from '../../../src-preload/contract';
import { formatProblem, parsePlan, readSteps, validatePlan } from '../../autopilot/plan';
import { UsageError, type CliCommand } from '../command';

/**
 * The autopilot from the terminal. `validate` checks a PLAN.md the way the runner reads it:
 * exit 0 when valid, 1 with one "line N: what is wrong" per problem on stderr.
 */
export const autopilotCommand: CliCommand = {
  name: 'autopilot',
  summary: 'Check a PLAN.md in the autopilot format (Goal, Acceptance, Next, Backlog, Done, Notes).',
  usage: 'autopilot validate FILE [--json]',
  async run(ctx) {
    const [sub, file, ...rest] = ctx.args;
    switch (sub) {
      case 'validate': {
        if (!file) throw new UsageError('autopilot validate needs the PLAN.md file');
        if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
        let text: string;
        try {
          text = readFileSync(file, 'utf8');
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'ENOENT') throw new AppError('path_not_found', `${file}: no such file`);
          if (code === 'EISDIR') throw new AppError('invalid_input', `${file} is a folder, not a PLAN.md file`);
          if (code === 'EACCES' || code === 'EPERM') throw new AppError('permission_denied', `${file}: permission denied`);
          throw e;
        }
        const doc = parsePlan(text);
        const problems = validatePlan(doc);
        if (ctx.json) {
          ctx.out(JSON.stringify({ file, valid: problems.length === 0, problems, steps: readSteps(doc) }));
        } else if (problems.length === 0) {
          const steps = readSteps(doc);
          ctx.out(
            `${file}: valid — Next: ${steps.next ? `STEP_ID=${steps.next.id}` : 'none'}, Backlog: ${steps.backlog.length}, Done: ${steps.done.length}, Blocked: ${steps.blocked.length}`,
          );
        }
        for (const p of problems) ctx.err(formatProblem(p));
        return problems.length === 0 ? 0 : 1;
      }
      case undefined:
        throw new UsageError('autopilot needs a subcommand');
      default:
        throw new UsageError(`unknown autopilot subcommand "${sub}"`);
    }
  },
};
