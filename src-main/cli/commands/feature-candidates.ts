/**
 * Best-of-N from the command line: `feature run SLUG --candidates N` (each candidate's agent with
 * `--candidate-agent`, the budget split or `--budget-each`), `feature compare SLUG` (the table, or
 * one candidate's diff, or two side by side as a diff between them), `feature judge SLUG` and
 * `feature pick SLUG CANDIDATE`, through the same FeatureCandidateService as the app.
 */
import { CandidateSpec, formatUsd, MAX_CANDIDATES, MIN_CANDIDATES, RunExecutor, type CandidateComparison, type CandidateGroupInfo, type CandidateSpec as Spec, type FeatureRunEvent, type RunPlacement } from '../../../src-preload/contract';
import type { AppServices } from '../../app/services';
import { UsageError, type CliContext } from '../command';
import { featureProject, typedFeatureErrors } from './feature-support';

export const CANDIDATE_FLAGS = { candidates: true, 'candidate-agent': 'multiple', 'budget-each': true, diff: true, against: true } as const;
export const CANDIDATE_USAGE =
  'feature run SLUG --candidates N [--candidate-agent executor=E,model=M,profile=P …] [--budget-each USD] [--repo DIR] | feature compare SLUG [--json] [--diff N [--against M]] | feature judge SLUG | feature pick SLUG CANDIDATE|none';

/** How often the CLI looks whether its candidate runs are still live (their events are printed as they come). */
const LIVE_POLL_MS = 250;

