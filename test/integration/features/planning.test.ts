/**
 * init, plan chat → /approve → request changes → approve (finalize) against real repositories
 * with a bare origin, the real services and the scripted model server, through the bridge's
 * channels as the app uses them.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { FinalizedFeature, PlanDraft, PlanRevision } from '../../../src-preload/contract';
import { AppServices } from '../../../src-main/app/services';
import { loadConfig } from '../../../src-main/features/config';
import { silentLogger } from '../../../src-main/platform/logger';
import { findFeature } from '../../../src-main/features/scanner';
import { readState } from '../../../src-main/features/state';
import { gitIn, tempDir } from '../../support/temp';
import { call, DESIGN_SPEC, planningHarness, repoWithOrigin, VERIFICATION_PLAN, type PlanningHarness } from './support';
import { DefaultGitOps, type GitOps } from '../../../src-main/features/git-ops';
import { PlanningService } from '../../../src-main/features/planning-service';
import { WorktreeManager } from '../../../src-main/worktrees/worktree-manager';

let h: PlanningHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

const SETUP_ANSWER = `Here is the setup.

<config_yml>
checks:
  - "npm test"
  - "npm run -s typecheck"
worktree:
  setup: ["npm ci"]
</config_yml>

<overview_md>
# sample

A sample project exporting the answer. Tests run with vitest (npm test).
</overview_md>`;

/** A recorded request's system prompt, as text (a string or content blocks). */
function systemOf(body: unknown): string {
  return JSON.stringify((body as { system?: unknown }).system ?? '');
}

/** A recorded request's chat messages, as text. */
function messagesOf(body: unknown): string {
  return JSON.stringify((body as { messages?: unknown }).messages ?? []);
}

/** Repository state outside .git and .trees: what "nothing written before approval" compares. */
function repoSnapshot(repo: string): string {
  return [gitIn(repo, 'status', '--porcelain', '--ignored'), gitIn(repo, 'branch', '--list'), gitIn(repo, 'worktree', 'list', '--porcelain')].join('\n---\n');
}

describe('feature init', () => {
  it('writes a validated config (detected checks merged with the proposal), the overview and the ignore entry; refuses a second time', async () => {
    h = await planningHarness([
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text', text: '## Purpose\nA sample project.' }] },
      { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'text', text: SETUP_ANSWER }] },
    ]);
    const r = await call<{ configPath: string; overviewPath: string; checks: string[]; gitignoreUpdated: boolean; sessionIds: string[]; notes: string[] }>(h.app, 'features.init', { projectId: h.projectId });
    expect(r.configPath).toBe(join(h.repo, '.flightdeck', 'config.yml'));
    // Detected from package.json first, then the model's additional check; duplicates merged.
    expect(r.checks).toEqual(['npm run -s lint', 'npm test', 'npm run -s typecheck']);
    const config = await loadConfig(h.repo);
    expect(config.checks).toEqual(r.checks);
    expect(config.worktree.setup).toEqual(['npm install', 'npm ci']);
    expect(readFileSync(r.overviewPath, 'utf8')).toContain('A sample project exporting the answer.');
    expect(readFileSync(join(h.repo, '.gitignore'), 'utf8')).toContain('.trees/');
    expect(r.gitignoreUpdated).toBe(true);
    expect(r.notes).toEqual([]);
    expect(r.sessionIds).toHaveLength(2);

    // The analysis went to a Planner (read-only tools), the setup to a Coder.
    const [analysis, setup] = h.server.mainRequests();
    const tools = (b: unknown) => ((b as { tools?: { name: string }[] }).tools ?? []).map((t) => t.name);
    expect(tools(analysis!.body)).not.toContain('write');
    expect(tools(analysis!.body)).not.toContain('bash');
    expect(tools(setup!.body)).toContain('bash');
    // The setup brief is both sessions' system prompt, not part of their messages.
    for (const r of [analysis!, setup!]) {
      expect(systemOf(r.body)).toContain('You are setting up Flightdeck');
      expect(messagesOf(r.body)).not.toContain('You are setting up Flightdeck');
    }
    // The prompt carried the repository's tree and its package.json.
    expect(analysis!.userText).toContain('index.js');
    expect(analysis!.userText).toContain('"test": "vitest run"');

    const before = readFileSync(r.configPath, 'utf8');
    await expect(call(h.app, 'features.init', { projectId: h.projectId })).rejects.toMatchObject({ message: expect.stringContaining('config error') });
    expect(readFileSync(r.configPath, 'utf8')).toBe(before);
    expect(h.server.mainRequests()).toHaveLength(2);
  });

  it('a poor answer still yields a valid config from what was detected, and says what it did not take', async () => {
    h = await planningHarness([
      { match: { userPattern: 'Step 1 of 2' }, blocks: [{ type: 'text', text: 'It is a JavaScript project with vitest tests.' }] },
      { match: { userPattern: 'Step 2 of 2' }, blocks: [{ type: 'text', text: 'Sure! <config_yml>checks: npm test\nagent: [broken</config_yml> Hope this helps.' }] },
    ]);
    const r = await call<{ checks: string[]; notes: string[]; overviewPath: string }>(h.app, 'features.init', { projectId: h.projectId });
    expect(r.checks).toEqual(['npm run -s lint', 'npm test']);
    expect((await loadConfig(h.repo)).checks).toEqual(r.checks);
    expect(r.notes.join('\n')).toMatch(/not valid YAML|ignored the agent's checks/);
    expect(r.notes.join('\n')).toContain('no usable overview');
    expect(readFileSync(r.overviewPath, 'utf8')).toContain('It is a JavaScript project with vitest tests.');
  });

  it('an agent failure writes nothing', async () => {
    h = await planningHarness([{ fault: { kind: 'status', status: 400, message: 'bad request from the test' }, times: 3 }]);
    await expect(call(h.app, 'features.init', { projectId: h.projectId })).rejects.toMatchObject({ message: expect.stringContaining('agent error') });
    expect(existsSync(join(h.repo, '.flightdeck'))).toBe(false);
    expect(existsSync(join(h.repo, '.gitignore'))).toBe(false);
  });
});

