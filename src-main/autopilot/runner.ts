/**
 * One autopilot run, driven through the state machine of ./state.ts: this file does the work
 * of each state (git, prompts, the acceptance command, plan edits) and reports what happened as
 * events; `transition` decides what comes next. Every state change is persisted (the worktree's
 * `state.json` and SQLite) before the next state starts, so a run killed at any point resumes
 * from where it was.
 */
import type { AutopilotIteration } from '../../src-preload/contract';
import type { Logger } from '../platform/logger';
import { runAcceptance, type AcceptanceTarget } from './acceptance';
import { summarizeReply, type AutopilotAgent, type TurnReportLike } from './agent';
import { addNote, blockNext, completeNext, formatProblem, newPlan, parsePlan, readSteps, validatePlan } from './plan';
import type { AutopilotPrompts } from './prompts';
import { appendLog, ensureRunDir, readGuard, writeGuard, writeStateFile } from './run-files';
import type { RunRecord, RunStore } from './run-store';
import { NO_STEP, transition, type AutopilotEffect, type AutopilotEvent, type PlanFacts, type RunState, type Transition } from './state';
import { changedBetween, collectFacts, commitAll, PLAN_FILE, readPlan, revertPaths, snapshotTree, writePlan, type WorkspaceFacts } from './workspace';

/** How often the driving process looks for a pause or cancel asked for by another process. */
const CONTROL_POLL_MS = 500;
/** PLAN.md in a prompt's snapshot: plans are short; one that is not is cut rather than flooding the context. */
const MAX_PLAN_IN_SNAPSHOT = 20_000;

/** An agent turn that did not complete (API error after retries, interrupted): the run pauses and can be resumed. */
export class AgentTurnError extends Error {
  override readonly name = 'AgentTurnError';
}

/** Ends the current state when the run is cancelled (caught by the loop, never reported as a failure). */
class Cancelled extends Error {}

export interface RunnerDeps {
  store: RunStore;
  agent: AutopilotAgent;
  prompts: AutopilotPrompts;
  logger: Logger;
  /** Where this run's acceptance command runs (its session's sandbox or container, or the host when the user chose so). */
  acceptance(run: RunRecord): AcceptanceTarget;
  /** After every persisted change (state, iteration, status). */
  onChange(run: RunRecord, iteration: AutopilotIteration | null): void;
}

/** The facts of step A as the text every prompt gets (the runner collects them; the model does not guess). */
export function snapshotText(facts: WorkspaceFacts, plan: string | null, state: RunState): string {
  const failures = Object.entries(state.failures).map(([k, v]) => `${k === NO_STEP ? 'no step' : `STEP_ID=${k}`}: ${v}`);
  const last = state.lastVerification;
  const planText = plan === null ? '(PLAN.md does not exist)' : plan.length > MAX_PLAN_IN_SNAPSHOT ? `${plan.slice(0, MAX_PLAN_IN_SNAPSHOT)}\n… [cut]` : plan;
  return [
    '[SNAPSHOT]',
    'git status --porcelain:',
    facts.status || '(clean)',
    '',
    'git diff --stat:',
    facts.diffStat || '(no changes to tracked files)',
    '',
    `test setup: ${facts.testSetup.length ? facts.testSetup.join(', ') : 'none detected'}`,
    `run state: iteration ${state.iteration} of at most ${state.limits.maxIters}; failed verifications: ${failures.length ? failures.join(', ') : 'none'}; last verification: ${last ? `${last.passed ? 'passed' : `failed (exit ${last.exitCode ?? 'none'})`} in iteration ${last.iteration}` : 'none yet'}`,
    '',
    'PLAN.md:',
    planText,
  ].join('\n');
}

export function planFacts(text: string | null): PlanFacts & { problems: string[] } {
  if (text === null) return { valid: false, nextStepId: null, backlogCount: 0, blockedCount: 0, problems: ['line 1: PLAN.md does not exist'] };
  const doc = parsePlan(text);
  const problems = validatePlan(doc).map(formatProblem);
  const steps = readSteps(doc);
  return { valid: problems.length === 0, nextStepId: steps.next?.id ?? null, backlogCount: steps.backlog.length, blockedCount: steps.blocked.length, problems };
}

