/**
 * init, plan and finalize of features.
 *
 * - init asks the Planner to analyse the repository and the Coder to propose the setup, then
 *   writes `.flightdeck/config.yml` itself (detected checks merged with the proposal, validated),
 *   `.flightdeck/overview.md` and the `.trees/` ignore entry.
 * - plan is a chat with the Planner (an ordinary agent session, streamed like any other). `/approve`
 *   (approveDraft) has it write the design spec and the verification plan; comments sent back
 *   (requestChanges) produce the next revision. Drafts live in the app's data folder only.
 * - finalize (approve) creates the worktree and branch, writes the specs and state.yml, and makes
 *   one commit; the feature is then `planned`. It is the only step that writes to the repository.
 *
 * Agents are driven through the SessionDriver; this service never calls a model itself.
 */
import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { AppError, type FinalizedFeature, type PlanComment, type PlanDraft, type PlanRevision } from '../../src-preload/contract';
import type { FeatureIssueRef, ForgeIssue, ForgeIssueDetail } from '../../src-preload/contract/issues';
import type { DriverSessionOptions, ExecutorName, TurnReport } from '../agents/session-driver';
import type { EventHub } from '../bridge/event-hub';
import { git } from '../git/git';
import { checkInside, mkdirInside, UnsafePathError, writeFileInside } from '../platform/contained-path';
import type { Logger } from '../platform/logger';
import { readFileNoWaitAsync } from '../platform/read-no-wait';
import { TREES_DIR, type WorktreeManager } from '../worktrees/worktree-manager';
import { addIgnoreRules, markOffered, pendingIgnoreOffer } from '../worktrees/setup-artifacts';
import { validateSlug } from '../worktrees/worktree-model';
import { configPath, defaultConfig, FEATURES_DIR, loadConfig, recordPath, type FeaturesConfig } from './config';
import { FeatureError, ioError } from './errors';
import { DefaultGhOps, DefaultGitOps, GH_ISSUES_MESSAGE, type GhOps, type GitOps } from './git-ops';
import { formatIssueRecord, ISSUE_FILE, issuePlanningInput, slugFromIssue } from './issue-input';
import { gatherRepo, TREE_MAX_ENTRIES } from './init';
import { buildInitConfig, detectFromRepo, fallbackOverview, formatTree } from './init-model';
import { extractPhases, namePhases, NO_PHASES_MESSAGE, taggedBlock, unwrapDocument } from './plan-model';
import { newDraftId, PlanDraftStore, type StoredDraft } from './plan-drafts';
import { findFeature } from './scanner';
import { newFeatureState, STATE_FILE, writeState, type RunAgent } from './state';
import type { FeatureApprovals } from './approvals';
import { projectTemplates, type PromptTemplates, type RepositoryTemplatesPolicy } from './templates';

export const OVERVIEW_FILE = 'overview.md';
/** The one commit finalize makes, so every feature branch starts the same way. */
export const planCommitMessage = (slug: string): string => `feat(${slug}): initialize planning artifacts`;
/** The overview given to the Planner is cut here: it is context, not the subject. */
const OVERVIEW_MAX_CHARS = 20_000;
/** An overview shorter than this is not an overview (an "OK", an empty tag): the fallback is used. */
const MIN_OVERVIEW_CHARS = 40;
// Files in the repository are the user's: ordinary permissions, like git would create them.
const REPO_FILE_MODE = 0o644;

/** The part of the SessionDriver this service uses (tests may pass a recording one). */
export interface AgentDriver {
  createSession(o: DriverSessionOptions): { id: string };
  runTurn(sessionId: string, input: string, o?: { signal?: AbortSignal }): Promise<TurnReport>;
}