/** `executor=claude-code,model=sonnet,profile=work`: one candidate's agent; keys left out are the feature's. */
export function parseCandidateAgent(text: string): Spec {
  const out: Record<string, string> = {};
  for (const part of text.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    if (!['executor', 'model', 'profile'].includes(key)) throw new UsageError(`--candidate-agent takes executor=…,model=…,profile=… (got "${part}")`);
    if (key in out) throw new UsageError(`--candidate-agent names ${key} twice`);
    out[key] = part.slice(eq + 1).trim();
  }
  if (out.executor !== undefined && !RunExecutor.safeParse(out.executor).success) throw new UsageError(`--candidate-agent: executor takes ${RunExecutor.options.join('|')}`);
  const parsed = CandidateSpec.safeParse(out);
  if (!parsed.success) throw new UsageError(`--candidate-agent "${text}": ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
  return parsed.data;
}

function candidateNumber(text: string | undefined, what: string): number {
  const m = text ? /^c?(\d)$/i.exec(text.trim()) : null;
  const n = m ? Number(m[1]) : NaN;
  if (!(n >= 1 && n <= MAX_CANDIDATES)) throw new UsageError(`${what} is a candidate number, 1 to ${MAX_CANDIDATES} (or c1 …)`);
  return n;
}

function duration(secs: number): string {
  const s = Math.round(secs);
  return s < 60 ? `${s}s` : `${Math.floor(s / 60)}m ${s % 60}s`;
}

/** `feature run SLUG --candidates N`: shows each candidate's branch, agent and budget, starts them, follows them to their end and prints the comparison. */
export async function featureRunCandidates(ctx: CliContext, slug: string, o: { placement?: RunPlacement; executor?: RunExecutor; onSession: (app: AppServices) => (sessionId: string) => void }): Promise<number> {
  const n = Number(ctx.flags.candidates);
  if (!Number.isInteger(n) || n < MIN_CANDIDATES || n > MAX_CANDIDATES) throw new UsageError(`--candidates takes ${MIN_CANDIDATES} to ${MAX_CANDIDATES}`);
  const agentFlags = ctx.flags['candidate-agent'];
  const agents = (Array.isArray(agentFlags) ? agentFlags : typeof agentFlags === 'string' ? [agentFlags] : []).map(parseCandidateAgent);
  if (agents.length > n) throw new UsageError(`${agents.length} --candidate-agent for ${n} candidates`);
  const each = ctx.flags['budget-each'];
  const budgetEach = typeof each === 'string' ? Number(each) : null;
  if (budgetEach !== null && !(budgetEach > 0)) throw new UsageError('--budget-each takes an amount in USD above 0');
  const specs: Spec[] = Array.from({ length: n }, (_, i) => ({ ...(o.executor ? { executor: o.executor } : {}), ...(o.placement ? { placement: o.placement } : {}), ...agents[i] }));
  const budget = budgetEach !== null ? ({ mode: 'each', usd: budgetEach } as const) : ({ mode: 'split' } as const);

  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  const preview = await typedFeatureErrors(() => app.featureCandidates.start({ projectPath: root, slug, candidates: specs, budget, confirm: false }));
  if (!ctx.json) {
    ctx.out(`${n} candidates of ${slug}, ${preview.budgetMode === 'split' ? `the run budget ${formatUsd(preview.totalBudgetUsd)} split` : `${formatUsd(preview.candidates[0]!.budgetUsd)} each, ${formatUsd(preview.totalBudgetUsd)} in all`}:`);
    for (const c of preview.candidates) ctx.out(`  c${c.index}  ${c.branch.padEnd(28)} ${c.executor}${c.model ? ` ${c.model}` : ''}${c.profile ? ` @${c.profile}` : ''}  budget ${formatUsd(c.budgetUsd)}`);
  }
  const runIds = new Set<string>();
  const labels = new Map<string, string>();
  const off = app.hub.subscribe((e) => {
    if (e.topic !== 'featureRuns.event') return;
    const ev = e.payload as FeatureRunEvent;
    if (!runIds.has(ev.runId)) return;
    if (ctx.json) ctx.out(JSON.stringify(ev));
    else {
      const line = eventLine(ev);
      if (line) ctx.out(`[${labels.get(ev.runId)}] ${line}`);
    }
  });
  const onInt = () => app.featureCandidates.cancel(root, slug);
  process.on('SIGINT', onInt);
  ctx.signal.addEventListener('abort', onInt, { once: true });
  try {
    const started = await typedFeatureErrors(() => app.featureCandidates.start({ projectPath: root, slug, candidates: specs, budget, confirm: true, onSession: o.onSession(app) }));
    started.runs.forEach((r, i) => {
      runIds.add(r.id);
      labels.set(r.id, `c${i + 1}`);
    });
    while ([...runIds].some((id) => app.featureRuns.isLive(id))) await new Promise((r) => setTimeout(r, LIVE_POLL_MS));
    await app.events.whenFlushed();
  } finally {
    process.off('SIGINT', onInt);
    ctx.signal.removeEventListener('abort', onInt);
    off();
  }
  const group = await typedFeatureErrors(() => app.featureCandidates.compare(root, slug));
  if (!group) return 1;
  if (ctx.json) ctx.out(JSON.stringify(group));
  else {
    ctx.out('');
    printComparison(ctx, group);
    ctx.out(`Pick one with: feature pick ${slug} N`);
  }
  return group.candidates.some((c) => c.status === 'finished') ? 0 : 1;
}

function eventLine(ev: FeatureRunEvent): string | null {
  const d = ev.data;
  switch (d.type) {
    case 'PhaseStarting':
      return `▶ ${d.name}`;
    case 'PhaseCompleted':
      return `${d.success ? '✓' : '✗'} ${d.name}${d.message ? `: ${d.message}` : ''}`;
    case 'VerifyAttempt':
      return `verify attempt ${d.attempt}: ${d.result}`;
    case 'RunFinished':
      return d.success ? 'finished' : `${d.outcome}${d.message ? `: ${d.message}` : ''}`;
    case 'Queued':
      return `queued (position ${d.position})`;
    default:
      return null;
  }
}

function checksText(c: CandidateComparison): string {
  if (c.checks.length === 0) return 'no checks';
  return c.checks.map((k) => `${k.verdict === 'passed' ? 'ok' : k.verdict === 'failed' ? 'FAIL' : '–'} ${k.command}`).join(', ');
}

function issuesText(c: CandidateComparison): string {
  const parts = Object.entries(c.reviewIssues).filter(([, v]) => v > 0).map(([k, v]) => `${v} ${k}`);
  return parts.length ? parts.join(', ') : 'none';
}

export function printComparison(ctx: CliContext, g: CandidateGroupInfo): void {
  ctx.out(`Candidates of ${g.slug} (${g.status}${g.winner ? `, c${g.winner} picked` : ''}), from ${g.baseCommit.slice(0, 8)}:`);
  for (const c of g.candidates) {
    const agent = `${c.executor}${c.model ? ` ${c.model}` : ''}${c.profile ? ` @${c.profile}` : ''}`;
    ctx.out(`  c${c.index}  ${c.status.padEnd(8)} ${agent}  ${c.phase ? `at ${c.phase}, ` : ''}${c.phasesDone}/${c.phasesTotal} phases`);
    ctx.out(`      checks: ${checksText(c)}   review issues: ${issuesText(c)}`);
    ctx.out(`      ${c.filesChanged} files, +${c.linesAdded} −${c.linesDeleted}, tests added: ${c.testsAdded.length ? c.testsAdded.join(' ') : 'none'}`);
    ctx.out(`      ${c.inputTokens + c.outputTokens} tokens, ${formatUsd(c.costUsd)}, ${duration(c.wallSecs)}   diff: feature compare ${g.slug} --diff ${c.index}${c.archivedRef ? `   kept as ${c.archivedRef}` : ''}`);
    if (c.status === 'failed' && c.message) ctx.out(`      ${c.message}`);
  }
  if (g.judge) {
    ctx.out(`Judge (${formatUsd(g.judge.costUsd)}): ${g.judge.summary}`);
    g.judge.ranking.forEach((r, i) => ctx.out(`  ${i + 1}. c${r.candidate}: ${r.reason}`));
  }
}

export async function featureCompare(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature compare needs the SLUG of a feature with candidates');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  if (ctx.flags.against !== undefined && ctx.flags.diff === undefined) throw new UsageError('--against goes with --diff');
  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  if (ctx.flags.diff !== undefined) {
    const a = candidateNumber(typeof ctx.flags.diff === 'string' ? ctx.flags.diff : undefined, '--diff');
    const b = ctx.flags.against !== undefined ? candidateNumber(typeof ctx.flags.against === 'string' ? ctx.flags.against : undefined, '--against') : undefined;
    const d = await typedFeatureErrors(() => app.featureCandidates.diff(root, slug, a, b));
    if (ctx.json) ctx.out(JSON.stringify(d));
    else ctx.out(d.text + (d.truncated ? '\n(truncated)' : ''));
    return 0;
  }
  const group = await typedFeatureErrors(() => app.featureCandidates.compare(root, slug));
  if (!group) {
    ctx.err(`flightdeck: ${slug} has no candidates; start them with: feature run ${slug} --candidates N`);
    return 1;
  }
  if (ctx.json) ctx.out(JSON.stringify(group));
  else printComparison(ctx, group);
  return 0;
}

export async function featureJudge(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, ...rest] = args;
  if (!slug) throw new UsageError('feature judge needs the SLUG of a feature with candidates');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  const r = await typedFeatureErrors(() => app.featureCandidates.judge(root, slug));
  if (ctx.json) ctx.out(JSON.stringify(r));
  else {
    ctx.out(`Judge (${formatUsd(r.costUsd)}, ${r.inputTokens + r.outputTokens} tokens): ${r.summary}`);
    r.ranking.forEach((x, i) => ctx.out(`  ${i + 1}. c${x.candidate}: ${x.reason}`));
  }
  return 0;
}

/** `feature pick SLUG CANDIDATE`: the winner becomes the feature's branch; the delivering run is followed to its end. */
export async function featurePick(ctx: CliContext, args: string[]): Promise<number> {
  const [slug, which, ...rest] = args;
  if (!slug) throw new UsageError('feature pick needs the SLUG and the CANDIDATE to pick (or none)');
  if (rest.length > 0) throw new UsageError(`unexpected argument: ${rest[0]}`);
  if (which === 'none') {
    const app = await ctx.openApp();
    const { root } = await featureProject(ctx, app);
    const group = await typedFeatureErrors(() => app.featureCandidates.discard(root, slug));
    if (ctx.json) ctx.out(JSON.stringify(group));
    else ctx.out(`No candidate picked: ${group.candidates.length} kept under refs/flightdeck/archive/${slug}/${group.id}/, their worktrees removed. ${slug} is planned as before.`);
    return 0;
  }
  const index = candidateNumber(which, 'CANDIDATE');
  const app = await ctx.openApp();
  const { root } = await featureProject(ctx, app);
  const r = await typedFeatureErrors(() => app.featureCandidates.pick(root, slug, index));
  if (!ctx.json) ctx.out(r.message);
  if (!r.run) {
    if (ctx.json) ctx.out(JSON.stringify(r));
    return 1;
  }
  const runId = r.run.id;
  while (app.featureRuns.isLive(runId)) await new Promise((res) => setTimeout(res, LIVE_POLL_MS));
  await app.events.whenFlushed();
  const events = app.featureRuns.events(runId);
  const finished = events.map((e) => e.data).find((d) => d.type === 'RunFinished');
  const delivered = events.map((e) => e.data).find((d) => d.type === 'PrCreated');
  if (ctx.json) ctx.out(JSON.stringify({ ...r, delivery: delivered?.type === 'PrCreated' ? delivered.delivery : null, outcome: finished?.type === 'RunFinished' ? finished.outcome : null }));
  else if (delivered?.type === 'PrCreated') ctx.out(delivered.delivery.kind === 'pr' ? `PR: ${delivered.delivery.url}` : delivered.delivery.kind === 'compare' ? `Pushed; open the PR at: ${delivered.delivery.url ?? '(no web page known)'}` : `Completed locally: merge it with: feature merge ${slug}`);
  else if (finished?.type === 'RunFinished') ctx.err(`flightdeck: the delivery did not finish (${finished.outcome}): ${finished.message ?? ''}`);
  return finished?.type === 'RunFinished' && finished.success ? 0 : 1;
}
