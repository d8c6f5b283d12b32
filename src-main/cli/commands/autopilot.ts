import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { AppError, AutopilotExecutor, formatUsd, type AutopilotRun } from '../../../src-preload/contract';
import { formatProblem, parsePlan, readSteps, validatePlan } from '../../autopilot/plan';
import { UsageError, type CliCommand, type CliContext } from '../command';

/**
 * The autopilot from the terminal. `validate` checks a PLAN.md the way the runner reads it:
 * exit 0 when valid, 1 with one "line N: what is wrong" per problem on stderr. `run` works
 * towards a goal in a new worktree until the acceptance command passes with an empty backlog:
 * exit 0 done, 2 stopped by a limit, 3 a step is blocked, 1 an error (or cancelled, or paused).
 */

export const EXIT_DONE = 0;
export const EXIT_ERROR = 1;
export const EXIT_LIMIT = 2;
export const EXIT_BLOCKED = 3;

export function exitCodeOf(run: AutopilotRun): number {
  if (run.status !== 'stopped') return EXIT_ERROR;
  switch (run.state.exitReason) {
    case 'done':
      return EXIT_DONE;
    case 'max_iters':
    case 'plan_invalid':
      return EXIT_LIMIT;
    case 'blocked':
      return EXIT_BLOCKED;
    default:
      return EXIT_ERROR;
  }
}

function int(ctx: CliContext, flag: string, min: number): number | undefined {
  const v = ctx.flags[flag];
  if (v === undefined) return undefined;
  const n = typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : NaN;
  if (!Number.isSafeInteger(n) || n < min) throw new UsageError(`--${flag} needs a whole number of at least ${min}`);
  return n;
}

function str(ctx: CliContext, flag: string): string | undefined {
  const v = ctx.flags[flag];
  return typeof v === 'string' ? v : undefined;
}

/** One line per state change: what `--json` prints, and the line a person reads. */
function stateLine(run: AutopilotRun): Record<string, unknown> {
  const s = run.state;
  return {
    runId: run.id,
    status: run.status,
    phase: s.phase,
    iteration: s.iteration,
    stepId: s.currentStepId,
    exitReason: s.exitReason,
    ...(s.exitDetail ? { exitDetail: s.exitDetail } : {}),
    ...(s.lastVerification && s.phase === 'S5_DECIDE' ? { verification: { passed: s.lastVerification.passed, exitCode: s.lastVerification.exitCode } } : {}),
    ...(run.message ? { message: run.message } : {}),
    costUsd: Math.round(run.costUsd * 1e6) / 1e6,
  };
}

function humanLine(run: AutopilotRun): string {
  const s = run.state;
  if (run.status === 'paused') return `paused in ${s.phase}: ${run.message ?? ''}`;
  if (s.phase === 'STOPPED') return `stopped: ${s.exitReason}${s.exitDetail ? ` — ${s.exitDetail}` : ''}`;
  const v = s.phase === 'S5_DECIDE' && s.lastVerification ? ` (acceptance ${s.lastVerification.passed ? 'passed' : `failed, exit ${s.lastVerification.exitCode ?? 'none'}`})` : '';
  return `iteration ${s.iteration} · ${s.phase}${s.currentStepId && s.phase !== 'S1_SNAPSHOT' ? ` · STEP_ID=${s.currentStepId}` : ''}${v}`;
}

/** Drives a run in this process until it stops or pauses, printing each state change. Ctrl-C leaves it paused. */
async function follow(ctx: CliContext, start: () => Promise<AutopilotRun> | AutopilotRun): Promise<number> {
  const app = await ctx.openApp();
  let runId: string | null = null;
  let last = '';
  const print = (run: AutopilotRun) => {
    if (runId !== null && run.id !== runId) return;
    const key = `${run.status}|${run.state.phase}|${run.state.iteration}`;
    if (key === last) return;
    last = key;
    ctx.out(ctx.json ? JSON.stringify(stateLine(run)) : humanLine(run));
  };
  const off = app.autopilot.onChange((run) => print(run));
  const interrupt = (why: string) => () => {
    if (runId) app.autopilot.interrupt(runId, why);
  };
  const onInt = interrupt('interrupted from the terminal (SIGINT)');
  const onTerm = interrupt('stopped by SIGTERM');
  const onAbort = interrupt(`the terminal went away (${String(ctx.signal.reason ?? 'closed')})`);
  process.on('SIGINT', onInt);
  process.on('SIGTERM', onTerm);
  ctx.signal.addEventListener('abort', onAbort, { once: true });
  try {
    const run = await start();
    runId = run.id;
    if (!ctx.json) ctx.err(`run ${run.id}: worktree ${run.worktree} (branch ${run.branch})`);
    print(run);
    const end = await app.autopilot.wait(run.id);
    print(end);
    if (!ctx.json) {
      if (end.status === 'paused') ctx.err(`run ${end.id} is paused; continue with: autopilot resume ${end.id}`);
      else if (end.state.exitReason === 'blocked') ctx.err(`run ${end.id} is blocked (STEP_ID=${end.state.blockedStepId ?? '?'}): see Notes in ${end.worktree}/PLAN.md; answer with: autopilot answer ${end.id} STEP_ID TEXT`);
    }
    return exitCodeOf(end);
  } finally {
    off();
    process.off('SIGINT', onInt);
    process.off('SIGTERM', onTerm);
    ctx.signal.removeEventListener('abort', onAbort);
  }
}