export interface PlanningServiceOptions {
  dataDir: string;
  driver: AgentDriver;
  worktrees: WorktreeManager;
  hub?: EventHub;
  log?: Logger;
  git?: GitOps;
  now?: () => Date;
  /** The built-in templates' folder (tests). */
  builtinPromptsDir?: string;
  /** Whether a repository's own prompt templates are used (workspace trust); absent: never. */
  repositoryTemplates?: RepositoryTemplatesPolicy;
  /**
   * Workspace trust over the loaded config: the repository's checks, template folders and
   * placement while it is trusted, Flightdeck's defaults otherwise. The app always gives it;
   * absent (tests of planning alone) the config is used as loaded.
   */
  trustedConfig?: (root: string, config: FeaturesConfig) => Promise<FeaturesConfig>;
  /** The GitHub CLI, for features planned from an issue (tests give a scripted one). */
  gh?: GhOps;
  /** Where finalize records the approved agent settings, outside the worktree the agent can write (./approvals.ts). */
  approvals?: FeatureApprovals;
}

export interface AgentChoice {
  executor: ExecutorName;
  profile?: string | undefined;
  model?: string | undefined;
}

/** A file init writes, as it will be written (the .gitignore: the line added). */
export interface InitFile {
  path: string;
  text: string;
}

export interface InitResult {
  root: string;
  configPath: string;
  overviewPath: string;
  checks: string[];
  gitignoreUpdated: boolean;
  sessionIds: string[];
  notes: string[];
}

export interface FinalizeInput {
  repo: string;
  slug: string;
  designMd: string;
  verificationMd: string;
  /** Development phase titles in run order. */
  phases: readonly string[];
  agent: RunAgent;
  /** The issue the feature was planned from: recorded in `.flightdeck/<slug>/issue.yml`. */
  issue?: FeatureIssueRef | null;
}

const OPEN_STATUSES: ReadonlySet<PlanDraft['status']> = new Set(['discussing', 'generating', 'review']);

export class PlanningService {
  readonly drafts: PlanDraftStore;
  private readonly gitOps: GitOps;
  private readonly now: () => Date;
  /** Drafts with an agent turn or a finalize in progress: one operation per draft at a time. */
  private readonly busy = new Set<string>();

  constructor(private readonly o: PlanningServiceOptions) {
    this.drafts = new PlanDraftStore(o.dataDir, o.log);
    this.gitOps = o.git ?? new DefaultGitOps();
    this.now = o.now ?? (() => new Date());
  }

  start(): void {
    this.drafts.load();
    // A draft left `generating` by a crash or quit mid-turn is back to where the user can act on it.
    for (const d of this.drafts.all()) {
      if (d.draft.status === 'generating') this.save({ ...d, draft: { ...d.draft, status: d.revisions.length ? 'review' : 'discussing', error: 'The app stopped while the Planner was writing; ask again.' } });
    }
  }

  dispose(): void {}

  private templates(root: string, config: FeaturesConfig): PromptTemplates {
    return projectTemplates(root, config.prompts.extra_dirs, {
      useRepositoryTemplates: this.o.repositoryTemplates?.(root) ?? false,
      userDir: join(this.o.dataDir, 'prompts'),
      ...(this.o.builtinPromptsDir ? { builtinDir: this.o.builtinPromptsDir } : {}),
    });
  }

  // ---- init -------------------------------------------------------------------------------------

