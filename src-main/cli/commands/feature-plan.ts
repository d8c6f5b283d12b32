/**
 * `feature init` and `feature plan`: the subcommands of `feature` that set a project up and plan
 * a feature, through the same PlanningService as the app (so a draft started here can be
 * continued in the app and the other way round).
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { resolve } from 'node:path';
import { AgentMode, FeatureExecutor, IssueRef, ProfileName, type PlanRevision } from '../../../src-preload/contract';
import { FeatureError } from '../../features/errors';
import { extractPhases } from '../../features/plan-model';
import type { InitFile } from '../../features/planning-service';
import { addIgnoreRules, takeIgnoreOffer } from '../../worktrees/setup-artifacts';
import type { RunAgent } from '../../features/state';
import { UsageError, type CliContext } from '../command';
import { featureProject, typedFeatureErrors } from './feature-support';
import { warnUntrusted } from './trust-text';
import { followSetup } from './setup-follow';
import type { TrustPart } from '../../trust/trust-service';

/** What planning a feature uses of the repository's config: its worktree's setup and copy list, its templates, its checks (in the verification plan). */
const PLAN_PARTS: readonly TrustPart[] = ['worktree.setup', 'worktree.copy', 'prompts', 'checks'];

/** Flags of init and plan (added to the `feature` command's own). */
export const PLANNING_FLAGS = {
  spec: true,
  verification: true,
  message: 'multiple',
  approve: false,
  done: false,
  executor: true,
  profile: true,
  model: true,
  mode: true,
  'from-issue': true,
  slug: true,
  label: true,
  assignee: true,
} as const;

export const PLANNING_USAGE = 'feature init [--repo DIR] [--yes] | feature issues [--label L] [--assignee A] [--repo DIR] | feature new --from-issue N|URL [--slug SLUG] [--repo DIR] | feature plan SLUG [--repo DIR] (--spec FILE --verification FILE | --message TEXT… [--approve] [--done]) [--executor builtin|claude-code] [--profile NAME] [--model M] [--mode MODE]';

function str(ctx: CliContext, name: string): string | undefined {
  const v = ctx.flags[name];
  return typeof v === 'string' ? v : undefined;
}

/** The agent options of the flags, checked here so a typo is a usage error, not a failed run. */
function agentFlags(ctx: CliContext): RunAgent {
  const executor = FeatureExecutor.safeParse(str(ctx, 'executor') ?? 'builtin');
  if (!executor.success) throw new UsageError(`--executor takes ${FeatureExecutor.options.join('|')}`);
  // Unattended by default: yolo inside the sandbox, the hard floor and the Coder's guard.
  const mode = AgentMode.safeParse(str(ctx, 'mode') ?? 'yolo');
  if (!mode.success) throw new UsageError(`--mode takes ${AgentMode.options.join('|')}`);
  const profile = str(ctx, 'profile');
  if (profile !== undefined && !ProfileName.safeParse(profile).success) throw new UsageError(`"${profile}" is not a profile name`);
  const model = str(ctx, 'model')?.trim();
  if (model === '') throw new UsageError('--model needs a model name');
  return { executor: executor.data, profile: profile ?? null, model: model ?? null, mode: mode.data };
}



function readDoc(flag: string, path: string): string {
  try {
    return readFileSync(resolve(path), 'utf8');
  } catch (e) {
    throw new FeatureError('io', `could not read the file given to --${flag}: ${(e as Error).message}`, { path: resolve(path) }, { cause: e });
  }
}

