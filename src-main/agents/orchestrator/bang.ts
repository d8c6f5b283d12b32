/**
 * Seed 001 §6, runBangCommand: `!cmd` runs the bash tool directly, no model request. Outside
 * yolo it still goes through the policy and approvals. The result is structured — command,
 * exit code, stdout and stderr apart (when the runner captured them so) — in the
 * `command.result` event, and kept in the conversation so the model sees it next.
 */
import { newId } from '../ids';
import type { TurnEnd } from './run-turn';
import { MAX_EVENT_RESULT_CHARS, runToolCall } from './tool-exec';
import type { TurnContext } from './turn-context';

export async function runBangCommand(ctx: TurnContext, rawInput: string, command: string): Promise<TurnEnd> {
  void rawInput;
  if (command === '') {
    const text = 'Usage: !<command>, e.g. !git status';
    ctx.emit({ type: 'command.result', kind: 'bang', name: '!', ok: false, text, exitCode: null });
    return { outcome: 'failed', message: text };
  }
  const o = await runToolCall(ctx, { id: newId('tool'), name: 'bash', input: { command } }, 'bang');
  if (ctx.abortKind === 'shutdown') return { outcome: 'interrupted', message: null };
  const text = o.ran ? o.content : `$ ${command}\n${o.content}`;
  ctx.addMessage('user', 'command', [{ type: 'text', text: `The user ran a shell command themselves:\n${text}` }]);
  const ok = o.ran && o.exitCode === 0;
  const cut = (t: string) => (t.length > MAX_EVENT_RESULT_CHARS ? `${t.slice(0, MAX_EVENT_RESULT_CHARS)}\n… [${t.length - MAX_EVENT_RESULT_CHARS} more characters cut]` : t);
  ctx.emit({
    type: 'command.result',
    kind: 'bang',
    name: '!',
    ok,
    text,
    exitCode: o.exitCode,
    command,
    ...(o.streams ? { stdout: cut(o.streams.stdout), stderr: cut(o.streams.stderr) } : {}),
  });
  if (o.cancelled || ctx.aborted) return { outcome: 'cancelled', message: 'Cancelled by the user.' };
  return { outcome: ok ? 'completed' : 'failed', message: ok ? null : o.ran ? `exit code ${o.exitCode ?? 'none (killed)'}` : 'not run' };
}
