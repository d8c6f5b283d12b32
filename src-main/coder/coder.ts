/**
 * Seed 000's Coder tool: one call = one task for Claude Code, with the seed's parameters,
 * result objects, error kinds, retry policy and lost-session recovery.
 *
 * Retries: only with max_retries > 0, only for retryable kinds (core/backoff.ts), with
 * exponential backoff (0.5 s → 1 s → 2 s…), and never after an attempt changed files in cd —
 * a write-capable agent is not re-run blindly over its own half-done work.
 *
 * Lost session: when `--resume SESSION_ID` is refused ("No conversation found…"), a new
 * session starts at once with the minimal context pack before the prompt. That is recovery,
 * not a retry: it happens even with max_retries 0, once per call.
 *
 * Contract: with `checkContract`, changes are compared to the scope `ai/contracts/current.md`
 * declares (core/scope.ts); a run that succeeded but touched paths out of scope is reported as
 * `contract_violation`. A run that failed anyway keeps its own kind, and its message names the
 * out-of-scope paths.
 */
import { stat, realpath } from 'node:fs/promises';
import { classifyAttempt } from './core/classify';
import { backoffDelayMs, isRetryableKind } from './core/backoff';
import { claudeCredential, claudeEnv, type CoderBackend } from './core/launch';
import { parseCoderParams, type CoderParams } from './core/params';
import { renderContextPack, type ContextPack } from './core/prompt';
import { makeRedactor, redactDeep } from './core/redact';
import { failure, withSession, type CoderFailure, type CoderMetrics, type CoderResult, type ErrorKind } from './core/result';
import { checkScope, hasScope, type ContractScope } from './core/scope';
import { keepPreImages, revertPaths, type PreImages } from './contract-revert';
import type { StreamMessage } from './core/stream-json';
import type { ApprovalHook, HookObserver } from './approval-hook';
import { contextPackFor, readContract } from './constraints';
import { runAttempt, type AttemptReport } from './run-attempt';
import { changedPaths, snapshotWorkspace, type WorkspaceSnapshot } from './workspace-state';
import type { HiddenPath, NetworkPolicy } from '../sandbox/policy';

export interface AttemptInfo {
  attempt: number;
  resume: string | null;
  /** Set on attempts after the first: why another one is made. */
  reason: 'first' | 'retry' | 'new_session';
  /** For retries: the backoff waited before this attempt. */
  delayMs: number;
}