/** What a human reads in Notes when a step blocks (the reason and the decision point). */
export function blockDecision(summary: string, testCmd: string): string {
  const firstFailure = summary.split('\n').map((l) => l.trim()).find((l) => /fail|error|assert|not ok|expected/i.test(l)) ?? summary.split('\n').find((l) => l.trim())?.trim() ?? '';
  const clipped = firstFailure.length > 200 ? `${firstFailure.slice(0, 200)}…` : firstFailure;
  return `whether the step should be changed or split, what information it is missing, or whether \`${testCmd}\` is the right acceptance command${clipped ? ` (last failure: ${clipped})` : ''}`;
}

export class AutopilotRunner {
  private readonly abort = new AbortController();
  private pauseRequested = false;
  private cancelRequested = false;
  /** The app is closing: stop without writing anything more (the database is about to close). */
  private halted = false;
  /** For the next plan-update prompt: files the last one changed besides PLAN.md (reverted). */
  private reverted: string[] = [];
  /** For the next plan-update prompt: why the run is planning again. */
  private replanReason = '';

  constructor(
    private run: RunRecord,
    private readonly deps: RunnerDeps,
  ) {}

  get id(): string {
    return this.run.id;
  }

  get current(): RunRecord {
    return this.run;
  }

  /** Pauses after the state in progress finishes (an agent turn is not cut off). */
  pause(): void {
    this.pauseRequested = true;
  }

  /** Stops at once: the agent turn and the acceptance command in progress are ended. */
  cancel(): void {
    this.cancelRequested = true;
    this.abort.abort();
    this.deps.agent.cancel();
  }

  /** Stops driving without recording anything (the service marks the run paused itself). */
  halt(): void {
    this.halted = true;
    this.abort.abort();
    this.deps.agent.cancel();
  }

  /** Runs until the run stops, pauses or is cancelled. Never throws for a failure of the run itself. */
  async drive(): Promise<RunRecord> {
    const poll = setInterval(() => {
      const c = this.deps.store.control(this.run.id);
      if (c === 'cancel' && !this.cancelRequested) this.cancel();
      if (c === 'pause') this.pauseRequested = true;
    }, CONTROL_POLL_MS);
    poll.unref?.();
    try {
      this.setStatus('running', null);
      while (this.run.state.phase !== 'STOPPED') {
        if (this.halted) return this.run;
        if (this.cancelRequested) {
          this.commit(transition(this.run.state, { type: 'cancel' }));
          break;
        }
        if (this.pauseRequested) {
          this.setStatus('paused', 'Paused by request; resume to continue from this state.');
          return this.run;
        }
        try {
          await this.step();
        } catch (e) {
          if (this.halted || this.cancelRequested || e instanceof Cancelled) continue;
          if (e instanceof AgentTurnError) {
            this.deps.logger.warn('autopilot agent turn did not complete; run paused', { run: this.run.id, error: e.message });
            this.setStatus('paused', `${e.message} — resume to retry ${this.run.state.phase}.`);
            return this.run;
          }
          const message = e instanceof Error ? e.message : String(e);
          this.deps.logger.error('autopilot run failed', { run: this.run.id, error: e });
          this.log({ type: 'error', phase: this.run.state.phase, message });
          this.commit(transition(this.run.state, { type: 'failed', message }));
        }
      }
      return this.run;
    } finally {
      clearInterval(poll);
    }
  }

  // ---- persistence ----------------------------------------------------------------------------

  private setStatus(status: RunRecord['status'], message: string | null): void {
    if (this.halted) return;
    this.run = { ...this.run, status, message };
    this.deps.store.saveState(this.run.id, this.run.state, status, message);
    this.changed();
  }

  private changed(): void {
    const fresh = this.deps.store.get(this.run.id);
    if (fresh) this.run = { ...fresh, status: this.run.status, message: this.run.message };
    this.deps.onChange(this.run, this.deps.store.iteration(this.run.id, this.run.state.iteration));
  }

  private log(entry: Record<string, unknown>): void {
    appendLog(this.run.worktree, this.run.options.logFile, { run: this.run.id, iteration: this.run.state.iteration, ...entry });
  }

  private note(text: string, iteration = this.run.state.iteration): void {
    this.deps.store.updateIteration(this.run.id, iteration, { addNote: text });
  }