  /**
   * `confirm` is shown the files init is about to write (nothing is written before); false
   * writes nothing.
   */
  async init(o: { repo: string; projectId?: string | undefined; signal?: AbortSignal; confirm?: (files: InitFile[]) => Promise<boolean> } & AgentChoice): Promise<InitResult> {
    const root = await this.o.worktrees.repoRoot(o.repo);
    const cfgPath = configPath(root);
    if (existsSync(cfgPath)) {
      throw new FeatureError('config', 'the project is already initialized (its features config exists); edit that file, or delete it to initialize again', { path: cfgPath });
    }
    const repoName = basename(root);
    const facts = await gatherRepo(root);
    const detected = detectFromRepo(facts);
    // No config yet: the default override folder (.flightdeck/prompts) still applies.
    const templates = this.templates(root, defaultConfig());
    const ctx = { repo_name: repoName, repo_tree: formatTree(facts.paths, TREE_MAX_ENTRIES), file_samples: facts.samples, detected_checks: detected.checks };
    const analyzePrompt = templates.render('init/analyze_repo', ctx);
    const base = { root, ...(o.projectId ? { projectId: o.projectId } : {}), executor: o.executor, ...(o.profile ? { profile: o.profile } : {}), ...(o.model ? { model: o.model } : {}) };

    // The setup's standing brief is each session's instructions (its system prompt), the step the message.
    const instructions = templates.render('init/system', ctx);
    // Init's agents change nothing in the checkout (Flightdeck writes init's own files from their answer):
    // file tools refused, commands in a read-only sandbox — a yolo Coder once left a stray file in the user's checkout.
    const planner = this.o.driver.createSession({ ...base, role: 'planner', instructions, title: `Init ${repoName}: analysis`, readOnly: true });
    const analysisTurn = await this.o.driver.runTurn(planner.id, analyzePrompt, { ...(o.signal ? { signal: o.signal } : {}) });
    requireCompleted(analysisTurn, 'The repository analysis');
    const analysis = analysisTurn.finalText.trim();

    const setupPrompt = templates.render('init/setup_project', { ...ctx, analysis: analysis === '' ? '(the analysis came back empty)' : analysis });
    // The Coder role runs with approvals bypassed as the workflow's agent profiles do (its role guard still
    // blocks the dangerous commands); it is told to change nothing, Flightdeck writes the files.
    const coder = this.o.driver.createSession({ ...base, role: 'coder', mode: 'yolo', instructions, title: `Init ${repoName}: setup`, readOnly: true });
    const setupTurn = await this.o.driver.runTurn(coder.id, setupPrompt, { ...(o.signal ? { signal: o.signal } : {}) });
    requireCompleted(setupTurn, 'The project setup');

    const built = buildInitConfig(detected, taggedBlock(setupTurn.text, 'config_yml'), cfgPath);
    const notes = [...built.notes];
    let overview = taggedBlock(setupTurn.text, 'overview_md') ?? '';
    if (overview.length < MIN_OVERVIEW_CHARS) {
      notes.push('the agent gave no usable overview (no <overview_md> block): wrote one from the analysis');
      overview = fallbackOverview(repoName, detected, analysis);
    }
    if (existsSync(cfgPath)) notes.push('replaced the config.yml the agent wrote during setup with the validated one');
    const overviewPath = join(root, FEATURES_DIR, OVERVIEW_FILE);
    const files: InitFile[] = [
      { path: cfgPath, text: built.text },
      { path: overviewPath, text: overview.endsWith('\n') ? overview : `${overview}\n` },
      { path: join(root, '.gitignore'), text: `${TREES_DIR}/ (appended unless it is already ignored)\n` },
    ];
    if (o.confirm && !(await o.confirm(files))) throw new FeatureError('config', 'nothing was written: the proposed files were declined');
    try {
      // No symlink below the repository on the way (a committed `.flightdeck` link would write elsewhere).
      writeFileInside(root, cfgPath, built.text, REPO_FILE_MODE);
      writeFileInside(root, overviewPath, overview.endsWith('\n') ? overview : `${overview}\n`, REPO_FILE_MODE);
      mkdirInside(root, join(root, TREES_DIR));
    } catch (e) {
      if (e instanceof UnsafePathError) throw new FeatureError('config', `refusing to write the features config: ${e.message}`, { path: e.offender }, { cause: e });
      throw ioError(join(root, FEATURES_DIR), 'write the features config', e);
    }
    const gitignoreUpdated = await this.o.worktrees.ignoreTrees(root);
    return { root, configPath: cfgPath, overviewPath, checks: built.config.checks, gitignoreUpdated, sessionIds: [planner.id, coder.id], notes };
  }