export async function featureInit(ctx: CliContext, args: string[]): Promise<number> {
  if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`);
  const agent = agentFlags(ctx);
  return typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root, projectId } = await featureProject(ctx, app);
    await warnUntrusted(ctx, app, root, ['prompts']);
    const yes = ctx.flags.yes === true;
    // What init will write, shown before it is written; at a terminal it asks (unless --yes).
    const confirm = async (files: InitFile[]): Promise<boolean> => {
      if (!ctx.json) {
        ctx.out('Init will write:');
        for (const f of files) ctx.out(`── ${f.path} ──\n${f.text.trimEnd()}`);
        ctx.out('──');
      }
      if (yes || !process.stdin.isTTY || !process.stderr.isTTY) return true;
      const rl = createInterface({ input: process.stdin, output: process.stderr });
      try {
        return /^y(es)?$/i.test((await rl.question('Write these files? [y/N] ')).trim());
      } finally {
        rl.close();
      }
    };
    const r = await app.planning.init({ repo: root, projectId, executor: agent.executor, profile: agent.profile ?? undefined, model: agent.model ?? undefined, signal: ctx.signal, confirm });
    if (ctx.json) {
      ctx.out(JSON.stringify(r));
      return 0;
    }
    ctx.out(`Initialized ${r.root} for features.`);
    ctx.out(`  config:    ${r.configPath}`);
    ctx.out(`  overview:  ${r.overviewPath}`);
    ctx.out(`  checks:    ${r.checks.length ? r.checks.join(' · ') : '(none found: add them to checks in the config)'}`);
    ctx.out(`  .gitignore: ${r.gitignoreUpdated ? 'added .trees/' : '.trees/ was already ignored'}`);
    for (const n of r.notes) ctx.out(`  note: ${n}`);
    ctx.out('Next: feature plan SLUG --message "what to build"');
    return 0;
  });
}

function printRevision(ctx: CliContext, r: PlanRevision): void {
  ctx.out(`── Design spec (revision ${r.number}) ──`);
  ctx.out(r.designMd.trimEnd());
  ctx.out('── Verification plan ──');
  ctx.out(r.verificationMd.trimEnd());
  ctx.out('──');
  if (r.phasesFound) ctx.out(`Development phases: ${r.phases.map((p, i) => `${i + 1}. ${p.title}`).join('  ')}`);
  else ctx.out('No development phases: the design spec has no "## Development Phases" section with "### Phase N: <name>" headings.');
}

export async function featurePlan(ctx: CliContext, args: string[]): Promise<number> {
  const slug = args[0];
  if (!slug) throw new UsageError('feature plan needs the SLUG of the feature');
  if (args.length > 1) throw new UsageError(`unexpected argument: ${args[1]}`);
  const spec = str(ctx, 'spec');
  const verification = str(ctx, 'verification');
  const messages = Array.isArray(ctx.flags.message) ? ctx.flags.message : typeof ctx.flags.message === 'string' ? [ctx.flags.message] : [];
  const approve = ctx.flags.approve === true;
  const done = ctx.flags.done === true;
  const agent = agentFlags(ctx);
  if (spec !== undefined || verification !== undefined) {
    if (spec === undefined || verification === undefined) throw new UsageError('--spec and --verification go together');
    if (messages.length || approve || done) throw new UsageError('--spec/--verification finalize at once: no --message, --approve or --done with them');
    return planFromFiles(ctx, slug, readDoc('spec', spec), readDoc('verification', verification), agent);
  }
  if (!messages.length && !approve && !done) throw new UsageError('feature plan needs --spec FILE --verification FILE, or --message TEXT (with --approve and --done to finish)');
  if (messages.some((m) => m.trim() === '')) throw new UsageError('--message needs text');
  return typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root, projectId } = await featureProject(ctx, app);
    await warnUntrusted(ctx, app, root, PLAN_PARTS);
    const planning = app.planning;
    // A draft of this feature started earlier (here or in the app) is continued.
    const draft = planning.openDraftFor(root, slug)?.draft ?? (await planning.startPlan({ repo: root, projectId, slug, executor: agent.executor, profile: agent.profile ?? undefined, model: agent.model ?? undefined }));
    const replies: string[] = [];
    if (!ctx.json) ctx.out(`Planning ${slug} (draft ${draft.id}, session ${draft.sessionId}).`);
    for (const m of messages) {
      const r = await planning.send(draft.id, m, { signal: ctx.signal });
      if (r.outcome !== 'completed') throw new FeatureError('agent', `the Planner did not answer (${r.outcome}${r.message ? `: ${r.message}` : ''})`);
      replies.push(r.finalText);
      if (!ctx.json) ctx.out(`You: ${m}\nPlanner: ${r.finalText}`);
    }
    let revision = planning.get(draft.id).current;
    if (approve) {
      revision = (await planning.approveDraft(draft.id, { signal: ctx.signal })).revision;
      if (!ctx.json) printRevision(ctx, revision);
    }
    let feature = null;
    if (done) {
      if (!revision) throw new FeatureError('plan', 'nothing to finalize yet: add --approve so the Planner writes the design spec and verification plan');
      if (!revision.phasesFound) throw new FeatureError('plan', 'the design spec has no development phases ("## Development Phases" with "### Phase N: <name>" headings); ask the Planner to add them, then --approve again');
      feature = (await planning.approve(draft.id, { revision: revision.number, designMd: revision.designMd, verificationMd: revision.verificationMd, phases: revision.phases.map((p) => p.title), agent })).feature;
      await followSetup(ctx, app, feature.worktreePath);
      if (!ctx.json) {
        printFinalized(ctx, feature);
        await offerIgnoreRules(ctx, root, feature.worktreePath);
      }
    } else if (!ctx.json) {
      ctx.out(revision ? `Revision ${revision.number} awaits approval: feature plan ${slug} --done` : `Continue with: feature plan ${slug} --message "…" [--approve] [--done]`);
    }
    if (ctx.json) ctx.out(JSON.stringify({ draft: planning.get(draft.id).draft, replies, revision, feature }));
    return 0;
  });
}

async function planFromFiles(ctx: CliContext, slug: string, designMd: string, verificationMd: string, agent: RunAgent): Promise<number> {
  return typedFeatureErrors(async () => {
    const phases = extractPhases(designMd);
    if (!phases.found) throw new FeatureError('plan', phases.problem ?? 'the design spec has no development phases', { path: resolve(str(ctx, 'spec')!) });
    const app = await ctx.openApp();
    const { root } = await featureProject(ctx, app);
    await warnUntrusted(ctx, app, root, PLAN_PARTS);
    const feature = await app.planning.finalize({ repo: root, slug, designMd, verificationMd, phases: phases.phases.map((p) => p.title), agent });
    await followSetup(ctx, app, feature.worktreePath);
    if (ctx.json) ctx.out(JSON.stringify({ feature }));
    else {
      printFinalized(ctx, feature);
      await offerIgnoreRules(ctx, root, feature.worktreePath);
    }
    return 0;
  });
}

/** `feature issues`: the open issues to plan from (through gh). */
export async function featureIssues(ctx: CliContext, args: string[]): Promise<number> {
  if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`);
  return typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root } = await featureProject(ctx, app);
    const issues = await app.planning.listIssues(root, { label: str(ctx, 'label'), assignee: str(ctx, 'assignee') });
    if (ctx.json) ctx.out(JSON.stringify(issues));
    else if (issues.length === 0) ctx.out('No open issues.');
    else for (const i of issues) ctx.out(`#${String(i.number).padEnd(6)} ${i.title}${i.labels.length ? `  [${i.labels.join(', ')}]` : ''}${i.assignees.length ? `  @${i.assignees.join(' @')}` : ''}`);
    if (!ctx.json && issues.length > 0) ctx.out('Plan one: feature new --from-issue N');
    return 0;
  });
}