  /** Persists the new state (worktree file first, then SQLite), keeps the iteration rows in step, then returns the effects to apply. */
  private commit(t: Transition): AutopilotEffect[] {
    if (this.halted) throw new Cancelled();
    const prev = this.run.state;
    const next = t.state;
    writeStateFile(this.run.worktree, next);
    const status = next.phase === 'STOPPED' ? 'stopped' : 'running';
    this.run = { ...this.run, state: next, status, message: null };
    this.deps.store.saveState(this.run.id, next, status, null);
    const now = Date.now();
    if (next.iteration > prev.iteration) {
      if (prev.iteration > 0) this.deps.store.updateIteration(this.run.id, prev.iteration, { endedAt: now });
      this.deps.store.startIteration(this.run.id, next.iteration, now);
    }
    if (next.phase === 'STOPPED' && next.iteration > 0) {
      this.deps.store.updateIteration(this.run.id, next.iteration, { endedAt: now, addNote: `stopped: ${next.exitReason}${next.exitDetail ? ` — ${next.exitDetail}` : ''}` });
    }
    this.log({ type: 'state', from: prev.phase, phase: next.phase, exitReason: next.exitReason, exitDetail: next.exitDetail, effects: t.effects.map((e) => e.type) });
    this.changed();
    return t.effects;
  }

  private event(e: AutopilotEvent): AutopilotEffect[] {
    return this.commit(transition(this.run.state, e));
  }

  // ---- the states -----------------------------------------------------------------------------

  private async step(): Promise<void> {
    const s = this.run.state;
    switch (s.phase) {
      case 'S0_BOOTSTRAP':
        return this.bootstrap();
      case 'S1_SNAPSHOT':
        return this.snapshot();
      case 'S2_PLAN_UPDATE':
        return this.planUpdate();
      case 'S3_EXECUTE_STEP':
        return this.execute();
      case 'S4_VERIFY':
        return this.verify();
      case 'S5_DECIDE':
        return this.decide();
      case 'STOPPED':
        return;
    }
  }

  private async bootstrap(): Promise<void> {
    ensureRunDir(this.run.worktree);
    if ((await readPlan(this.run.worktree)) === null) {
      writePlan(this.run.worktree, newPlan({ goal: this.run.goal, testCmd: this.run.testCmd }));
      this.log({ type: 'bootstrap', wrote: PLAN_FILE });
    }
    this.event({ type: 'bootstrapped' });
  }

  private async facts(): Promise<{ facts: WorkspaceFacts; plan: string | null; text: string }> {
    const facts = await collectFacts(this.run.worktree);
    const plan = await readPlan(this.run.worktree);
    return { facts, plan, text: snapshotText(facts, plan, this.run.state) };
  }

  private async snapshot(): Promise<void> {
    const s = this.run.state;
    const every = this.run.options.compactEvery;
    if (every > 0 && s.iteration > 1 && (s.iteration - 1) % every === 0) await this.compact();
    const { facts } = await this.facts();
    this.log({ type: 'snapshot', status: facts.status, diffStat: facts.diffStat, testSetup: facts.testSetup });
    this.event({ type: 'snapshot_taken' });
  }

  /**
   * Risk R2 (context growth): the key state goes into PLAN.md's Notes and the next prompt starts
   * a new agent session, whose memory is the plan every prompt carries.
   */
  private async compact(): Promise<void> {
    const s = this.run.state;
    const marker = `SUMMARY before iteration ${s.iteration}`;
    const plan = await readPlan(this.run.worktree);
    if (plan === null || plan.includes(marker)) return; // Already written (a resumed run), or no plan to write into.
    const steps = readSteps(plan);
    const failures = Object.entries(s.failures).map(([k, v]) => `${k}×${v}`).join(', ') || 'none';
    const last = s.lastVerification;
    const summary = `${marker}: done ${steps.done.map((d) => d.id).join(', ') || 'none'}; next ${steps.next?.id ?? 'none'}; backlog ${steps.backlog.length}; failed verifications ${failures}; last verification ${last ? (last.passed ? 'passed' : `failed (exit ${last.exitCode ?? 'none'}): ${last.summary.split('\n').filter(Boolean).slice(-1)[0] ?? ''}`) : 'none'}. The agent session was restarted; this plan is its memory.`;
    writePlan(this.run.worktree, addNote(plan, summary));
    this.deps.agent.restart();
    this.note('context compacted into Notes; agent session restarted');
    this.log({ type: 'compact', note: summary });
  }