  // ---- what setup left untracked ----------------------------------------------------------------

  /** The ignore rules offered for what the feature worktree's setup created (once per repository). */
  async setupIgnoreOffer(repo: string, slug: string): Promise<string[]> {
    const d = await this.o.worktrees.inspect(repo, slug);
    return d.missing ? [] : pendingIgnoreOffer(d.path);
  }

  /** The user's answer to the offer: add the rules to .gitignore, or not; either way it is not made again. */
  async answerSetupIgnoreOffer(repo: string, slug: string, add: boolean): Promise<string[]> {
    const root = await this.o.worktrees.repoRoot(repo);
    const d = await this.o.worktrees.inspect(root, slug);
    if (d.missing) return [];
    const patterns = await pendingIgnoreOffer(d.path);
    await markOffered(d.path, patterns);
    return add ? addIgnoreRules(root, patterns) : [];
  }

  // ---- plan -------------------------------------------------------------------------------------

  /** Refuses a slug that is invalid or already a feature, a worktree or a branch. */
  private async checkNewFeature(root: string, slug: string, config: FeaturesConfig): Promise<void> {
    validateSlug(slug);
    // A committed `.flightdeck` or `.flightdeck/<slug>` symlink: the specs and state would be written through it.
    try {
      checkInside(root, join(root, FEATURES_DIR, slug, STATE_FILE));
    } catch (e) {
      if (e instanceof UnsafePathError) throw new FeatureError('plan', `refusing to plan "${slug}": ${e.message}`, { path: e.offender }, { cause: e });
      throw e;
    }
    const existing = (await findFeature(root, slug)).feature;
    if (existing) throw new FeatureError('plan', `the feature "${slug}" already exists (${existing.source})`, { path: existing.statePath });
    const tree = join(root, TREES_DIR, slug);
    if (existsSync(tree)) throw new FeatureError('plan', `the worktree folder ${TREES_DIR}/${slug} already exists: choose another slug, or remove that worktree first`, { path: tree });
    const branch = `${config.git.branch_prefix}/${slug}`;
    if (await this.gitOps.branchExists(root, branch)) {
      throw new FeatureError('plan', `the branch ${branch} already exists: choose another slug, or delete that branch first`);
    }
  }

  async startPlan(o: { repo: string; projectId: string; slug: string } & AgentChoice): Promise<PlanDraft> {
    const root = await this.o.worktrees.repoRoot(o.repo);
    const config = await this.loadTrusted(root);
    await this.checkNewFeature(root, o.slug, config);
    const open = this.openDraftFor(root, o.slug);
    if (open) throw new AppError('conflict', `The feature "${o.slug}" is already being planned (draft ${open.draft.id}); continue that one or discard it.`, { draftId: open.draft.id });
    // The Planner's standing brief (its role, how to discuss, the /approve contract) is the
    // session's instructions: in the system prompt of every turn, never in a chat message.
    const instructions = this.templates(root, config).render('plan/system', await planContextOf(root, o.slug));
    const session = this.o.driver.createSession({
      root,
      projectId: o.projectId,
      role: 'planner',
      instructions,
      executor: o.executor,
      ...(o.profile ? { profile: o.profile } : {}),
      ...(o.model ? { model: o.model } : {}),
      title: `Plan: ${o.slug}`,
    });
    const at = this.now().getTime();
    const stored: StoredDraft = {
      draft: { id: newDraftId(), projectId: o.projectId, slug: o.slug, sessionId: session.id, executor: o.executor, status: 'discussing', revision: null, error: null, createdAt: at, updatedAt: at },
      root,
      profile: o.profile ?? null,
      model: o.model ?? null,
      messagesSent: 0,
      revisions: [],
    };
    this.save(stored);
    return stored.draft;
  }

