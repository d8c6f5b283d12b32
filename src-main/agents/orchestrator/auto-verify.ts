/**
 * Seed 001 §8: after a turn that edited files, run the repository's whitelisted test command
 * when every trigger condition holds; on a retryable failure inject a repair prompt and let
 * the turn continue, at most `max_verify_attempts` runs per turn.
 */
import type { AgentEventData } from '../../../src-preload/contract';
import { CappedOutput, type CommandResult } from '../tools/command-runner';
import { sessionSandboxPolicy } from '../../sandbox/policy';
import { SandboxUnavailableError } from '../../sandbox/sandbox-runtime';
import { readProjectConfig } from './project-config';
import type { TurnContext } from './turn-context';
import { approveVerifyRun } from './verify-approval';
import { TEST_ENV } from '../../test-runners/detect';
import { detectVerifyCommand, isDocPath, isWhitelisted, VERIFY_WHITELIST } from './verify-detect';

/** The failing output the repair prompt quotes: the tail, where test runners print the summary. */
const REPAIR_OUTPUT_CHARS = 8_000;
/** Output kept in the verify.result event. */
const EVENT_OUTPUT_CHARS = 20_000;
/** Exit code of "command not found": running it again cannot help. */
const COMMAND_NOT_FOUND = 127;

type SkipReason = Extract<AgentEventData, { type: 'verify.skipped' }>['reason'];

function skip(ctx: TurnContext, reason: SkipReason, detail: string): 'done' {
  ctx.emit({ type: 'verify.skipped', reason, message: `Auto-verify not run: ${detail}` });
  return 'done';
}

/** 'continue' when a repair prompt was added and the loop should call the model again. */
export async function autoVerify(ctx: TurnContext): Promise<'continue' | 'done'> {
  if (ctx.edited.size === 0) return 'done';
  const s = ctx.session();
  const { config, problem, sources } = readProjectConfig(ctx.deps.configDir(s));
  if (problem) ctx.emit({ type: 'notice', level: 'warning', text: `Project config ignored: ${problem}` });
  const wf = config.workflow;
  if (s.mode === 'plan') return skip(ctx, 'mode', 'plan mode never verifies.');
  if (s.mode === 'default' && !ctx.verifyRequested) {
    return skip(ctx, 'not_requested', 'in default mode tests run after edits only when you ask for it (e.g. "…and run the tests"), or switch to auto-edit.');
  }
  if ([...ctx.edited].every(isDocPath)) return skip(ctx, 'docs_only', 'only documentation files changed.');
  if (!wf.autoVerifyAfterEdit) return skip(ctx, 'disabled', `workflow.auto_verify_after_edit is false (set in ${sources['workflow.auto_verify_after_edit']}).`);
  if (wf.maxVerifyAttempts === 0) return skip(ctx, 'disabled', `max_verify_attempts is 0 (set in ${sources['workflow.max_verify_attempts']}).`);
  if (s.disabledTools.includes('bash')) return skip(ctx, 'bash_unavailable', 'the bash tool is switched off for this session.');
  if (ctx.verifyAttempts >= wf.maxVerifyAttempts) return skip(ctx, 'attempts_exhausted', `already ran ${ctx.verifyAttempts} of max_verify_attempts = ${wf.maxVerifyAttempts} this turn.`);
  const configured = wf.verifyCommand;
  if (configured !== null && !isWhitelisted(configured)) {
    return skip(ctx, 'not_whitelisted', `"${configured}" (workflow.verify_command) is not on the whitelist. Auto-verify only runs: ${VERIFY_WHITELIST.join(' | ')}.`);
  }
  const command = configured ?? detectVerifyCommand(s.root);
  if (command === null) {
    return skip(ctx, 'no_command', 'no whitelisted test command applies to this repository (looked for a package.json test script, go.mod, Cargo.toml, pytest or unittest tests, a Makefile test or check target, pom.xml, gradlew, build.gradle).');
  }

  const approved = await approveVerifyRun(ctx, command);
  if (ctx.aborted) return 'done';
  if (!approved.run) return skip(ctx, 'not_approved', approved.message);

  ctx.verifyAttempts++;
  const attempt = ctx.verifyAttempts;
  // The same limit as the agent's own commands (Settings → bash timeout), shown with the command.
  const timeoutMs = ctx.deps.settings().bashTimeoutMs;
  ctx.emit({ type: 'verify.started', command, attempt, maxAttempts: wf.maxVerifyAttempts, timeoutMs });
  let r: CommandResult;
  try {
    r = await ctx.deps.runner().run({
      cwd: s.root,
      command,
      // CI=true: vitest and jest never watch, and no runner prompts.
      env: { ...ctx.deps.commandEnv(), ...TEST_ENV },
      timeoutMs,
      title: `verify: ${command}`,
      signal: ctx.signal,
      owner: { sessionId: ctx.sessionId, ...(s.projectId ? { projectId: s.projectId } : {}) },
      // The test command runs code the model may have just written: the same sandbox as its bash.
      sandbox: sessionSandboxPolicy({ root: s.root, mode: s.mode, sandbox: s.state.sandbox }, ctx.deps.settings()),
    });
  } catch (e) {
    if (!(e instanceof SandboxUnavailableError)) throw e;
    // Refused, not failed: nothing a code change can repair, so no repair prompt.
    ctx.emit({ type: 'verify.result', command, attempt, passed: false, exitCode: null, output: e.message });
    ctx.emit({ type: 'notice', level: 'warning', text: `Auto-verify: ${e.message}` });
    return 'done';
  }
  if (ctx.aborted) return 'done';
  const passed = r.exitCode === 0;
  const out = new CappedOutput(EVENT_OUTPUT_CHARS);
  out.push(r.output);
  ctx.emit({ type: 'verify.result', command, attempt, passed, exitCode: r.exitCode, output: out.text() });
  ctx.edited.clear();
  if (passed) return 'done';

  const status = r.timedOut ? 'timed out' : r.exitCode === null ? `was killed (${r.signal ?? 'signal'})` : `failed with exit code ${r.exitCode}`;
  const retryable = !r.timedOut && r.exitCode !== null && r.exitCode !== COMMAND_NOT_FOUND;
  if (!retryable) {
    ctx.emit({ type: 'notice', level: 'warning', text: `Auto-verify: ${command} ${status}; not a failure a code change can repair, so the repair loop stops.` });
    return 'done';
  }
  if (attempt >= wf.maxVerifyAttempts) {
    return skip(ctx, 'attempts_exhausted', `${command} still fails after ${attempt} attempt${attempt === 1 ? '' : 's'} (max_verify_attempts = ${wf.maxVerifyAttempts}); the repair loop stops here.`);
  }
  const tail = r.output.length > REPAIR_OUTPUT_CHARS ? '…' + r.output.slice(-REPAIR_OUTPUT_CHARS) : r.output;
  ctx.addMessage('user', 'verify', [
    {
      type: 'text',
      text: `Auto-verify: \`${command}\` ${status} (attempt ${attempt} of ${wf.maxVerifyAttempts}). Fix the cause with the smallest change, then reply; the tests run again after your edits.\n\n\`\`\`\n${tail.trim()}\n\`\`\``,
    },
  ]);
  return 'continue';
}