  /** Runs one prompt with the before/after snapshots that tell which files it changed. */
  private async prompt(phase: string, text: string): Promise<{ report: TurnReportLike; before: string; changed: string[] }> {
    const wt = this.run.worktree;
    const it = this.run.state.iteration;
    const g = readGuard(wt);
    // A prompt killed with the app resumes with the snapshot taken before it started.
    const before = g && g.phase === phase && g.iteration === it ? g.before : await snapshotTree(wt);
    writeGuard(wt, { phase, iteration: it, before });
    if (this.cancelRequested || this.halted) throw new Cancelled();
    const started = Date.now();
    const report = await this.deps.agent.prompt(text, this.abort.signal);
    if (this.halted) throw new Cancelled();
    this.deps.store.addCost(this.run.id, it, report.costUsd);
    if (this.cancelRequested) throw new Cancelled();
    const after = await snapshotTree(wt);
    const changed = await changedBetween(wt, before, after);
    this.log({
      type: 'prompt',
      phase,
      prompt: text,
      outcome: report.outcome,
      reply: summarizeReply(report.text),
      toolCalls: report.toolCalls.length,
      filesChanged: changed,
      costUsd: report.costUsd,
      durationMs: report.durationMs || Date.now() - started,
      sessionId: report.sessionId,
    });
    if (report.outcome !== 'completed') {
      throw new AgentTurnError(`The agent's turn ended ${report.outcome}${report.message ? `: ${report.message}` : ''}`);
    }
    return { report, before, changed };
  }

  private async planUpdate(): Promise<void> {
    const wt = this.run.worktree;
    const s = this.run.state;
    const { plan, text: snapshot } = await this.facts();
    const current = planFacts(plan);
    if (!current.valid) {
      this.note(`PLAN.md does not validate: ${current.problems.join('; ')}`);
      this.log({ type: 'plan_invalid', problems: current.problems });
    }
    const text = this.deps.prompts.render('plan_update', {
      iteration: s.iteration,
      goal: this.run.goal,
      testCmd: this.run.testCmd,
      snapshot,
      problems: current.valid ? [] : current.problems,
      reverted: this.reverted,
      replanReason: this.replanReason,
    });
    const { before, changed } = await this.prompt('S2_PLAN_UPDATE', text);
    let after = await readPlan(wt);
    if (after === null && plan !== null) {
      // Deleting the plan is not an update of it: it is put back, and the update asked for again.
      await revertPaths(wt, before, [PLAN_FILE]);
      after = null;
    }
    const facts = planFacts(after);
    const others = changed.filter((p) => p !== PLAN_FILE);
    this.deps.store.updateIteration(this.run.id, s.iteration, { addFiles: changed.includes(PLAN_FILE) ? [PLAN_FILE] : [] });
    if (!facts.valid) {
      this.note(`plan update left PLAN.md invalid: ${facts.problems.join('; ')}`);
      this.log({ type: 'plan_invalid', problems: facts.problems });
    }
    this.reverted = others;
    this.replanReason = '';
    const effects = this.event({ type: 'plan_updated', plan: facts, touchedOtherFiles: others.length > 0 });
    for (const e of effects) {
      if (e.type === 'revert_non_plan_changes') {
        await revertPaths(wt, before, others);
        this.note(`plan update changed other files; reverted: ${others.join(', ')}`, s.iteration);
        this.log({ type: 'reverted', phase: 'S2_PLAN_UPDATE', files: others });
      }
    }
    writeGuard(wt, null);
  }

  private async execute(): Promise<void> {
    const wt = this.run.worktree;
    const s = this.run.state;
    const { plan, text: snapshot } = await this.facts();
    const step = plan === null ? undefined : readSteps(plan).next;
    if (!step) throw new Error(`PLAN.md has no Next step to execute (expected STEP_ID=${s.currentStepId ?? '?'})`);
    this.deps.store.updateIteration(this.run.id, s.iteration, { stepId: step.id, stepText: step.text });
    const text = this.deps.prompts.render('execute', { iteration: s.iteration, goal: this.run.goal, testCmd: this.run.testCmd, snapshot, step: { id: step.id, text: step.text }, seedFiles: this.run.options.seedFiles });
    const { before, changed } = await this.prompt('S3_EXECUTE_STEP', text);
    const planChanged = changed.includes(PLAN_FILE);
    this.deps.store.updateIteration(this.run.id, s.iteration, { addFiles: changed.filter((p) => p !== PLAN_FILE) });
    const effects = this.event({ type: 'executed', planChanged });
    for (const e of effects) {
      if (e.type === 'revert_plan_change') {
        await revertPaths(wt, before, [PLAN_FILE]);
        this.replanReason = `The execute step of STEP_ID=${step.id} changed PLAN.md; that change was reverted (only the plan update may change the plan). Re-plan: decide whether STEP_ID=${step.id} should be split or changed.`;
        this.note(`execute changed PLAN.md: reverted, back to planning`);
        this.log({ type: 'reverted', phase: 'S3_EXECUTE_STEP', files: [PLAN_FILE] });
      }
    }
    writeGuard(wt, null);
  }

