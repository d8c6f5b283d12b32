import { resolve } from 'node:path';
import { formatBytes, formatUsd } from '../../../src-preload/contract';
import { createInterface } from 'node:readline/promises';
import type { CleanReport, FeatureDetail, FeatureSummary, ProjectFeatures } from '../../features/feature-service';
import { isFeatureError } from '../../features/errors';
import { UsageError, type CliCommand, type CliContext } from '../command';
import { featureInit, featureIssues, featureNew, featurePlan, PLANNING_FLAGS, PLANNING_USAGE } from './feature-plan';
import { COMMENT_FLAGS, COMMENT_USAGE, featureComment, featureComments, featureFix } from './feature-comments';
import { featureCancel, featureMerge, featureRun, RUN_FLAGS, RUN_USAGE } from './feature-run';
import { CANDIDATE_FLAGS, CANDIDATE_USAGE, featureCompare, featureJudge, featurePick } from './feature-candidates';
import { featurePr, PR_FLAGS, PR_USAGE } from './feature-pr';

/**
 * `feature …`: features: a planned change worked in its own worktree, from plan to pull request. Each subcommand is its own function in
 * SUBCOMMANDS (list, status, clean here; init and plan alongside), all taking the command's
 * context and their positional arguments.
 */
type Subcommand = (ctx: CliContext, args: string[]) => Promise<number>;

function repoFlag(ctx: CliContext): string | undefined {
  return typeof ctx.flags.repo === 'string' ? resolve(ctx.flags.repo) : undefined;
}

function noMoreArgs(args: string[], from: number): void {
  if (args.length > from) throw new UsageError(`unexpected argument: ${args[from]}`);
}

// ---- formatting (the status and list tables) -------------------------------------------------------------

const STATUS_MARK: Record<string, string> = { planned: '○ planned', in_progress: '◐ in progress', completed: '● completed', failed: '✗ failed', merged: '✔ merged' };
const PHASE_MARK: Record<string, string> = { pending: '○ pending', running: '◐ running', completed: '● completed', failed: '✗ failed' };