  /**
   * Planning from a forge issue: the issue (through gh) names the feature and is the Planner's
   * first message; the draft records it, and so does the feature once approved. Returns the
   * message for the caller to send (the CLI waits for the answer, the app streams it).
   */
  async startPlanFromIssue(o: { repo: string; projectId: string; issue: string; slug?: string | undefined } & AgentChoice): Promise<{ draft: PlanDraft; issue: ForgeIssueDetail; message: string }> {
    const root = await this.o.worktrees.repoRoot(o.repo);
    const found = await this.ghOps().issueView(root, o.issue);
    if (!found.ok) throw new AppError('unavailable', found.reason === 'not_installed' ? GH_ISSUES_MESSAGE : found.message, { reason: found.reason === 'not_installed' ? 'gh_missing' : 'gh_failed' });
    const issue = found.value;
    const draft = await this.startPlan({ repo: root, projectId: o.projectId, slug: o.slug ?? slugFromIssue(issue), executor: o.executor, profile: o.profile, model: o.model });
    const stored = this.stored(draft.id);
    this.save({ ...stored, issue: { number: issue.number, url: issue.url, title: issue.title } });
    return { draft, issue, message: issuePlanningInput(issue) };
  }

  /** Open issues of the repository's forge, to pick one to plan from. */
  async listIssues(repo: string, filter: { label?: string | undefined; assignee?: string | undefined }): Promise<ForgeIssue[]> {
    const root = await this.o.worktrees.repoRoot(repo);
    const found = await this.ghOps().issueList(root, { ...(filter.label ? { label: filter.label } : {}), ...(filter.assignee ? { assignee: filter.assignee } : {}) });
    if (!found.ok) throw new AppError('unavailable', found.reason === 'not_installed' ? GH_ISSUES_MESSAGE : found.message, { reason: found.reason === 'not_installed' ? 'gh_missing' : 'gh_failed' });
    return found.value;
  }

  private ghOps(): GhOps {
    return this.o.gh ?? new DefaultGhOps();
  }

  /** The open (not approved, not discarded) draft of a feature, if any. */
  openDraftFor(root: string, slug: string): StoredDraft | undefined {
    return this.drafts.all().find((d) => d.root === root && d.draft.slug === slug && OPEN_STATUSES.has(d.draft.status));
  }

  list(projectId?: string): PlanDraft[] {
    return this.drafts
      .all()
      .filter((d) => OPEN_STATUSES.has(d.draft.status) && (projectId === undefined || d.draft.projectId === projectId))
      .map((d) => d.draft);
  }

  get(draftId: string): { draft: PlanDraft; current: PlanRevision | null; previous: PlanRevision | null } {
    const d = this.stored(draftId);
    const current = d.revisions.at(-1) ?? null;
    const previous = current?.basedOn ? (d.revisions.find((r) => r.number === current.basedOn) ?? null) : null;
    return { draft: d.draft, current, previous };
  }

  async send(draftId: string, message: string, o: { signal?: AbortSignal } = {}): Promise<TurnReport> {
    return this.exclusive(draftId, async (d) => {
      requireOpen(d);
      const report = await this.o.driver.runTurn(d.draft.sessionId, message, o);
      this.save({ ...d, messagesSent: d.messagesSent + 1 });
      return report;
    });
  }

  /** `/approve`: the Planner writes the design spec, then the verification plan; the next revision. */
  async approveDraft(draftId: string, o: { signal?: AbortSignal } = {}): Promise<{ draft: PlanDraft; revision: PlanRevision }> {
    return this.exclusive(draftId, async (d) => {
      requireOpen(d);
      return this.generate(d, o, async (templates, context) => ({ prompt: templates.render('plan/approve', context), comments: [] }));
    });
  }