/** init without the model: the config as a user would write it by hand. */
function initByHand(hh: Pick<PlanningHarness, 'repo'>): void {
  mkdirSync(join(hh.repo, '.flightdeck'), { recursive: true });
  writeFileSync(join(hh.repo, '.flightdeck', 'config.yml'), 'checks: ["npm test"]\n');
  writeFileSync(join(hh.repo, '.flightdeck', 'overview.md'), '# sample\nOVERVIEW-MARKER\n');
  writeFileSync(join(hh.repo, '.gitignore'), '.trees/\n');
  gitIn(hh.repo, 'add', '.flightdeck', '.gitignore');
  gitIn(hh.repo, 'commit', '-q', '-m', 'flightdeck config');
}

const REVISED_SPEC = DESIGN_SPEC.replace('### Phase 2: Login endpoint', '### Phase 2: Rate limiting\nFive tries a minute.\n\n### Phase 3: Login endpoint');

describe('feature plan with the built-in executor', () => {
  const executor = 'builtin';
  it('chat → /approve → request changes → approve: nothing in the repository before, one commit after', async () => {
    h = await planningHarness([
      { match: { userPattern: 'I want users to log in' }, blocks: [{ type: 'text', text: 'Password or OAuth?' }] },
      { match: { userPattern: 'Password, please' }, blocks: [{ type: 'text', text: 'Then scrypt hashing and a login function.' }] },
      { match: { userPattern: 'approved the design we discussed' }, blocks: [{ type: 'text', text: `\`\`\`markdown\n${DESIGN_SPEC}\`\`\`` }] },
      { match: { userPattern: 'Address every comment below' }, blocks: [{ type: 'text', text: REVISED_SPEC }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }], times: 2 },
    ]);
    initByHand(h);
    const snapshot = repoSnapshot(h.repo);

    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'add-login', executor });
    expect(draft.status).toBe('discussing');
    expect(draft.executor).toBe(executor);
    const first = await call<{ outcome: string; text: string }>(h.app, 'features.plan.send', { draftId: draft.id, message: 'I want users to log in' });
    expect(first).toMatchObject({ outcome: 'completed', text: 'Password or OAuth?' });
    // The Planner's brief and the project overview are in the system prompt; the first chat
    // message is exactly what the user typed.
    const firstRequest = h.server.mainRequests()[0]!;
    expect(systemOf(firstRequest.body)).toContain('You are the Planner of Flightdeck');
    expect(systemOf(firstRequest.body)).toContain('OVERVIEW-MARKER');
    expect(firstRequest.userText).toBe('I want users to log in');
    expect(messagesOf(firstRequest.body)).not.toContain('You are the Planner of Flightdeck');
    expect((await call<{ text: string }>(h.app, 'features.plan.send', { draftId: draft.id, message: 'Password, please' })).text).toContain('scrypt');

    const v1 = await call<{ draft: PlanDraft; revision: PlanRevision }>(h.app, 'features.plan.approveDraft', { draftId: draft.id });
    expect(v1.draft.status).toBe('review');
    expect(v1.revision).toMatchObject({ number: 1, basedOn: null, phasesFound: true, designMd: DESIGN_SPEC, verificationMd: VERIFICATION_PLAN });
    expect(v1.revision.phases.map((p) => p.name)).toEqual(['password-hashing', 'login-endpoint']);
    expect(repoSnapshot(h.repo)).toBe(snapshot);

    const v2 = await call<{ draft: PlanDraft; revision: PlanRevision }>(h.app, 'features.plan.requestChanges', {
      draftId: draft.id,
      revision: 1,
      comments: [
        { anchor: { doc: 'design', quote: 'Check the hash.', offset: DESIGN_SPEC.indexOf('Check the hash.') }, text: 'Add rate limiting before this.' },
        { text: 'Keep it small overall.' },
      ],
      designMd: `${DESIGN_SPEC}\nUSER-EDIT on the approval screen.\n`,
    });
    expect(v2.revision).toMatchObject({ number: 2, basedOn: 1, phasesFound: true });
    expect(v2.revision.phases.map((p) => p.title)).toEqual(['Password hashing', 'Rate limiting', 'Login endpoint']);
    const revisePrompt = h.server.mainRequests().find((r) => r.userText?.includes('Address every comment below'))!.userText!;
    expect(revisePrompt).toContain('> Check the hash.');
    expect(revisePrompt).toContain('Add rate limiting before this.');
    expect(revisePrompt).toContain('on the whole plan');
    expect(revisePrompt).toContain('Keep it small overall.');
    expect(revisePrompt).toContain('<design_spec revision="1">');
    expect(revisePrompt).toContain('USER-EDIT on the approval screen.');
    expect(revisePrompt).toContain('the user edited the documents');
    // The diff of revision 2 is against what the user reviewed: their edit included.
    expect(v2.revision.reviewed).toEqual({ designMd: `${DESIGN_SPEC}\nUSER-EDIT on the approval screen.\n`, verificationMd: VERIFICATION_PLAN });
    expect(v1.revision.reviewed).toBeNull();
    const got = await call<{ current: PlanRevision; previous: PlanRevision }>(h.app, 'features.plan.get', { draftId: draft.id });
    expect(got.current.number).toBe(2);
    expect(got.previous.number).toBe(1);
    expect(repoSnapshot(h.repo)).toBe(snapshot);

    // Revision 1 is no longer approvable: every revision is approved on its own.
    await expect(call(h.app, 'features.plan.approve', { draftId: draft.id, revision: 1, designMd: DESIGN_SPEC, verificationMd: VERIFICATION_PLAN, phases: ['a'], executor })).rejects.toMatchObject({ code: 'conflict' });

    const edited = `${v2.revision.designMd}\nEdited on the approval screen.\n`;
    const done = await call<{ draft: PlanDraft; feature: FinalizedFeature }>(h.app, 'features.plan.approve', {
      draftId: draft.id,
      revision: 2,
      designMd: edited,
      verificationMd: v2.revision.verificationMd,
      phases: ['Rate limiting', 'Password hashing', 'Login endpoint'],
      executor,
      model: 'glm-4.7',
      agentMode: 'yolo',
    });
    expect(done.draft.status).toBe('approved');
    const f = done.feature;
    const tree = join(h.repo, '.trees', 'add-login');
    expect(f).toMatchObject({ slug: 'add-login', worktreePath: tree, branch: 'feature/add-login', baseBranch: 'main' });
    const dir = join(tree, '.flightdeck', 'add-login');
    expect(readFileSync(join(dir, 'specs', 'design.md'), 'utf8')).toBe(edited);
    expect(readFileSync(join(dir, 'specs', 'verification.md'), 'utf8')).toBe(VERIFICATION_PLAN);
    expect(gitIn(tree, 'log', '-1', '--format=%s')).toBe('feat(add-login): initialize planning artifacts\n');
    expect(gitIn(tree, 'rev-parse', 'HEAD').trim()).toBe(f.commit);
    expect(gitIn(tree, 'rev-parse', 'HEAD~1').trim()).toBe(gitIn(h.repo, 'rev-parse', 'main').trim());
    expect(gitIn(tree, 'show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      '.flightdeck/add-login/specs/design.md',
      '.flightdeck/add-login/specs/verification.md',
      '.flightdeck/add-login/state.yml',
    ]);
    expect(gitIn(tree, 'status', '--porcelain')).toBe('');

    const state = await readState(join(dir, 'state.yml'));
    expect(state.status).toBe('planned');
    expect(state.current_phase).toBe(0);
    expect(state.feature.slug).toBe('add-login');
    expect(state.git).toEqual({ worktree_path: '.trees/add-login', branch: 'feature/add-login', base_branch: 'main' });
    expect(state.phases.map((p) => [p.name, p.kind, p.status])).toEqual([
      ['rate-limiting', 'dev', 'pending'],
      ['password-hashing', 'dev', 'pending'],
      ['login-endpoint', 'dev', 'pending'],
      ['review', 'quality', 'pending'],
      ['verify', 'quality', 'pending'],
    ]);
    expect(state.phases[0]!.details).toEqual({ title: 'Rate limiting' });
    expect(state.pr).toBeNull();
    expect(state.total).toEqual({ turns: 0, cost_usd: 0, duration_secs: 0, cost: { input_tokens: 0, output_tokens: 0 } });
    expect(state.agent).toEqual({ executor, profile: null, model: 'glm-4.7', mode: 'yolo' });
    expect((await findFeature(h.repo, 'add-login')).feature).toMatchObject({ source: 'active', state: { status: 'planned' } });
    // The main checkout is unchanged: the feature lives on its branch.
    expect(gitIn(h.repo, 'status', '--porcelain')).toBe('');
    expect((await call<{ drafts: PlanDraft[] }>(h.app, 'features.plan.list', { projectId: h.projectId })).drafts).toEqual([]);
    expect(h.server.pendingTurns()).toBe(0);
    // Planning the same slug again is refused.
    await expect(call(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'add-login', executor })).rejects.toMatchObject({ message: expect.stringContaining('already exists') });
  }, 180_000);
});