export function formatDuration(secs: number): string {
  const s = Math.round(secs);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m ${s % 60}s`;
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

const RULE = '─'.repeat(78);

function featureLine(f: FeatureSummary): string {
  const status = f.status ? (STATUS_MARK[f.status] ?? f.status) : '? unreadable';
  return `${f.slug.padEnd(22)} ${status.padEnd(14)} ${(f.branch ?? '').padEnd(26)} ${String(f.turns).padStart(5)} ${formatUsd(f.costUsd).padStart(8)}`;
}

function printProject(ctx: CliContext, p: ProjectFeatures, withHeader: boolean): void {
  if (withHeader) ctx.out(`${p.name}  (${p.repoRoot})`);
  if (p.error) {
    ctx.out(`  cannot read this project: ${p.error}`);
    return;
  }
  const active = p.features.filter((f) => f.source !== 'merged');
  const merged = p.features.filter((f) => f.source === 'merged');
  if (p.features.length === 0) ctx.out('No features yet.');
  else {
    ctx.out(`${'Feature'.padEnd(22)} ${'Status'.padEnd(14)} ${'Branch'.padEnd(26)} ${'Turns'.padStart(5)} ${'Cost'.padStart(8)}`);
    ctx.out(RULE);
    for (const f of active) ctx.out(featureLine(f));
    if (merged.length > 0) {
      ctx.out(RULE);
      for (const f of merged) ctx.out(featureLine(f));
    }
    ctx.out('');
    ctx.out(`${active.length} active, ${merged.length} merged — ${p.features.length} feature(s) total`);
  }
  for (const f of p.features) if (f.problem) ctx.out(`! ${f.slug}: ${f.problem.kind} error: ${f.problem.message}${f.status ? ' (showing its last good content)' : ''}`);
  for (const pr of p.problems) ctx.out(`! ${pr.kind} error: ${pr.message}`);
}

// ---- list ------------------------------------------------------------------------------------

async function featureList(ctx: CliContext, args: string[]): Promise<number> {
  noMoreArgs(args, 0);
  const app = await ctx.openApp();
  const repo = repoFlag(ctx);
  const projects = await app.features.list(repo !== undefined ? { repo } : {});
  if (ctx.json) {
    ctx.out(JSON.stringify({ projects }));
    return 0;
  }
  if (projects.length === 0) {
    ctx.out('No projects yet: add one (projects add DIR) or name a repository with --repo DIR.');
    return 0;
  }
  projects.forEach((p, i) => {
    if (i > 0) ctx.out('');
    printProject(ctx, p, repo === undefined);
  });
  return 0;
}

// ---- status ----------------------------------------------------------------------------------

function printStatus(ctx: CliContext, d: FeatureDetail): void {
  const f = d.feature;
  const DOUBLE = '═'.repeat(40);
  const THIN = '─'.repeat(40);
  ctx.out(`Feature: ${f.slug}`);
  ctx.out(DOUBLE);
  ctx.out('');
  ctx.out(`Status:     ${f.status ? (STATUS_MARK[f.status] ?? f.status) : '? unreadable'}`);
  if (f.createdAt) ctx.out(`Created:    ${f.createdAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC')}`);
  if (f.updatedAt) ctx.out(`Updated:    ${f.updatedAt.replace('T', ' ').replace(/\.\d+Z$/, ' UTC').replace(/Z$/, ' UTC')}`);
  if (f.problem) ctx.out(`Problem:    ${f.problem.kind} error: ${f.problem.message}${d.state ? ' (showing the last good content)' : ''}`);
  ctx.out('');
  ctx.out('Git');
  ctx.out(THIN);
  ctx.out(`Branch:     ${f.branch ?? '(unknown)'}`);
  ctx.out(`Base:       ${d.git?.base ?? f.baseBranch ?? '(unknown)'}`);
  ctx.out(`Worktree:   ${f.worktreePath ?? '(none)'}${f.source === 'merged' ? ' (removed: merged)' : ''}`);
  if (d.git) {
    if (d.git.missing) ctx.out('            its folder is missing (worktree remove prunes it)');
    else {
      ctx.out(`Ahead/behind base: ${d.git.aheadOfBase} ahead, ${d.git.behindBase} behind`);
      if (d.git.upstream) ctx.out(`Upstream:   ${d.git.upstream} (${d.git.aheadOfUpstream ?? 0} ahead, ${d.git.behindUpstream ?? 0} behind)`);
      ctx.out(`Working tree: ${d.git.dirty ? `dirty (${d.git.changed.length} changed, ${d.git.untracked.length} untracked)` : 'clean'}`);
      if (d.git.lastCommit) ctx.out(`Last commit: ${d.git.lastCommit.sha.slice(0, 7)} ${d.git.lastCommit.subject} (${d.git.lastCommit.date})`);
      ctx.out(`Disk use:   ${formatBytes(d.git.diskBytes)}`);
    }
  } else if (d.gitProblem) ctx.out(`            ${d.gitProblem}`);
  const s = d.state;
  if (!s) return;
  ctx.out('');
  ctx.out('Phases');
  ctx.out(THIN);
  const width = Math.max(12, ...s.phases.map((p) => p.name.length + 1));
  ctx.out(`${'Phase'.padEnd(width)} ${'Status'.padEnd(12)} ${'Turns'.padStart(5)} ${'Cost'.padStart(8)} ${'Duration'.padStart(9)}`);
  for (const p of s.phases) {
    ctx.out(`${p.name.padEnd(width)} ${(PHASE_MARK[p.status] ?? p.status).padEnd(12)} ${String(p.turns).padStart(5)} ${formatUsd(p.cost_usd).padStart(8)} ${formatDuration(p.duration_secs).padStart(9)}`);
  }
  if (s.pr) ctx.out(`\nPR:         #${s.pr.number} ${s.pr.title} (${s.pr.url})`);
  ctx.out('');
  ctx.out('Summary');
  ctx.out(THIN);
  ctx.out(`Total turns:    ${s.total.turns}`);
  ctx.out(`Total cost:     ${formatUsd(s.total.cost_usd)} USD`);
  ctx.out(`Total duration: ${formatDuration(s.total.duration_secs)}`);
  ctx.out(`Tokens:         ${d.tokens.input_tokens} in / ${d.tokens.output_tokens} out`);
  ctx.out(DOUBLE);
}

async function featureStatus(ctx: CliContext, args: string[]): Promise<number> {
  const slug = args[0];
  if (!slug) throw new UsageError('feature status needs the SLUG of the feature');
  noMoreArgs(args, 1);
  const app = await ctx.openApp();
  const detail = await app.features.status(repoFlag(ctx) ?? process.cwd(), slug);
  if (ctx.json) ctx.out(JSON.stringify(detail));
  else printStatus(ctx, detail);
  return 0;
}

// ---- clean -----------------------------------------------------------------------------------

function reasonText(c: CleanReport['candidates'][number]): string {
  if (c.reason === 'pr_merged') return `MERGED (PR #${c.pr?.number})`;
  if (c.reason === 'pr_closed') return `CLOSED (PR #${c.pr?.number})`;
  return `MERGED (locally, by ${c.method})`;
}

async function confirmed(question: string): Promise<boolean> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = await rl.question(question);
    return /^y(es)?$/i.test(answer.trim());
  } finally {
    rl.close();
  }
}