  async requestChanges(
    draftId: string,
    input: { revision: number; comments: PlanComment[]; designMd?: string | undefined; verificationMd?: string | undefined },
    o: { signal?: AbortSignal } = {},
  ): Promise<{ draft: PlanDraft; revision: PlanRevision }> {
    return this.exclusive(draftId, async (d) => {
      requireOpen(d);
      const current = requireCurrent(d, input.revision);
      const designMd = input.designMd ?? current.designMd;
      const verificationMd = input.verificationMd ?? current.verificationMd;
      const edited = designMd !== current.designMd || verificationMd !== current.verificationMd;
      return this.generate(d, o, async (templates, context) => ({
        reviewed: edited ? { designMd, verificationMd } : null,
        prompt: templates.render('plan/revise', {
          ...context,
          revision: current.number,
          comments: input.comments.map((c) => ({ doc: c.anchor ? (c.anchor.doc === 'design' ? 'design spec' : 'verification plan') : null, quote: c.anchor?.quote ?? null, text: c.text })),
          design_spec: designMd,
          verification_plan: verificationMd,
          edited,
        }),
        comments: input.comments,
      }));
    });
  }

  /** Approve a revision = finalize with the documents and phases as the user left them. */
  async approve(
    draftId: string,
    input: { revision: number; designMd: string; verificationMd: string; phases: readonly string[]; agent: RunAgent },
  ): Promise<{ draft: PlanDraft; feature: FinalizedFeature }> {
    return this.exclusive(draftId, async (d) => {
      requireOpen(d);
      if (d.draft.status !== 'review') throw new FeatureError('plan', 'there is no plan to approve yet: ask the Planner to write it (/approve) first');
      requireCurrent(d, input.revision);
      const feature = await this.finalize({ repo: d.root, slug: d.draft.slug, designMd: input.designMd, verificationMd: input.verificationMd, phases: input.phases, agent: input.agent, issue: d.issue ?? null });
      const next = this.save({ ...d, draft: { ...d.draft, status: 'approved', error: null } });
      return { draft: next.draft, feature };
    });
  }

  async discard(draftId: string): Promise<PlanDraft> {
    return this.exclusive(draftId, async (d) => {
      requireOpen(d);
      const draft: PlanDraft = { ...d.draft, status: 'discarded', updatedAt: this.now().getTime() };
      this.drafts.remove(d.draft.id);
      this.o.hub?.publish('features.plan.changed', { draft });
      return draft;
    });
  }

  // ---- finalize ---------------------------------------------------------------------------------