/**
 * `feature new --from-issue N|URL`: a feature planned from an issue. Its title names the feature
 * (or --slug), its title, body and comments are the Planner's first message, and the feature
 * records it so the pull request closes it. Planning goes on with `feature plan SLUG`.
 */
export async function featureNew(ctx: CliContext, args: string[]): Promise<number> {
  if (args.length > 0) throw new UsageError(`unexpected argument: ${args[0]}`);
  const ref = str(ctx, 'from-issue');
  if (ref === undefined) throw new UsageError('feature new needs --from-issue N|URL (a feature without an issue starts with: feature plan SLUG --message "…")');
  const parsed = IssueRef.safeParse(ref);
  if (!parsed.success) throw new UsageError(`--from-issue takes an issue number (12) or its URL, not "${ref}"`);
  const agent = agentFlags(ctx);
  return typedFeatureErrors(async () => {
    const app = await ctx.openApp();
    const { root, projectId } = await featureProject(ctx, app);
    await warnUntrusted(ctx, app, root, PLAN_PARTS);
    const planning = app.planning;
    const started = await planning.startPlanFromIssue({ repo: root, projectId, issue: parsed.data, slug: str(ctx, 'slug'), executor: agent.executor, profile: agent.profile ?? undefined, model: agent.model ?? undefined });
    const slug = started.draft.slug;
    if (!ctx.json) ctx.out(`Planning ${slug} from issue #${started.issue.number}: ${started.issue.title} (draft ${started.draft.id}).`);
    const r = await planning.send(started.draft.id, started.message, { signal: ctx.signal });
    if (r.outcome !== 'completed') throw new FeatureError('agent', `the Planner did not answer (${r.outcome}${r.message ? `: ${r.message}` : ''})`);
    if (ctx.json) ctx.out(JSON.stringify({ draft: planning.get(started.draft.id).draft, issue: { number: started.issue.number, url: started.issue.url, title: started.issue.title }, reply: r.finalText }));
    else ctx.out(`Planner: ${r.finalText}\nContinue with: feature plan ${slug} --message "…" [--approve] [--done]`);
    return 0;
  });
}

/**
 * Once per repository: what the worktree's setup created that the repository does not ignore
 * (node_modules, .venv, a build folder) is named — it stays out of the feature's commits either
 * way — and, at a terminal, adding it to .gitignore is offered.
 */
async function offerIgnoreRules(ctx: CliContext, root: string, worktree: string): Promise<void> {
  const patterns = await takeIgnoreOffer(worktree);
  if (patterns.length === 0) return;
  ctx.out(`Setup created files this repository does not ignore: ${patterns.join(', ')} (they are kept out of the feature's commits).`);
  const tty = process.stdin.isTTY === true && process.stderr.isTTY === true;
  if (!tty) {
    ctx.out(`To ignore them, add to ${root}/.gitignore:\n${patterns.map((p) => `  ${p}`).join('\n')}`);
    return;
  }
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  let yes = false;
  try {
    yes = /^y(es)?$/i.test((await rl.question('Add them to .gitignore? [y/N] ')).trim());
  } finally {
    rl.close();
  }
  if (yes) ctx.out(`Added to .gitignore: ${addIgnoreRules(root, patterns).join(', ') || '(already there)'}`);
}

function printFinalized(ctx: CliContext, f: { slug: string; worktreePath: string; branch: string; baseBranch: string; commit: string; phases: string[] }): void {
  ctx.out(`Planned ${f.slug}: worktree ${f.worktreePath} on ${f.branch} (from ${f.baseBranch}), commit ${f.commit.slice(0, 7)}.`);
  ctx.out(`Phases: ${f.phases.join(' → ')}`);
}