async function featureClean(ctx: CliContext, args: string[]): Promise<number> {
  noMoreArgs(args, 0);
  const dryRun = ctx.flags['dry-run'] === true;
  const yes = ctx.flags.yes === true;
  if (dryRun && yes) throw new UsageError('--dry-run and --yes contradict each other');
  if (!dryRun && !yes && !process.stdin.isTTY) throw new UsageError('feature clean removes worktrees: confirm with --yes, or list them with --dry-run');
  const app = await ctx.openApp();
  const repo = repoFlag(ctx) ?? process.cwd();
  const preview = await app.features.clean(repo, { dryRun: true });
  if (ctx.json && (dryRun || preview.candidates.length === 0)) {
    ctx.out(JSON.stringify(preview));
    return 0;
  }
  if (!ctx.json) {
    ctx.out(preview.usedGh ? 'Pull request states from gh:' : 'gh is not available: judged by local merge detection (squash and rebase merges included).');
    for (const n of preview.notes ?? []) ctx.err(`note: ${n}`);
    for (const c of preview.candidates) ctx.out(`[~] ${c.slug.padEnd(22)} ${reasonText(c)}  ${formatBytes(c.diskBytes)}`);
    for (const s of preview.skipped) ctx.out(`[ ] ${s.slug.padEnd(22)} kept: ${s.why}`);
    const total = preview.candidates.reduce((n, c) => n + c.diskBytes, 0);
    if (dryRun || preview.candidates.length === 0) {
      ctx.out(preview.candidates.length === 0 ? 'Nothing to clean.' : `${preview.candidates.length} worktree(s) would be removed (${formatBytes(total)}).`);
      return 0;
    }
  }
  if (!yes && !(await confirmed(`Remove ${preview.candidates.length} worktree(s)? Each is archived first. [y/N] `))) {
    ctx.out(ctx.json ? JSON.stringify({ ...preview, removed: [] }) : 'Nothing removed.');
    return 0;
  }
  const report = await app.features.clean(repo, { dryRun: false, only: preview.candidates.map((c) => c.slug) });
  if (ctx.json) ctx.out(JSON.stringify(report));
  else {
    for (const r of report.removed) {
      const c = report.candidates.find((x) => x.slug === r.slug);
      ctx.out(`[✓] Removed ${r.slug.padEnd(22)} ${c ? reasonText(c) : ''}  archived as ${r.archiveRef}`);
      if (r.historyPath === null && c && c.reason !== 'pr_closed') ctx.out(`    its record (.flightdeck/${r.slug}/state.yml) comes with the merge: git pull brings it`);
    }
    for (const f of report.failed) ctx.err(`[✗] ${f.slug}: ${f.message}`);
    ctx.out(`Cleaned ${report.removed.length} worktree(s), reclaimed ${formatBytes(report.reclaimedBytes)}.`);
  }
  return report.failed.length > 0 ? 1 : 0;
}

// ---- the command -----------------------------------------------------------------------------

const SUBCOMMANDS: Record<string, Subcommand> = {
  issues: featureIssues,
  new: featureNew,
  comment: featureComment,
  comments: featureComments,
  fix: featureFix,
  list: featureList,
  status: featureStatus,
  clean: featureClean,
  init: featureInit,
  plan: featurePlan,
  run: featureRun,
  cancel: featureCancel,
  merge: featureMerge,
  compare: featureCompare,
  judge: featureJudge,
  pick: featurePick,
  pr: featurePr,
};

export const featureCommand: CliCommand = {
  name: 'feature',
  summary: 'Features of a repository: initialize it, plan a feature (chat with the Planner, or given documents), list them (every project without --repo), show one in detail, or clean the merged and closed ones.',
  usage: `${PLANNING_USAGE} | feature list [--repo DIR] | feature status SLUG [--repo DIR] | feature clean [--repo DIR] [--dry-run] [--yes] | ${RUN_USAGE} | ${COMMENT_USAGE} | ${CANDIDATE_USAGE} | ${PR_USAGE}`,
  flags: { repo: true, 'dry-run': false, yes: false, ...PLANNING_FLAGS, ...RUN_FLAGS, ...COMMENT_FLAGS, ...CANDIDATE_FLAGS, ...PR_FLAGS },
  async run(ctx) {
    const [sub, ...rest] = ctx.args;
    if (sub === undefined) throw new UsageError('feature needs a subcommand');
    const run = Object.prototype.hasOwnProperty.call(SUBCOMMANDS, sub) ? SUBCOMMANDS[sub] : undefined;
    if (!run) throw new UsageError(`unknown feature subcommand "${sub}"`);
    if (ctx.flags['dry-run'] === true && sub !== 'clean') throw new UsageError('--dry-run applies to feature clean only');
    if (ctx.flags.yes === true && sub !== 'clean' && sub !== 'merge' && sub !== 'init' && sub !== 'pr') throw new UsageError('--yes applies to feature clean, feature merge, feature pr --merge and feature init only');
    if (ctx.flags.squash === true && sub !== 'merge') throw new UsageError('--squash applies to feature merge only');
    if ((ctx.flags.candidates !== undefined || ctx.flags['candidate-agent'] !== undefined || ctx.flags['budget-each'] !== undefined) && sub !== 'run') throw new UsageError('--candidates, --candidate-agent and --budget-each apply to feature run only');
    if ((ctx.flags.diff !== undefined || ctx.flags.against !== undefined) && sub !== 'compare') throw new UsageError('--diff and --against apply to feature compare only');
    try {
      return await run(ctx, rest);
    } catch (e) {
      // As an AppError the runner prints "<kind> error: <path>:<line>: …", and with --json the kind, path and line as fields.
      throw isFeatureError(e) ? e.toAppError() : e;
    }
  },
};