  /**
   * Worktree and branch `<branch_prefix>/<slug>`, the two specs and state.yml under
   * `.flightdeck/<slug>/` in it, one commit. A failure after the worktree was made removes it
   * again (archived first, as every removal), so a retry starts clean.
   */
  async finalize(o: FinalizeInput): Promise<FinalizedFeature> {
    const root = await this.o.worktrees.repoRoot(o.repo);
    const config = await loadConfig(root);
    const phases = namePhases(o.phases.map((p) => p.trim()).filter((p) => p !== ''));
    if (phases.length === 0) throw new FeatureError('plan', `${NO_PHASES_MESSAGE}; add them to the spec or list them when approving`);
    if (o.designMd.trim() === '') throw new FeatureError('plan', 'the design spec is empty');
    if (o.verificationMd.trim() === '') throw new FeatureError('plan', 'the verification plan is empty');
    await this.checkNewFeature(root, o.slug, config);
    const created = await this.o.worktrees.create(root, o.slug, {
      ...(config.git.base_branch === 'auto' ? {} : { base: config.git.base_branch }),
      branchPrefix: config.git.branch_prefix,
    });
    const branch = created.entry.branch ?? `${config.git.branch_prefix}/${o.slug}`;
    const tree = created.entry.path;
    const featureDir = join(tree, FEATURES_DIR, o.slug);
    const statePath = join(featureDir, STATE_FILE);
    try {
      try {
        // The worktree holds the repository's committed files: a `.flightdeck/<slug>` (or `specs`)
        // symlink there would make these writes land wherever it points. Refused, naming it.
        writeFileInside(tree, join(featureDir, 'specs', 'design.md'), withNewline(o.designMd), REPO_FILE_MODE);
        writeFileInside(tree, join(featureDir, 'specs', 'verification.md'), withNewline(o.verificationMd), REPO_FILE_MODE);
        if (o.issue) writeFileInside(tree, join(featureDir, ISSUE_FILE), formatIssueRecord(o.issue), REPO_FILE_MODE);
      } catch (e) {
        if (e instanceof UnsafePathError) throw new FeatureError('plan', `refusing to write the specs: ${e.message}`, { path: e.offender }, { cause: e });
        throw ioError(featureDir, 'write the specs', e);
      }
      const state = newFeatureState({
        slug: o.slug,
        now: this.now(),
        worktreePath: `${TREES_DIR}/${o.slug}`,
        branch,
        baseBranch: created.base,
        devPhases: phases.map((p) => p.name),
        devPhaseTitles: phases.map((p) => p.title),
        agent: o.agent,
      });
      writeState(statePath, state);
      try {
        await this.gitOps.commit(tree, planCommitMessage(o.slug), [recordPath(o.slug)]);
      } catch (e) {
        throw new FeatureError('git', `could not commit the planning artifacts: ${e instanceof Error ? e.message : String(e)}`, {}, { cause: e });
      }
      const commit = (await git(['rev-parse', 'HEAD'], { cwd: tree })).trim();
      // What the runs will use whatever the worktree's state.yml says later (the agent can write it).
      if (state.agent) this.o.approvals?.record(root, o.slug, state.agent);
      return { slug: o.slug, worktreePath: tree, branch, baseBranch: created.base, commit, statePath, phases: state.phases.map((p) => p.name) };
    } catch (e) {
      await this.o.worktrees.remove(root, o.slug, { force: true, branchPrefix: config.git.branch_prefix }).catch((removeError: unknown) => {
        // The original failure is what the user must see; the leftover worktree is named in the log
        // and is refused by the next attempt with a message saying to remove it.
        this.o.log?.warn('could not remove the worktree of a failed finalize', { root, slug: o.slug, error: removeError });
      });
      throw e;
    }
  }

  // ---- internals --------------------------------------------------------------------------------

  private stored(draftId: string): StoredDraft {
    const d = this.drafts.get(draftId);
    if (!d) throw new AppError('not_found', `There is no plan draft ${draftId} (it was discarded, or planned with another data folder).`, { draftId });
    return d;
  }

  private async exclusive<T>(draftId: string, fn: (d: StoredDraft) => Promise<T>): Promise<T> {
    const d = this.stored(draftId);
    if (this.busy.has(draftId)) throw new AppError('conflict', 'The Planner is still working on this plan; wait for it to finish.', { draftId });
    this.busy.add(draftId);
    try {
      return await fn(d);
    } finally {
      this.busy.delete(draftId);
    }
  }

  private save(d: StoredDraft): StoredDraft {
    const next: StoredDraft = { ...d, draft: { ...d.draft, updatedAt: this.now().getTime() } };
    this.drafts.save(next);
    this.o.hub?.publish('features.plan.changed', { draft: next.draft });
    return next;
  }

  /** The project's config through workspace trust: callers never use its executable parts directly. */
  private async loadTrusted(root: string): Promise<FeaturesConfig> {
    const config = await loadConfig(root);
    return this.o.trustedConfig ? this.o.trustedConfig(root, config) : config;
  }

  private async projectSetup(root: string): Promise<{ config: FeaturesConfig; templates: PromptTemplates }> {
    const config = await this.loadTrusted(root);
    return { config, templates: this.templates(root, config) };
  }

  private async planContext(d: StoredDraft): Promise<Record<string, unknown>> {
    return planContextOf(d.root, d.draft.slug);
  }

