/**
 * `feature run`, `feature cancel` and `feature merge`: the subcommands of `feature` that run a
 * planned feature to its end (or resume it), stop one, and merge a locally completed one, through
 * the same FeatureRunService as the app.
 */
import { createInterface } from 'node:readline/promises';
import { formatUsd, RunExecutor, RunPlacement, type Delivery, type FeatureRunEvent, type RunEventData } from '../../../src-preload/contract';
import type { AutoAnswer } from '../../approvals/gate';
import type { RunResult } from '../../features/run/feature-runner';
import { UsageError, type CliContext } from '../command';
import { parseGpus } from '../../containers/core/container-spec';
import { promptApproval } from './chat-support';
import { mergeFollowedPr } from './feature-pr';
import { featureProject, typedFeatureErrors } from './feature-support';
import { warnUntrusted } from './trust-text';
import { featureRunCandidates } from './feature-candidates';

/** Flags of run, cancel and merge (added to the `feature` command's own; `executor`, `approve` and `yes` are shared). */
export const RUN_FLAGS = { squash: false, placement: true, engine: true, gpus: true, image: true } as const;
export const RUN_USAGE = 'feature run SLUG [--repo DIR] [--executor builtin|claude-code] [--mode yolo|auto-edit|default] [--approve ask|allow|deny] [--placement host|container [--engine NAME] [--gpus none|all|N|IDS] [--image REF]] [--json] | feature cancel SLUG [--repo DIR] | feature merge SLUG [--repo DIR] [--squash] [--yes]';

/** Exit codes of `feature run`: completed, failed, waiting for a human (an approval --approve does not settle), cancelled (Ctrl-C). */
export const EXIT_COMPLETED = 0;
export const EXIT_FAILED = 1;
export const EXIT_WAITING = 3;
const EXIT_CANCELLED = 130;

const APPROVE = ['ask', 'allow', 'deny'] as const;
/** Modes a run can use (plan mode writes nothing). */
const RUN_MODES = ['yolo', 'auto-edit', 'default'] as const;
type ApproveMode = (typeof APPROVE)[number];



function duration(secs: number): string {
  const s = Math.round(secs);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${Math.floor((s % 3600) / 60)}m`;
}

/** One line per run event, for a person at a terminal. */
export function describeEvent(d: RunEventData): string | null {
  switch (d.type) {
    case 'Queued':
      return `queued (position ${d.position}): the parallel limit is reached`;
    case 'RunStarting':
      return `${d.resumed ? 'resuming' : 'starting'} with ${d.executor}: ${d.phases.map((p) => (p.status === 'completed' ? `✓${p.name}` : p.name)).join(' → ')}`;
    case 'PhaseStarting':
      return `▶ ${d.name}${d.resumed ? ' (resumed)' : ''}`;
    case 'PhaseCompleted':
      return `${d.success ? '✓' : '✗'} ${d.name}  ${duration(d.stats.durationSecs)}  ${d.stats.turns} turns  ${formatUsd(d.stats.costUsd)}${d.commit ? `  ${d.commit.slice(0, 8)}` : ''}${d.message ? `\n  ${d.message}` : ''}`;
    case 'ReviewRound':
      return `  review round ${d.round}: ${!d.parsed ? 'no readable answer' : d.issues.length === 0 ? 'clean' : d.issues.map((i) => `${i.severity} ${i.file}${i.line ? `:${i.line}` : ''}`).join(', ')}`;
    case 'VerifyAttempt':
      return `  verify attempt ${d.attempt}: ${d.result}${d.checks.map((c) => `  [${c.passed ? 'ok' : 'FAIL'}] ${c.command}`).join('')}${d.agentResult ? `  (agent: ${d.agentResult})` : ''}`;
    case 'CreatingPr':
      return 'delivering…';
    case 'PrCreated':
      return null; // The summary names it.
    case 'RunFinished':
      return null;
    case 'BudgetNotice':
    case 'Notice':
      return `! ${d.message}`;
  }
}

export function deliveryLine(d: Delivery | null): string {
  if (!d) return '';
  if (d.kind === 'pr') return `PR: ${d.url}`;
  if (d.kind === 'compare') return d.url ? `Pushed to ${d.remote}; open the PR at: ${d.url}` : `Pushed to ${d.remote} (no web page known for this remote).`;
  return 'Completed locally (no remote): merge it with: feature merge SLUG';
}

function answerer(mode: ApproveMode, tty: boolean, wait: (message: string) => void): AutoAnswer {
  if (mode === 'allow') return async () => ({ decision: 'approve_once' });
  if (mode === 'deny') return async () => ({ decision: 'deny', reason: 'Denied by --approve deny (headless run).' });
  if (!tty) {
    // Nobody to ask: the run stops as waiting for a human (exit 3) and resumes when run again.
    return async (a) => {
      wait(`An approval is waiting (${a.tool}: ${a.summary ?? ''}); answer it in the app, or run again with --approve allow.`);
      return { decision: 'deny', reason: 'Waiting for a human: no terminal to ask on.' };
    };
  }
  return (a) => promptApproval(a, (s) => process.stderr.write(s));
}

/** --placement and its container flags (over agent.placement of state.yml, then of config.yml); undefined: the files decide. */
function placementFlags(ctx: CliContext): RunPlacement | undefined {
  const kind = ctx.flags.placement;
  if (kind !== undefined && kind !== 'host' && kind !== 'container') throw new UsageError('--placement takes host|container');
  const containerFlags = (['engine', 'gpus', 'image'] as const).filter((f) => ctx.flags[f] !== undefined);
  if (containerFlags.length > 0 && kind !== 'container') throw new UsageError(`--${containerFlags[0]} goes with --placement container`);
  if (kind === undefined) return undefined;
  if (kind === 'host') return { kind: 'host' };
  const candidate = {
    kind,
    ...(typeof ctx.flags.engine === 'string' ? { engine: ctx.flags.engine } : {}),
    ...(typeof ctx.flags.gpus === 'string' ? { gpus: parseGpus(ctx.flags.gpus) } : {}),
    ...(typeof ctx.flags.image === 'string' ? { image: ctx.flags.image } : {}),
  };
  const parsed = RunPlacement.safeParse(candidate);
  if (!parsed.success) throw new UsageError(`invalid placement: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'placement'}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