function validate(ctx: CliContext, file: string | undefined, rest: string[]): number {
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

const RUN_FLAGS = ['repo', 'goal', 'test-cmd', 'seed-file', 'max-iters', 'max-fix-attempts', 'executor', 'profile', 'commit', 'compact-every', 'test-timeout', 'acceptance-unsandboxed'];

export const autopilotCommand: CliCommand = {
  name: 'autopilot',
  summary: 'Work towards a goal in a worktree until the acceptance command passes (plan → execute → verify → decide); check a PLAN.md.',
  usage:
    'autopilot validate FILE [--json] | autopilot run --repo DIR --goal TEXT --test-cmd CMD [--seed-file F…] [--max-iters N] [--max-fix-attempts N] [--executor builtin|claude-code] [--profile NAME] [--commit] [--compact-every N] [--test-timeout SECONDS] [--acceptance-unsandboxed] [--json] | autopilot resume|cancel RUN_ID | autopilot answer RUN_ID STEP_ID TEXT | autopilot list [--json]',
  flags: {
    repo: true,
    goal: true,
    'test-cmd': true,
    'seed-file': 'multiple',
    'max-iters': true,
    'max-fix-attempts': true,
    executor: true,
    profile: true,
    commit: false,
    'compact-every': true,
    'test-timeout': true,
    'acceptance-unsandboxed': false,
  },
  async run(ctx) {
    const [sub, ...args] = ctx.args;
    if (sub !== 'run') {
      const stray = RUN_FLAGS.find((f) => ctx.flags[f] !== undefined);
      if (stray) throw new UsageError(`--${stray} applies to autopilot run only`);
    }
    switch (sub) {
      case 'validate':
        return validate(ctx, args[0], args.slice(1));
      case 'run': {
        if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`);
        const goal = str(ctx, 'goal');
        const testCmd = str(ctx, 'test-cmd');
        if (!goal) throw new UsageError('autopilot run needs --goal TEXT');
        if (!testCmd) throw new UsageError('autopilot run needs --test-cmd CMD (the acceptance command)');
        const executor = str(ctx, 'executor') ?? 'builtin';
        if (!AutopilotExecutor.safeParse(executor).success) throw new UsageError('--executor is builtin or claude-code');
        const seed = ctx.flags['seed-file'];
        const input = {
          repo: resolve(str(ctx, 'repo') ?? process.cwd()),
          goal,
          testCmd,
          seedFiles: Array.isArray(seed) ? seed : [],
          executor: executor as AutopilotExecutor,
          profile: str(ctx, 'profile') ?? null,
          commit: ctx.flags.commit === true,
          // The acceptance command runs in the agent's sandbox unless this run is explicitly given the host.
          acceptanceUnsandboxed: ctx.flags['acceptance-unsandboxed'] === true,
          ...(int(ctx, 'max-iters', 1) !== undefined ? { maxIters: int(ctx, 'max-iters', 1) } : {}),
          ...(int(ctx, 'max-fix-attempts', 0) !== undefined ? { maxFixAttempts: int(ctx, 'max-fix-attempts', 0) } : {}),
          ...(int(ctx, 'compact-every', 0) !== undefined ? { compactEvery: int(ctx, 'compact-every', 0) } : {}),
          ...(int(ctx, 'test-timeout', 1) !== undefined ? { acceptanceTimeoutS: int(ctx, 'test-timeout', 1) } : {}),
        };
        if (input.acceptanceUnsandboxed && !ctx.json) ctx.err(`warning: the acceptance command runs UNSANDBOXED on this machine, with your permissions — it runs whatever the agent wrote (${testCmd}).`);
        return follow(ctx, async () => (await ctx.openApp()).autopilot.startRun(input));
      }
      case 'resume': {
        const [id, ...rest] = args;
        if (!id) throw new UsageError('autopilot resume needs the RUN_ID');
        if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
        return follow(ctx, async () => (await ctx.openApp()).autopilot.resume(id));
      }
      case 'answer': {
        const [id, stepId, ...words] = args;
        if (!id || !stepId || words.length === 0) throw new UsageError('autopilot answer needs RUN_ID STEP_ID and the answer text');
        return follow(ctx, async () => (await ctx.openApp()).autopilot.answer(id, stepId, words.join(' ')));
      }
      case 'cancel': {
        const [id, ...rest] = args;
        if (!id) throw new UsageError('autopilot cancel needs the RUN_ID');
        if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
        const app = await ctx.openApp();
        const run = app.autopilot.cancel(id);
        const elsewhere = run.status !== 'stopped';
        if (ctx.json) ctx.out(JSON.stringify(stateLine(run)));
        else ctx.out(elsewhere ? `Cancel requested: the process driving ${id} stops it at once.` : `Cancelled ${id} (${run.state.exitReason}).`);
        return 0;
      }
      case 'list': {
        if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`);
        const app = await ctx.openApp();
        const runs = app.autopilot.list();
        if (ctx.json) {
          ctx.out(JSON.stringify(runs));
        } else if (runs.length === 0) {
          ctx.out('No autopilot runs.');
        } else {
          for (const r of runs) {
            const where = r.status === 'stopped' ? (r.state.exitReason ?? 'stopped') : `${r.status} in ${r.state.phase}`;
            ctx.out(`${r.id}  ${where}  iteration ${r.state.iteration}/${r.state.limits.maxIters}  ${formatUsd(r.costUsd)}  ${r.goal}  (${r.worktree})`);
          }
        }
        return 0;
      }
      case undefined:
        throw new UsageError('autopilot needs a subcommand');
      default:
        throw new UsageError(`unknown autopilot subcommand "${sub}"`);
    }
  },
};