  /** Runs the design turn (`make` builds its prompt) and the verification turn; saves the revision. */
  private async generate(
    d: StoredDraft,
    o: { signal?: AbortSignal },
    make: (t: PromptTemplates, context: Record<string, unknown>) => Promise<{ prompt: string; comments: PlanComment[]; reviewed?: PlanRevision['reviewed'] }>,
  ): Promise<{ draft: PlanDraft; revision: PlanRevision }> {
    const { config, templates } = await this.projectSetup(d.root);
    const context = await this.planContext(d);
    const { prompt, comments, reviewed = null } = await make(templates, context);
    const before = d.draft.status;
    let cur = this.save({ ...d, draft: { ...d.draft, status: 'generating', error: null } });
    try {
      const design = await this.turn(cur, prompt, o, 'The design spec');
      cur = { ...cur, messagesSent: cur.messagesSent + 1 };
      const verification = await this.turn(cur, templates.render('plan/verification', { ...context, design_spec: design, checks: config.checks }), o, 'The verification plan');
      cur = { ...cur, messagesSent: cur.messagesSent + 1 };
      const extraction = extractPhases(design);
      const last = cur.revisions.at(-1) ?? null;
      const revision: PlanRevision = {
        number: (last?.number ?? 0) + 1,
        designMd: design,
        verificationMd: verification,
        phases: extraction.phases,
        phasesFound: extraction.found,
        basedOn: last?.number ?? null,
        comments,
        reviewed,
        createdAt: this.now().getTime(),
      };
      const saved = this.save({ ...cur, revisions: [...cur.revisions, revision], draft: { ...cur.draft, status: 'review', revision: revision.number, error: null } });
      return { draft: saved.draft, revision };
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.save({ ...cur, draft: { ...cur.draft, status: before === 'generating' ? 'discussing' : before, error: message } });
      throw e;
    }
  }

  private async turn(d: StoredDraft, prompt: string, o: { signal?: AbortSignal }, what: string): Promise<string> {
    const r = await this.o.driver.runTurn(d.draft.sessionId, prompt, o);
    requireCompleted(r, what);
    const doc = unwrapDocument(r.finalText);
    if (doc.trim() === '') throw new FeatureError('agent', `${what} came back empty; ask the Planner again`);
    return doc;
  }
}

function requireCompleted(r: TurnReport, what: string): void {
  if (r.outcome === 'completed') return;
  throw new FeatureError('agent', `${what} did not complete (${r.outcome}${r.message ? `: ${r.message}` : ''}); nothing was written`);
}

function requireOpen(d: StoredDraft): void {
  if (!OPEN_STATUSES.has(d.draft.status)) throw new AppError('conflict', `The plan of "${d.draft.slug}" is already ${d.draft.status}.`, { draftId: d.draft.id });
}

function requireCurrent(d: StoredDraft, revision: number): PlanRevision {
  const current = d.revisions.at(-1);
  if (!current) throw new FeatureError('plan', 'there is no revision yet: ask the Planner to write the plan (/approve) first');
  if (current.number !== revision) {
    throw new AppError('conflict', `Revision ${revision} is not the newest (${current.number} is): review revision ${current.number} first.`, { revision, newest: current.number });
  }
  return current;
}

function withNewline(s: string): string {
  return s.endsWith('\n') ? s : `${s}\n`;
}

/** The variables of the plan templates: the feature, the repository and its overview (bounded). */
async function planContextOf(root: string, slug: string): Promise<Record<string, unknown>> {
  let overview = '';
  try {
    overview = (await readFileNoWaitAsync(join(root, FEATURES_DIR, OVERVIEW_FILE), 'utf8')).slice(0, OVERVIEW_MAX_CHARS);
  } catch {
    // No overview (init skipped it or the user deleted it): the Planner explores without one.
  }
  return { slug, repo_name: basename(root), overview };
}