describe('feature plan with the Claude Code executor', () => {
  // The review loop is the same service code whichever executor plays the Planner (tested above);
  // here: the chat resumes one Claude Code session, /approve writes both documents, approve finalizes.
  it('chat → /approve → approve through the real claude CLI', async () => {
    h = await planningHarness([
      { match: { userPattern: 'I want users to log in' }, blocks: [{ type: 'text', text: 'Password or OAuth?' }] },
      { match: { userPattern: 'approved the design we discussed' }, blocks: [{ type: 'text', text: DESIGN_SPEC }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }] },
    ]);
    initByHand(h);
    const snapshot = repoSnapshot(h.repo);
    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'add-login', executor: 'claude-code' });
    expect(h.app.agents.getSession(draft.sessionId).executor).toBe('claude-code');
    expect((await call<{ text: string }>(h.app, 'features.plan.send', { draftId: draft.id, message: 'I want users to log in' })).text).toBe('Password or OAuth?');
    const v1 = await call<{ revision: PlanRevision }>(h.app, 'features.plan.approveDraft', { draftId: draft.id });
    expect(v1.revision).toMatchObject({ number: 1, designMd: DESIGN_SPEC, verificationMd: VERIFICATION_PLAN, phasesFound: true });
    // The same Claude Code session was resumed: the /approve request carries the chat before it.
    const approveRequest = h.server.mainRequests().find((r) => r.userText?.includes('approved the design we discussed'))!;
    expect(JSON.stringify(approveRequest.body)).toContain('Password or OAuth?');
    // The Planner's brief is in Claude Code's system prompt on every turn, never a chat message.
    for (const r of [h.server.mainRequests()[0]!, approveRequest]) {
      expect(systemOf(r.body)).toContain('You are the Planner of Flightdeck');
      expect(messagesOf(r.body)).not.toContain('You are the Planner of Flightdeck');
    }
    expect(repoSnapshot(h.repo)).toBe(snapshot);
    const done = await call<{ feature: FinalizedFeature }>(h.app, 'features.plan.approve', {
      draftId: draft.id,
      revision: 1,
      designMd: v1.revision.designMd,
      verificationMd: v1.revision.verificationMd,
      phases: v1.revision.phases.map((p) => p.title),
      executor: 'claude-code',
    });
    expect(done.feature.phases).toEqual(['password-hashing', 'login-endpoint', 'review', 'verify']);
    const state = await readState(done.feature.statePath);
    // Unattended by default (issue 21): a headless run never stops at its first command.
    expect(state.agent).toEqual({ executor: 'claude-code', profile: null, model: null, mode: 'yolo' });
    expect(gitIn(done.feature.worktreePath, 'log', '-1', '--format=%s').trim()).toBe('feat(add-login): initialize planning artifacts');
  }, 180_000);
});