export interface CoderRunOptions {
  /** The claude executable; default `claude` on PATH. */
  claudePath?: string;
  /** The provider; null/undefined = whatever ANTHROPIC_* the environment already has. */
  backend?: CoderBackend | null;
  /** Flightdeck's approval path; null = headless policy (core/hook-policy.ts). */
  gate?: ApprovalHook | null;
  /** The environment the CLI inherits (default process.env) and changes on top of it. */
  inheritedEnv?: Readonly<Record<string, string | undefined>>;
  envOverrides?: Readonly<Record<string, string | undefined>>;
  /** Network for the sandboxed Bash (default: DEFAULT_NETWORK). */
  network?: NetworkPolicy;
  /** Paths the sandboxed Bash must not read (Flightdeck's data folder). */
  hidden?: readonly HiddenPath[];
  /** The session's standing instructions, handed to the CLI with the project's (--append-system-prompt-file). */
  sessionInstructions?: string;
  /** MCP servers for `--mcp-config` (with their secrets; written to the run's private folder only). */
  mcpServers?: Record<string, Record<string, unknown>>;
  /** Compare changes against the scope of cd's contract. */
  checkContract?: boolean;
  /** The goal for the context pack of a replaced session (default: the contract's Goal section). */
  goal?: string | null;
  /** Overrides the context pack read from cd's contract. */
  contextPack?: ContextPack | null;
  /**
   * Resume this conversation (an id, or the path of its file when it was made in another folder)
   * at one of its messages, forked there; overrides SESSION_ID. Refused (gone, or the message is
   * not in it): a new conversation starts, primed by `lostSessionPrompt` or the context pack.
   */
  resumeFrom?: { target: string; messageId: string } | null;
  /** The prompt of the new conversation that replaces a lost one (default: the context pack before the task). */
  lostSessionPrompt?: ((task: string) => string) | null;
  signal?: AbortSignal;
  onMessage?: (m: StreamMessage, attempt: number) => void;
  onAttempt?: (info: AttemptInfo) => void;
  hookObserver?: HookObserver;
  /** Injectable for tests: the backoff wait. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** Where `log_metrics` writes (default stderr). */
  metricsSink?: (line: string) => void;
  killGraceMs?: number;
  onSpawn?: (pid: number) => void;
  now?: () => number;
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

interface Totals {
  turns: number;
  apiMs: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  usd: number;
}

function addResult(t: Totals, r: AttemptReport): void {
  const res = r.outcome.result;
  if (!res) return;
  t.turns += res.numTurns;
  t.apiMs += res.durationApiMs;
  t.input += res.usage.input_tokens;
  t.output += res.usage.output_tokens;
  t.cacheRead += res.usage.cache_read_input_tokens;
  t.cacheWrite += res.usage.cache_creation_input_tokens;
  t.usd += res.totalCostUsd;
}

async function checkCd(cd: string): Promise<string | null> {
  try {
    const st = await stat(cd);
    return st.isDirectory() ? null : `cd is not a folder: ${cd}`;
  } catch {
    return `cd does not exist: ${cd}`;
  }
}

function backendProblem(b: CoderBackend | null | undefined): string | null {
  if (!b) return null;
  if (!/^https?:\/\/[^\s]+$/.test(b.baseUrl)) return `the profile's base URL is not an http(s) URL: ${b.baseUrl}`;
  if (b.apiKey.trim() === '') return 'the profile has no API key';
  if (b.model.trim() === '') return 'the profile names no model';
  return null;
}

export async function runCoder(input: unknown, opts: CoderRunOptions = {}): Promise<CoderResult> {
  const parsed = parseCoderParams(input);
  const limits = (p?: Partial<CoderParams>) => ({ idle_timeout_s: p?.timeout ?? 300, max_duration_s: p?.max_duration ?? 1800 });
  if (!parsed.ok) {
    const raw = (typeof input === 'object' && input !== null ? input : {}) as Partial<CoderParams>;
    const safe = { timeout: typeof raw.timeout === 'number' ? raw.timeout : undefined, max_duration: typeof raw.max_duration === 'number' ? raw.max_duration : undefined };
    return failure('config_error', parsed.message, { ...limits(safe), last_lines: parsed.issues });
  }
  const p = parsed.params;
  const redact = makeRedactor([opts.backend?.apiKey, opts.inheritedEnv?.ANTHROPIC_API_KEY ?? process.env.ANTHROPIC_API_KEY, opts.inheritedEnv?.ANTHROPIC_AUTH_TOKEN ?? process.env.ANTHROPIC_AUTH_TOKEN]);
  const fail = (kind: ErrorKind, message: string, extra: Partial<CoderFailure['error_detail']> = {}): CoderFailure =>
    failure(kind, redact(message), { ...limits(p), ...extra, message: redact(extra.message ?? message) });
  try {
    const cdProblem = await checkCd(p.cd);
    if (cdProblem) return fail('config_error', cdProblem);
    const backendIssue = backendProblem(opts.backend);
    if (backendIssue) return fail('config_error', `Invalid provider profile: ${backendIssue}`);
    // The session of the last attempt (or the one resumed), kept on a failure so it can be resumed.
    const last = { sessionId: opts.resumeFrom ? null : (p.SESSION_ID ?? null) };
    return withSession(await runChecked(p, await realpath(p.cd), opts, redact, fail, last), last.sessionId);
  } catch (e) {
    return fail('unexpected_exception', `Unexpected failure: ${e instanceof Error ? e.message : String(e)}`);
  }
}

async function runChecked(
  p: CoderParams,
  cd: string,
  opts: CoderRunOptions,
  redact: (s: string) => string,
  fail: (kind: ErrorKind, message: string, extra?: Partial<CoderFailure['error_detail']>) => CoderFailure,
  last: { sessionId: string | null },
): Promise<CoderResult> {
  const now = opts.now ?? Date.now;
  const started = now();
  const sleep = opts.sleep ?? abortableSleep;
  const env = claudeEnv({
    inherited: opts.inheritedEnv ?? process.env,
    backend: opts.backend ?? null,
    sandbox: p.sandbox,
    isRoot: process.getuid?.() === 0,
    overrides: opts.envOverrides,
  });
  const credential = claudeCredential({ inherited: opts.inheritedEnv ?? process.env, backend: opts.backend ?? null });
  let scope: ContractScope | null = null;
  if (opts.checkContract) scope = (await readContract(cd))?.sections.scope ?? null;
  if (scope !== null && !hasScope(scope)) scope = null;
  const needSnapshots = p.max_retries > 0 || scope !== null;

  const totals: Totals = { turns: 0, apiMs: 0, input: 0, output: 0, cacheRead: 0, cacheWrite: 0, usd: 0 };
  const messages: unknown[] = [];
  let prompt = p.PROMPT;
  let resume: string | null = opts.resumeFrom?.target ?? p.SESSION_ID ?? null;
  let resumeAt: string | null = opts.resumeFrom?.messageId ?? null;
  let retries = 0;
  let attempt = 0;
  let recreated = false;
  let info: AttemptInfo = { attempt: 1, resume, reason: 'first', delayMs: 0 };

  const extras = (): { all_messages?: unknown[]; metrics?: CoderMetrics } => {
    const metrics: CoderMetrics = {
      num_turns: totals.turns,
      duration_ms: Math.max(0, Math.round(now() - started)),
      duration_api_ms: Math.round(totals.apiMs),
      input_tokens: totals.input,
      output_tokens: totals.output,
      cache_read_input_tokens: totals.cacheRead,
      cache_creation_input_tokens: totals.cacheWrite,
      total_cost_usd: Math.round(totals.usd * 1e6) / 1e6,
      attempts: attempt,
      session_recreated: recreated,
    };
    if (p.log_metrics) (opts.metricsSink ?? ((l) => process.stderr.write(l + '\n')))(`[coder] metrics ${JSON.stringify(metrics)}`);
    return {
      ...(p.return_all_messages ? { all_messages: redactDeep(messages, redact) as unknown[] } : {}),
      ...(p.return_metrics ? { metrics } : {}),
    };
  };

  for (;;) {
    attempt++;
    info = { ...info, attempt };
    opts.onAttempt?.(info);
    const before: WorkspaceSnapshot | null = needSnapshots ? await snapshotWorkspace(cd) : null;
    // Under a contract, what git cannot give back is kept, so out-of-scope changes can be undone.
    const kept: PreImages | null = before && scope ? await keepPreImages(before) : null;
    const report = await runAttempt({
      claudePath: opts.claudePath ?? 'claude',
      cd,
      prompt,
      sandbox: p.sandbox,
      resume,
      resumeAt,
      idleTimeoutMs: p.timeout * 1000,
      maxDurationMs: p.max_duration * 1000,
      env,
      credential,
      scope,
      ...(opts.network ? { network: opts.network } : {}),
      ...(opts.hidden ? { hidden: opts.hidden } : {}),
      ...(opts.sessionInstructions ? { sessionInstructions: opts.sessionInstructions } : {}),
      ...(opts.mcpServers ? { mcpServers: opts.mcpServers } : {}),
      gate: opts.gate ?? null,
      redact,
      signal: opts.signal,
      onMessage: (m) => opts.onMessage?.(m, attempt),
      hookObserver: opts.hookObserver,
      killGraceMs: opts.killGraceMs,
      onSpawn: opts.onSpawn,
    });
    addResult(totals, report);
    messages.push(...report.state.messages);
    const verdict = classifyAttempt(report.outcome, { idleTimeoutS: p.timeout, maxDurationS: p.max_duration });
    // A SESSION_ID the CLI refused is not worth handing back.
    const lost = !verdict.ok && verdict.kind === 'lost_session';
    // A forked resume (resumeAt) is a new conversation: only the id the CLI reported is worth keeping.
    last.sessionId = lost ? null : (report.outcome.sessionId ?? (resumeAt ? null : resume));
    const detail = { exit_code: report.outcome.exitCode, last_lines: report.lastLines, json_decode_errors: report.outcome.decodeErrors, retries };

    if (!verdict.ok && verdict.kind === 'lost_session') {
      if (recreated || resume === null) return { ...fail('upstream_error', 'The CLI refused to resume the session.', detail), ...extras() };
      if (opts.lostSessionPrompt) prompt = opts.lostSessionPrompt(p.PROMPT);
      else prompt = renderContextPack(opts.contextPack ?? (await contextPackFor(cd, opts.goal ?? null)), resume, p.PROMPT);
      recreated = true;
      info = { attempt, resume: null, reason: 'new_session', delayMs: 0 };
      resume = null;
      resumeAt = null;
      continue;
    }

    const changed = before ? await changedPaths(before, await snapshotWorkspace(cd)) : null;
    const violations = scope && changed ? checkScope(changed, scope) : [];
    let violationText = violations.length > 0 ? `Changes outside the contract's scope: ${violations.map((v) => `${v.path} (${v.reason})`).join(', ')}.` : '';
    if (violations.length > 0 && before && kept) {
      // A contract violation found after the fact (a command wrote it) does not stay.
      const undone = await revertPaths(before, kept, violations.map((v) => v.path));
      if (undone.reverted.length > 0) violationText += ` Reverted to how they were before the run: ${undone.reverted.join(', ')}.`;
      if (undone.failed.length > 0) violationText += ` Could not revert: ${undone.failed.map((f) => `${f.path} (${f.reason})`).join(', ')}.`;
    }

    if (verdict.ok) {
      if (violations.length > 0) {
        return { ...fail('contract_violation', `The run finished but broke the Implementation Contract. ${violationText}`, detail), ...extras() };
      }
      return { success: true, tool: 'coder', SESSION_ID: verdict.sessionId, result: redact(verdict.result), ...extras() };
    }

    const kind = verdict.kind;
    const canRetry = verdict.retryable && isRetryableKind(kind) && retries < p.max_retries && !opts.signal?.aborted;
    const touched = changed === null ? before !== null : changed.length > 0;
    if (canRetry && !touched) {
      retries++;
      const delayMs = backoffDelayMs(retries);
      info = { attempt, resume, reason: 'retry', delayMs };
      await sleep(delayMs, opts.signal);
      if (!opts.signal?.aborted) continue;
    }
    let message = verdict.message;
    if (canRetry && touched) {
      message += changed === null ? ' Not retried: whether the attempt changed files in cd could not be determined.' : ` Not retried: the attempt changed files in cd (${changed.slice(0, 10).join(', ')}${changed.length > 10 ? ', …' : ''}).`;
    }
    if (violationText) message += ` ${violationText}`;
    return { ...fail(kind, message, { ...detail, retries }), ...extras() };
  }
}