export async function featureRun(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature run needs the SLUG of a planned feature');
  // `--approve` is a switch of `feature plan` too, so its value here arrives as the next word.
  let approve: ApproveMode = 'ask';
  if (ctx.flags.approve === true) {
    const v = rest.shift();
    if (!v || !APPROVE.includes(v as ApproveMode)) throw new UsageError(`--approve takes ${APPROVE.join('|')}`);
    approve = v as ApproveMode;
  }
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const executorFlag = typeof ctx.flags.executor === 'string' ? RunExecutor.safeParse(ctx.flags.executor) : null;
  if (executorFlag && !executorFlag.success) throw new UsageError(`--executor takes ${RunExecutor.options.join('|')}`);
  const placement = placementFlags(ctx);
  // A stricter mode for this run only (the plan's choice, yolo by default, stays in state.yml).
  const modeFlag = typeof ctx.flags.mode === 'string' ? ctx.flags.mode : null;
  if (modeFlag !== null && !RUN_MODES.includes(modeFlag as (typeof RUN_MODES)[number])) throw new UsageError(`--mode takes ${RUN_MODES.join('|')} (plan mode writes nothing, so a run in it could never finish a phase)`);

  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  // An untrusted repository's agent.placement is not used: the run would work elsewhere than its
  // config says, so that is refused until the user trusts it or says where (--placement).
  const skipped = await warnUntrusted(ctx, app, root, placement ? ['checks', 'prompts'] : ['checks', 'prompts', 'agent.placement']);
  if (skipped.includes('agent.placement')) {
    ctx.err(`error: the run was not started: ${root}'s config places feature runs (agent.placement), which is not used while the repository is untrusted. Trust it with "flightdeck projects trust ${root}", or choose where this run works with --placement host|container.`);
    return 1;
  }
  const tty = process.stdin.isTTY === true && process.stderr.isTTY === true;
  if (ctx.flags.candidates !== undefined) {
    if (modeFlag !== null) throw new UsageError('--mode does not apply to candidates (they run as the plan was approved)');
    // Nobody to answer an approval: the candidates stop (each resumes when started again).
    const answerCandidates = answerer(approve, tty, (message) => {
      ctx.err(message);
      app.featureCandidates.cancel(root, slug);
    });
    return featureRunCandidates(ctx, slug, { ...(placement ? { placement } : {}), ...(executorFlag?.success ? { executor: executorFlag.data } : {}), onSession: (a) => (id) => a.agents.gate.setAutoAnswer(id, answerCandidates) });
  }
  if (ctx.flags['candidate-agent'] !== undefined || ctx.flags['budget-each'] !== undefined) throw new UsageError('--candidate-agent and --budget-each go with --candidates N');
  let runId = '';
  let waiting: string | null = null;
  const answer = answerer(approve, tty, (message) => {
    waiting ??= message;
    app.featureRuns.abort(runId, { kind: 'waiting', message });
  });
  const sessions: string[] = [];
  const events: FeatureRunEvent[] = [];
  const off = app.hub.subscribe((e) => {
    if (e.topic !== 'featureRuns.event') return;
    const ev = e.payload as FeatureRunEvent;
    if (ev.runId !== runId && !(runId === '' && ev.slug === slug && ev.projectPath === root)) return;
    events.push(ev);
    if (ctx.json) ctx.out(JSON.stringify(ev));
    else {
      const line = describeEvent(ev.data);
      if (line) ctx.out(line);
    }
  });
  const onInt = () => app.featureRuns.cancel(root, slug);
  process.on('SIGINT', onInt);
  ctx.signal.addEventListener('abort', onInt, { once: true });
  const started = Date.now();
  try {
    const info = await typedFeatureErrors(() => app.featureRuns.enqueue({
        projectPath: root,
        slug,
        ...(executorFlag?.success ? { executor: executorFlag.data } : {}),
        ...(modeFlag !== null ? { mode: modeFlag as (typeof RUN_MODES)[number] } : {}),
        ...(placement ? { placement } : {}),
        // The run's session gets the --approve answer before it can ask anything.
        onSession: (id) => {
          sessions.push(id);
          app.agents.gate.setAutoAnswer(id, answer);
        },
      }));
    runId = info.id;
    const result: RunResult = await info.done;
    // Every event of the run is published before the summary is printed.
    await app.events.whenFlushed();
    if (!ctx.json) printSummary(ctx, slug, result, (Date.now() - started) / 1000, waiting);
    if (result.outcome === 'completed') return EXIT_COMPLETED;
    if (result.outcome === 'waiting') return EXIT_WAITING;
    if (result.outcome === 'cancelled') return EXIT_CANCELLED;
    if (!ctx.json && result.message) ctx.err(`flightdeck: ${result.message}`);
    return EXIT_FAILED;
  } finally {
    process.off('SIGINT', onInt);
    ctx.signal.removeEventListener('abort', onInt);
    off();
    for (const id of sessions) app.agents.gate.setAutoAnswer(id, null);
  }
}