describe('feature plan drafts', () => {
  it('a spec without development phases is reported as such and cannot be approved as it is; discard leaves nothing', async () => {
    h = await planningHarness([
      { match: { userPattern: 'approved the design we discussed' }, blocks: [{ type: 'text', text: '# x\n\n## Design\n\n### Step 1: do it\n' }] },
      { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }] },
    ]);
    initByHand(h);
    const snapshot = repoSnapshot(h.repo);
    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'no-phases' });
    const v1 = await call<{ revision: PlanRevision }>(h.app, 'features.plan.approveDraft', { draftId: draft.id });
    expect(v1.revision.designMd).toContain('### Step 1: do it');
    expect(v1.revision.phasesFound).toBe(false);
    expect(v1.revision.phases).toEqual([]);
    // Without a phases list from the user, finalize refuses rather than guessing.
    await expect(
      call(h.app, 'features.plan.approve', { draftId: draft.id, revision: 1, designMd: v1.revision.designMd, verificationMd: VERIFICATION_PLAN, phases: [], executor: 'builtin' }),
    ).rejects.toMatchObject({ message: expect.stringContaining('plan error: the design spec has no development phases') });
    expect(repoSnapshot(h.repo)).toBe(snapshot);
    // Approving without chat: the brief is still in the system prompt of both turns, not in a message.
    for (const r of h.server.mainRequests()) {
      expect(systemOf(r.body)).toContain('You are the Planner of Flightdeck');
      expect(messagesOf(r.body)).not.toContain('You are the Planner of Flightdeck');
    }
    const discarded = await call<{ draft: PlanDraft }>(h.app, 'features.plan.discard', { draftId: draft.id });
    expect(discarded.draft.status).toBe('discarded');
    await expect(call(h.app, 'features.plan.get', { draftId: draft.id })).rejects.toMatchObject({ code: 'not_found' });
    expect(repoSnapshot(h.repo)).toBe(snapshot);
  });

  it("a trusted project's prompt overrides are used, and a broken one is a prompt error with its file and line", async () => {
    h = await planningHarness(
      [
        { match: { userPattern: 'CUSTOM-APPROVE add-login' }, blocks: [{ type: 'text', text: DESIGN_SPEC }] },
        { match: { userPattern: 'Now write the verification plan' }, blocks: [{ type: 'text', text: VERIFICATION_PLAN }] },
      ],
      { repositoryTemplates: () => true },
    );
    initByHand(h);
    const overrides = join(h.repo, '.flightdeck', 'prompts', 'plan');
    mkdirSync(overrides, { recursive: true });
    writeFileSync(join(overrides, 'approve.j2'), 'CUSTOM-APPROVE {{ slug }}\n');
    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'add-login' });
    const v1 = await call<{ revision: PlanRevision }>(h.app, 'features.plan.approveDraft', { draftId: draft.id });
    expect(v1.revision.phasesFound).toBe(true);
    writeFileSync(join(overrides, 'revise.j2'), 'fine line\n{{ comments | nosuchfilter }}\n');
    const err = await call(h.app, 'features.plan.requestChanges', { draftId: draft.id, revision: 1, comments: [{ text: 'more' }] }).catch((e: unknown) => e as { message: string; details: { kind: string; path: string; line: number } });
    expect(err).toMatchObject({ details: { kind: 'prompt', path: join(overrides, 'revise.j2'), line: 2 } });
    expect((err as { message: string }).message).toMatch(/^prompt error: .*revise\.j2:2: template "plan\/revise" failed to render/);
    // Nothing was asked of the model and the draft still offers revision 1.
    expect(h.server.mainRequests()).toHaveLength(2);
    expect((await call<{ draft: PlanDraft }>(h.app, 'features.plan.get', { draftId: draft.id })).draft).toMatchObject({ status: 'review', revision: 1 });
  });

  it('one operation per draft at a time: a second request while the Planner answers is refused', async () => {
    h = await planningHarness([{ match: { userPattern: 'slow question' }, fault: { kind: 'stall', ms: 1_500 }, blocks: [{ type: 'text', text: 'Slow answer.' }] }]);
    initByHand(h);
    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'busy' });
    const slow = call<{ text: string }>(h.app, 'features.plan.send', { draftId: draft.id, message: 'slow question' });
    await expect(call(h.app, 'features.plan.send', { draftId: draft.id, message: 'second' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(call(h.app, 'features.plan.discard', { draftId: draft.id })).rejects.toMatchObject({ code: 'conflict' });
    expect((await slow).text).toBe('Slow answer.');
  });

  it('a failed commit leaves no worktree or branch behind (the attempt is archived), and a retry succeeds', async () => {
    const r = repoWithOrigin();
    const data = tempDir('fd-plan-finalize-');
    try {
      initByHand({ repo: r.repo });
      const worktrees = new WorktreeManager();
      let failCommit = true;
      const gitOps = new DefaultGitOps();
      // The seed's GitOps seam: the real git, with the commit failing once as a full disk or a hook would.
      const flaky: GitOps = Object.assign(Object.create(gitOps) as GitOps, {
        commit: (cwd: string, message: string, paths?: readonly string[]) => (failCommit ? Promise.reject(new Error('simulated commit failure')) : gitOps.commit(cwd, message, paths)),
      });
      const noAgent = { createSession: () => { throw new Error('no agent in this test'); }, runTurn: () => Promise.reject(new Error('no agent in this test')) };
      const planning = new PlanningService({ dataDir: data.path, driver: noAgent, worktrees, git: flaky });
      const input = { repo: r.repo, slug: 'add-login', designMd: DESIGN_SPEC, verificationMd: VERIFICATION_PLAN, phases: ['Password hashing', 'Login endpoint'], agent: { executor: 'builtin' as const, profile: null, model: null, mode: 'auto-edit' as const } };
      await expect(planning.finalize(input)).rejects.toMatchObject({ kind: 'git', message: expect.stringContaining('simulated commit failure') });
      expect(existsSync(join(r.repo, '.trees', 'add-login'))).toBe(false);
      expect(gitIn(r.repo, 'branch', '--list', 'feature/add-login')).toBe('');
      expect(gitIn(r.repo, 'for-each-ref', '--format=%(refname)', 'refs/flightdeck/archive/')).toMatch(/^refs\/flightdeck\/archive\/add-login\//);
      failCommit = false;
      const f = await planning.finalize(input);
      expect(gitIn(f.worktreePath, 'log', '-1', '--format=%s').trim()).toBe('feat(add-login): initialize planning artifacts');
    } finally {
      r.cleanup();
      data.cleanup();
    }
  });

  it('drafts survive a restart of the app', async () => {
    h = await planningHarness([{ match: { userPattern: 'hello' }, blocks: [{ type: 'text', text: 'Hi.' }] }]);
    initByHand(h);
    const { draft } = await call<{ draft: PlanDraft }>(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'survivor' });
    await call(h.app, 'features.plan.send', { draftId: draft.id, message: 'hello' });
    h.app.dispose();
    const again = await AppServices.create({ dataDir: h.dataDir, logger: silentLogger, platform: { runtime: 'browser' } });
    try {
      const listed = (await call<{ drafts: PlanDraft[] }>(again, 'features.plan.list', {})).drafts;
      expect(listed.map((d) => [d.id, d.slug, d.sessionId, d.status])).toEqual([[draft.id, 'survivor', draft.sessionId, 'discussing']]);
    } finally {
      again.dispose();
      h.app = again; // cleanup disposes it again, which is harmless
    }
  });

  it('an invalid slug, an uninitialized project and an unknown draft are clear errors', async () => {
    h = await planningHarness([]);
    // A good slug in a project not set up for features: the config's error.
    await expect(call(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'good-slug' })).rejects.toMatchObject({ message: expect.stringContaining('config error') });
    // A bad slug is refused at the bridge, set up or not, with the rule's words.
    await expect(call(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'Bad_Slug' })).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('lowercase') });
    initByHand(h);
    await expect(call(h.app, 'features.plan.start', { projectId: h.projectId, slug: 'Bad_Slug' })).rejects.toMatchObject({ code: 'invalid_input', message: expect.stringContaining('lowercase') });
    await expect(call(h.app, 'features.plan.get', { draftId: 'plan-zzzzzzzz' })).rejects.toMatchObject({ code: 'not_found' });
  });
});