  private async verify(): Promise<void> {
    const s = this.run.state;
    const target = this.deps.acceptance(this.run);
    const r = await runAcceptance({ cwd: this.run.worktree, command: this.run.testCmd, timeoutMs: this.run.options.acceptanceTimeoutMs, signal: this.abort.signal, target });
    if (this.cancelRequested) throw new Cancelled();
    this.deps.store.updateIteration(this.run.id, s.iteration, { verification: { passed: r.passed, exitCode: r.exitCode, summary: r.summary } });
    this.log({ type: 'verification', command: this.run.testCmd, where: target.place, passed: r.passed, exitCode: r.exitCode, timedOut: r.timedOut, durationMs: r.durationMs, summary: r.summary });
    this.event({ type: 'verified', passed: r.passed, exitCode: r.exitCode, summary: r.summary });
  }

  private async decide(): Promise<void> {
    const wt = this.run.worktree;
    const s = this.run.state;
    const plan = await readPlan(wt);
    const steps = plan === null ? null : readSteps(plan);
    const effects = this.event({ type: 'decide', backlogCount: steps?.backlog.length ?? 0 });
    for (const e of effects) {
      if (e.type === 'complete_step') await this.completeStep(e.stepId, s.iteration);
      else if (e.type === 'block_step') await this.blockStep(e.stepId, e.reason, s);
      else if (e.type === 'fix_or_replan' && this.run.state.phase !== 'STOPPED') await this.fixOrReplan(e.stepId, e.summary, s);
    }
  }

  private async completeStep(stepId: string, iteration: number): Promise<void> {
    const wt = this.run.worktree;
    const plan = await readPlan(wt);
    if (plan === null || readSteps(plan).next?.id !== stepId) {
      this.note(`STEP_ID=${stepId} passed but is no longer Next in PLAN.md; the plan was left as it is`, iteration);
      return;
    }
    const done = completeNext(plan);
    writePlan(wt, done.text);
    this.note(`STEP_ID=${stepId} done`, iteration);
    this.log({ type: 'step_done', stepId, next: done.next?.id ?? null });
    if (this.run.options.commit) {
      const sha = await commitAll(wt, `autopilot: (STEP_ID=${stepId}) ${done.completed.text}`);
      if (sha) this.note(`committed ${sha.slice(0, 12)}`, iteration);
      this.log({ type: 'commit', stepId, commit: sha });
    }
    this.changed();
  }

  private async blockStep(stepId: string, reason: string, s: RunState): Promise<void> {
    const wt = this.run.worktree;
    const plan = await readPlan(wt);
    if (plan === null || readSteps(plan).next?.id !== stepId) {
      this.note(`STEP_ID=${stepId} blocked (${reason}), but it is no longer Next in PLAN.md`, s.iteration);
      return;
    }
    const decision = blockDecision(s.lastVerification?.summary ?? '', this.run.testCmd);
    writePlan(wt, blockNext(plan, { reason, decision }).text);
    this.note(`STEP_ID=${stepId} blocked: ${reason}`, s.iteration);
    this.log({ type: 'step_blocked', stepId, reason, decision });
    this.changed();
  }

  /** The failing output goes to the agent: it fixes the code or changes the plan (both allowed here). */
  private async fixOrReplan(stepId: string | null, summary: string, failedIn: RunState): Promise<void> {
    const plan = await readPlan(this.run.worktree);
    const step = stepId && plan ? (readSteps(plan).next ?? null) : null;
    const attempt = this.run.state.failures[stepId ?? NO_STEP] ?? 1;
    const text = this.deps.prompts.render('fix_or_replan', {
      iteration: failedIn.iteration,
      testCmd: this.run.testCmd,
      step: step && step.id === stepId ? { id: step.id, text: step.text } : null,
      exitCode: failedIn.lastVerification?.exitCode ?? null,
      output: summary,
      attempt,
      maxAttempts: failedIn.limits.maxFixAttemptsPerStep,
    });
    const { changed } = await this.prompt('S5_FIX_OR_REPLAN', text);
    this.deps.store.updateIteration(this.run.id, failedIn.iteration, { addFiles: changed, addNote: `fix or re-plan changed ${changed.length ? changed.join(', ') : 'nothing'}` });
    writeGuard(this.run.worktree, null);
    this.changed();
  }
}