function printSummary(ctx: CliContext, slug: string, r: RunResult, elapsed: number, waiting: string | null): void {
  const status = r.outcome === 'completed' ? 'Completed' : r.outcome === 'waiting' ? 'Waiting for a human' : r.outcome === 'cancelled' ? 'Cancelled' : 'Failed';
  ctx.out('');
  ctx.out(`Feature run: ${slug} [${status}]`);
  ctx.out(`Total: ${duration(elapsed)}, ${r.totals.turns} turns, ${formatUsd(r.totals.costUsd)} USD (all phases: ${duration(r.totals.durationSecs)} of agent time)`);
  if (r.delivery) ctx.out(deliveryLine(r.delivery).replace('SLUG', slug));
  if (r.outcome === 'waiting' && waiting) ctx.out(waiting);
  else if (r.outcome !== 'completed' && r.message) ctx.out(r.message);
}

export async function featureCancel(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature cancel needs the SLUG of a running feature');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  const r = app.featureRuns.requestCancel(root, slug);
  if (r === 'none') {
    ctx.err(`flightdeck: ${slug} is not running.`);
    return 1;
  }
  ctx.out(r === 'cancelled' ? `Cancelled the run of ${slug}; run it again to resume.` : `Asked the Flightdeck process running ${slug} to cancel it; run it again to resume.`);
  return 0;
}

export async function featureMerge(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature merge needs the SLUG of a completed feature');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const squash = ctx.flags.squash === true;
  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  // A feature whose pull request Flightdeck follows is merged there, with gh.
  const viaPr = await mergeFollowedPr(ctx, app, root, slug);
  if (viaPr !== null) return viaPr;
  const plan = await typedFeatureErrors(() => app.featureRuns.merge({ projectPath: root, slug, squash, confirm: false }));
  let confirmed = ctx.flags.yes === true;
  if (!confirmed) {
    if (!process.stdin.isTTY) {
      ctx.out(plan.message.replace('Confirm to merge.', 'Run again with --yes to merge.'));
      return 1;
    }
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      confirmed = /^y(es)?$/i.test((await rl.question(`${plan.message.replace(' Confirm to merge.', '')} Merge? [y/N] `)).trim());
    } finally {
      rl.close();
    }
    if (!confirmed) {
      ctx.out('Not merged.');
      return 1;
    }
  }
  const r = await typedFeatureErrors(() => app.featureRuns.merge({ projectPath: root, slug, squash, confirm: true }));
  if (ctx.json) ctx.out(JSON.stringify(r));
  else ctx.out(`${r.message} ${r.base} is now at ${r.commit?.slice(0, 8) ?? '?'}.`);
  return 0;
}
