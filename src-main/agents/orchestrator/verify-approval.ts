/**
 * The approval step of auto-verify (see verify-guard.ts for why): when the files that decide
 * what the verify command runs changed, the run is judged by the policy as the bash command it
 * is and, unless yolo allows every command, asked for with the diff of those files. A session
 * rule for the command family does not cover it: the command string is the same, what it runs
 * is not.
 */
import { ApprovalAbortedError } from '../../approvals/gate';
import { newId } from '../ids';
import type { TurnContext } from './turn-context';
import { changedDefiningFiles, definingDiff, type DefiningChange } from './verify-guard';

export type VerifyGate = { run: true } | { run: false; message: string };

export async function approveVerifyRun(ctx: TurnContext, command: string): Promise<VerifyGate> {
  const s = ctx.session();
  const before = s.state.verifyGuard ?? {};
  const { changes, guard } = changedDefiningFiles(s.root, before);
  // Files back at their trusted content need no guard any more.
  if (Object.keys(guard).length !== Object.keys(before).length) ctx.update({ state: { ...ctx.session().state, verifyGuard: guard } });
  if (changes.length === 0) return { run: true };
  const toolUseId = newId('tool');
  const started = Date.now();
  const gate = await judge(ctx, command, changes, toolUseId);
  // The decision opened a tool card in the transcript; this result closes it (the run itself shows as a verify block).
  const content = gate.run ? 'Allowed: auto-verify runs it now.' : `Not run — ${gate.message}`;
  ctx.emit({ type: 'tool.result', toolUseId, tool: 'bash', isError: !gate.run, content, exitCode: null, durationMs: Date.now() - started });
  return gate;
}

async function judge(ctx: TurnContext, command: string, changes: readonly DefiningChange[], toolUseId: string): Promise<VerifyGate> {
  const s = ctx.session();
  const files = changes.map((c) => c.path).join(', ');
  const input = { command };
  const policy = ctx.deps.gate.evaluate(ctx.sessionId, 'bash', input, s.mode);
  if (policy.decision === 'deny') {
    ctx.emit({ type: 'tool.decision', toolUseId, tool: 'bash', decision: 'deny', source: policy.source, reason: policy.reason, risk: policy.risk });
    return { run: false, message: `${files} changed, so \`${command}\` is judged like any command, and it is refused: ${policy.reason}` };
  }
  if (policy.source === 'yolo') {
    // yolo runs every command unasked (the hard floor has already ruled); this one too.
    ctx.emit({ type: 'tool.decision', toolUseId, tool: 'bash', decision: 'allow', source: 'yolo', reason: `${policy.reason} (${files} changed; the verify run follows the same rule)`, risk: 'high' });
    return { run: true };
  }
  const reason = `Auto-verify would run \`${command}\`, and ${files} changed in this session: ${changes.length === 1 ? 'that file decides' : 'those files decide'} what the command runs. Review the change; approving runs it.`;
  ctx.emit({ type: 'tool.decision', toolUseId, tool: 'bash', decision: 'ask', source: 'policy', reason, risk: 'high' });
  ctx.setStatus('awaiting_approval');
  try {
    const approval = await ctx.deps.gate.request(
      { sessionId: ctx.sessionId, turnId: ctx.turnId, toolUseId, tool: 'bash', input, risk: 'high', reason, sessionRule: policy.sessionRule, diff: definingDiff(changes), source: 'auto-verify' },
      ctx.signal,
    );
    ctx.setStatus('running');
    if (approval.status !== 'approved') {
      const why = approval.status === 'cancelled' ? 'the approval was cancelled' : `you denied running it${approval.decisionReason ? ` (${approval.decisionReason})` : ''}`;
      return { run: false, message: `${files} changed, so \`${command}\` needed approval, and ${why}.` };
    }
  } catch (e) {
    if (e instanceof ApprovalAbortedError) return { run: false, message: 'the turn was cancelled while the verify run waited for approval.' };
    throw e;
  }
  // Approved as it is now: this content is the trusted one from here on.
  const state = ctx.session().state;
  const rest = Object.fromEntries(Object.entries(state.verifyGuard ?? {}).filter(([p]) => !changes.some((c) => c.path === p)));
  ctx.update({ state: { ...state, verifyGuard: rest } });
  return { run: true };
}
