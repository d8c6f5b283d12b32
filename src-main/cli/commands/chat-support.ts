/**
 * Terminal side of `flightdeck chat`: a readable transcript of agent events, the approval
 * prompt for `--approve ask`, and hidden key entry for `profiles set --api-key-stdin`.
 */
import { terminalSafe, terminalVisible } from '../terminal-safe';
import { createInterface } from 'node:readline';
import type { AgentEvent, Approval, ApprovalDecision } from '../../../src-preload/contract';
import { timeoutText } from '../../../src-preload/contract/units';

/** Prints events as a transcript; streamed text is printed by whole lines. */
export class TranscriptPrinter {
  private line = '';
  private readonly out: (line: string) => void;
  /**
   * Every line it prints comes from the model or from commands run in the repository: printed on
   * the user's terminal only as text and colours (a command's output may carry OSC 52 and the like).
   */
  constructor(out: (line: string) => void) {
    this.out = (line) => out(terminalSafe(line));
  }

  private flushText(): void {
    if (this.line !== '') this.out(this.line);
    this.line = '';
  }

  print(e: AgentEvent): void {
    const d = e.data;
    if (d.type === 'text.delta') {
      const parts = (this.line + d.text).split('\n');
      this.line = parts.pop() ?? '';
      for (const p of parts) this.out(p);
      return;
    }
    if (d.type === 'thinking.delta' || d.type === 'tool.input.delta' || d.type === 'tool.started' || d.type === 'status' || d.type === 'step.started') return;
    this.flushText();
    switch (d.type) {
      case 'turn.started':
        this.out(d.resumed ? `▶ (continues after the approval)  [${d.mode}, ${d.model}]` : `▶ ${d.kind === 'chat' ? '' : d.kind + ' '}${d.input}  [${d.mode}, ${d.model}]`);
        break;
      case 'tool.decision':
        if (d.decision !== 'allow') this.out(`  ${d.decision === 'deny' ? '⛔' : '?'} ${d.tool}: ${d.reason}`);
        // A call no one was asked about because of a remembered rule says which rule let it run.
        else if (d.source === 'session_rule') this.out(`  ✔ ${d.tool}: ${d.reason}`);
        break;
      case 'approval.requested':
        this.out(`  ⏸ approval needed (${d.approval.risk}): ${d.approval.summary}`);
        break;
      case 'approval.resolved':
        this.out(`  ${d.approval.status === 'approved' ? '✔ approved' : d.approval.status === 'denied' ? '✘ denied' : '– cancelled'}: ${d.approval.summary}${d.approval.decisionReason ? ` (${d.approval.decisionReason})` : ''}`);
        break;
      case 'tool.output':
        // An empty chunk only announces the command's terminal: nothing to print.
        if (d.chunk === '') break;
        for (const l of d.chunk.replace(/\n$/, '').split('\n')) this.out(`  │ ${l}`);
        break;
      case 'tool.result':
        if (d.tool === 'bash') this.out(`  ⤷ ${d.tool} ${d.exitCode === null ? '' : `exit ${d.exitCode}`}${d.isError && d.exitCode === null ? d.content.split('\n')[0] : ''}`);
        else this.out(`  ⤷ ${d.tool}${d.isError ? ' failed' : ''}: ${d.content.split('\n')[0]!.slice(0, 160)}`);
        break;
      case 'retry':
        this.out(`  ↻ retry ${d.attempt}/${d.maxRetries} in ${d.delayMs} ms: ${d.reason}`);
        break;
      case 'usage':
        break;
      case 'todo.updated':
        this.out(`  ☰ todo: ${d.todos.map((t) => `${t.status === 'done' ? '[x]' : t.status === 'in_progress' ? '[~]' : '[ ]'} ${t.text}`).join(' · ')}`);
        break;
      case 'compaction':
        this.out(`  ⇣ compacted ${d.summarizedMessages} messages (~${d.beforeTokens} → ~${d.afterTokens} tokens)`);
        break;
      case 'verify.started':
        this.out(`  ✓? verifying (${d.attempt}/${d.maxAttempts}): ${d.command}${d.timeoutMs ? ` (timeout ${timeoutText(d.timeoutMs)})` : ''}`);
        break;
      case 'verify.result':
        this.out(`  ${d.passed ? '✓ tests pass' : `✗ tests fail (exit ${d.exitCode ?? 'killed'})`}: ${d.command}`);
        break;
      case 'verify.skipped':
        this.out(`  · ${d.message}`);
        break;
      case 'command.result':
        // A bang command's output was already shown live; its result adds only the status line.
        if (d.kind === 'bang') this.out(d.text.split('\n').at(-1) ?? '');
        else for (const l of d.text.split('\n')) this.out(l);
        break;
      case 'error':
        this.out(`error: ${d.message}`);
        break;
      case 'notice':
        this.out(`${d.level === 'warning' ? 'warning' : 'note'}: ${d.text}`);
        break;
      case 'session.switched':
        this.out(`→ now in session ${d.toSessionId}`);
        break;
      case 'turn.ended':
        if (d.outcome !== 'completed') this.out(`■ ${d.outcome}${d.message ? `: ${d.message}` : ''}`);
        break;
      default:
        break;
    }
  }

  end(): void {
    this.flushText();
  }
}

/** Asks on the terminal; resolves with the decision. Only called when stdin is a TTY. */
export async function promptApproval(a: Approval, write: (s: string) => void): Promise<{ decision: ApprovalDecision; reason?: string }> {
  // What is asked comes from the model: every control character in it is shown, none acts (a
  // command must not repaint itself into something harmless-looking on the user's terminal).
  const v = terminalVisible;
  write(`\nApproval needed (${a.risk} risk): ${v(a.summary)}\n  ${v(a.reason)}\n`);
  if (a.diff) write(v(a.diff).split('\n').map((l) => `  ${l}`).join('\n') + '\n');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  const ask = (q: string) => new Promise<string>((resolve) => rl.question(q, resolve));
  try {
    for (;;) {
      const answer = (await ask(`[y] approve once  [a] approve "${v(a.sessionRule)}" for this session  [n] deny: `)).trim().toLowerCase();
      if (answer === 'y' || answer === 'yes') return { decision: 'approve_once' };
      if (answer === 'a') return { decision: 'approve_session' };
      if (answer === 'n' || answer === 'no') {
        const reason = (await ask('Reason for the agent (optional): ')).trim();
        return reason ? { decision: 'deny', reason } : { decision: 'deny' };
      }
    }
  } finally {
    rl.close();
  }
}

/** Reads a secret: hidden typing on a TTY, else the whole of stdin. Never echoed. */
export async function readSecret(prompt: string, write: (s: string) => void): Promise<string> {
  const stdin = process.stdin;
  if (!stdin.isTTY) {
    const chunks: Buffer[] = [];
    for await (const c of stdin) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8').trim();
  }
  write(prompt);
  return new Promise((resolve, reject) => {
    let value = '';
    stdin.setRawMode(true);
    stdin.resume();
    const onData = (buf: Buffer) => {
      for (const ch of buf.toString('utf8')) {
        if (ch === '\r' || ch === '\n') {
          done();
          write('\n');
          return resolve(value.trim());
        }
        if (ch === '\u0003') {
          done();
          return reject(new Error('cancelled'));
        }
        if (ch === '\u007f' || ch === '\b') value = value.slice(0, -1);
        else value += ch;
      }
    };
    const done = () => {
      stdin.off('data', onData);
      stdin.setRawMode(false);
      stdin.pause();
    };
    stdin.on('data', onData);
  });
}
