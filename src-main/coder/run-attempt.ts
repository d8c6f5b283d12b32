/**
 * One `claude -p` run: spawn it detached in cd, feed the prompt on stdin, read stream-json
 * as it arrives, enforce the idle and total timeouts, answer its tool calls through the
 * approval hook, and end its whole process group when it has to stop.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AttemptOutcome } from './core/classify';
import { claudeArgs, CREDENTIAL_ENV, keyHelperCommand, runSettings } from './core/launch';
import type { Sandbox } from './core/params';
import type { ContractScope } from './core/scope';
import type { Redactor } from './core/redact';
import { LAST_LINES } from './core/result';
import { LineSplitter, StreamState, type StreamMessage } from './core/stream-json';
import { startHookServer, type ApprovalHook, type HookObserver } from './approval-hook';
import { KILL_GRACE_MS, groupAlive, liveRuns, terminateTree } from './process-group';
import { claudeSandboxSettings, DEFAULT_NETWORK, type HiddenPath, type NetworkPolicy } from '../sandbox/policy';
import { withExistingHidden } from '../sandbox/sandbox-runtime';
import { worktreeGitBinds } from '../sandbox/worktree-git';
import { createRunDir, earlierRunDirs, removeRunDir, runsDir } from './run-dir';
import { keysDir, removeKeyFile, writeKeyFile } from './key-file';
import { cleanExec, resolveOnPath } from '../platform/child-process';
import { readProjectInstructions } from './project-instructions';

/** A line kept for `last_lines` is cut here: one tool result can be megabytes. */
const MAX_KEPT_LINE_CHARS = 2_000;
/** Enough stderr to find the CLI's own messages in (they are short). */
const MAX_STDERR_CHARS = 64 * 1024;
/**
 * After the CLI exits, how long its output pipes may stay open (a background process it
 * started still holding them) before the leftovers are ended too.
 */
const PIPE_DRAIN_MS = 2_000;

export interface AttemptOptions {
  claudePath: string;
  /** Real path of the working folder. */
  cd: string;
  prompt: string;
  sandbox: Sandbox;
  resume: string | null;
  /** With `resume`: the message to continue from, in a forked conversation (core/launch.ts). */
  resumeAt?: string | null;
  /** `--model`, when the profile's model should be named explicitly (ANTHROPIC_MODEL also carries it). */
  model?: string | null;
  idleTimeoutMs: number;
  /** 0 = no total limit. */
  maxDurationMs: number;
  env: Record<string, string>;
  /** The key, handed over through apiKeyHelper (never the environment); null = the CLI's own login. */
  credential?: string | null;
  /** The contract's scope, refused before each file change by the approval hook. */
  scope?: ContractScope | null;
  /** Network for the sandboxed Bash (default DEFAULT_NETWORK). */
  network?: NetworkPolicy;
  /** Paths the sandboxed Bash must not read (Flightdeck's data folder). */
  hidden?: readonly HiddenPath[];
  /** The session's standing instructions (a feature's Planner brief, the mailbox's rules), after the project's own. */
  sessionInstructions?: string;
  /** MCP servers for `--mcp-config` (`--strict-mcp-config` stays: nothing else is loaded). Their secrets go only into the run's private 0600 file. */
  mcpServers?: Record<string, Record<string, unknown>>;
  gate: ApprovalHook | null;
  redact: Redactor;
  signal?: AbortSignal;
  /** Every decoded message, redacted, as it arrives. */
  onMessage?: (m: StreamMessage) => void;
  hookObserver?: HookObserver;
  killGraceMs?: number;
  /** Called with the CLI's pid once it runs (tests check its process group is gone after). */
  onSpawn?: (pid: number) => void;
}

export interface AttemptReport {
  outcome: AttemptOutcome;
  state: StreamState;
  lastLines: string[];
}

class LastLines {
  private readonly lines: string[] = [];
  push(line: string): void {
    if (line.trim() === '') return;
    this.lines.push(line.length > MAX_KEPT_LINE_CHARS ? `${line.slice(0, MAX_KEPT_LINE_CHARS)}…` : line);
    if (this.lines.length > LAST_LINES) this.lines.shift();
  }
  get(): string[] {
    return [...this.lines];
  }
}

export async function runAttempt(o: AttemptOptions): Promise<AttemptReport> {
  const state = new StreamState();
  const last = new LastLines();
  const outcome: AttemptOutcome = {
    spawnError: null,
    killedFor: null,
    exitCode: null,
    signal: null,
    sessionId: null,
    result: null,
    decodeErrors: 0,
    resumed: o.resume !== null,
    stderr: '',
  };
  const settingsDir = createRunDir();
  let awaitingDecisions = 0;
  let idleTimer: NodeJS.Timeout | undefined;
  let durationTimer: NodeJS.Timeout | undefined;
  let stop: ((why: 'cancel' | 'duration' | 'idle') => void) | undefined;
  const armIdle = () => {
    clearTimeout(idleTimer);
    // A tool call waiting on a person is not the agent going silent.
    if (awaitingDecisions === 0) idleTimer = setTimeout(() => stop?.('idle'), o.idleTimeoutMs);
  };
  const hooks = await startHookServer({
    cd: o.cd,
    sandbox: o.sandbox,
    gate: o.gate,
    scope: o.scope ?? null,
    observer: {
      onPending: (r) => {
        awaitingDecisions++;
        clearTimeout(idleTimer);
        o.hookObserver?.onPending?.(r);
      },
      onDecided: (r, v) => {
        awaitingDecisions = Math.max(0, awaitingDecisions - 1);
        armIdle();
        o.hookObserver?.onDecided?.(r, v);
      },
    },
  });
  let keyFile: string | null = null;
  try {
    const settingsPath = join(settingsDir, 'settings.json');
    let keyHelper: string | null = null;
    if (o.credential) {
      keyFile = writeKeyFile(settingsDir, o.credential);
      keyHelper = keyHelperCommand(keyFile);
    }
    // Hidden from commands: every run's key (the keys folder, whole) and every run's folder (the
    // runs folder, whole: this run's hook secret and every other run's, present or future; and
    // those of an older build running beside this one, at the top of the temporary folder).
    // A linked worktree (a New session's): git commits on its own branch, the rest of its git data stays protected.
    const git = o.sandbox === 'danger-full-access' ? undefined : worktreeGitBinds(o.cd, o.sandbox === 'read-only' ? 'read-only' : 'workspace-write');
    const sandbox = claudeSandboxSettings(withExistingHidden({ mode: o.sandbox, root: o.cd, network: o.network ?? DEFAULT_NETWORK, hidden: o.hidden ?? [], ...(git ? { git } : {}) }), { secretDirs: [keysDir(), runsDir(), ...earlierRunDirs()], secretEnv: CREDENTIAL_ENV });
    await writeFile(settingsPath, JSON.stringify(runSettings({ hookUrl: hooks.url, secret: hooks.secret, keyHelper, sandbox })), { mode: 0o600 });
    // Read here, outside the sandbox, into the run's private folder: the CLI no longer reads it (launch.ts).
    const project = await readProjectInstructions(o.cd, o.hidden ?? []);
    const parts = [project, o.sessionInstructions ? `Standing instructions for this session:\n\n${o.sessionInstructions}` : null].filter((p): p is string => p !== null);
    const instructions = parts.length > 0 ? parts.join('\n\n') : null;
    let instructionsPath: string | null = null;
    if (instructions !== null) {
      instructionsPath = join(settingsDir, 'project-instructions.md');
      await writeFile(instructionsPath, instructions, { mode: 0o600 });
    }
    let mcpConfigPath: string | null = null;
    if (o.mcpServers && Object.keys(o.mcpServers).length > 0) {
      // In the run's folder: 0700, hidden from sandboxed commands, removed when the run ends.
      mcpConfigPath = join(settingsDir, 'mcp.json');
      await writeFile(mcpConfigPath, JSON.stringify({ mcpServers: o.mcpServers }), { mode: 0o600 });
    }
    const args = claudeArgs({ sandbox: o.sandbox, settingsPath, resume: o.resume, resumeAt: o.resumeAt ?? null, model: o.model ?? null, instructionsPath, mcpConfigPath });

    await new Promise<void>((resolveRun) => {
      let child;
      // Resolved first: the descriptor-closing prelude (platform/child-process) would report a
      // missing program as exit 127 rather than as the ENOENT/EACCES the outcome classifies.
      const program = resolveOnPath(o.claudePath, o.env.PATH);
      if (!program) {
        const code = existsSync(o.claudePath) ? 'EACCES' : 'ENOENT';
        outcome.spawnError = { code, message: o.redact(`spawn ${o.claudePath} ${code}`) };
        resolveRun();
        return;
      }
      try {
        const exec = cleanExec(program, args);
        // With MCP servers the CLI waits for them to connect before its first model call (in -p it
        // would start without their tools while they start): the built-in loop waits too.
        const env = mcpConfigPath ? { ...o.env, MCP_CONNECTION_NONBLOCKING: '0' } : o.env;
        child = spawn(exec.file, exec.args, { cwd: o.cd, env, detached: true, stdio: ['pipe', 'pipe', 'pipe'] });
      } catch (e) {
        const err = e as NodeJS.ErrnoException;
        outcome.spawnError = { code: err.code ?? 'UNKNOWN', message: o.redact(err.message) };
        resolveRun();
        return;
      }
      let settled = false;
      let exited = false;
      let drainTimer: NodeJS.Timeout | undefined;
      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(idleTimer);
        clearTimeout(durationTimer);
        clearTimeout(drainTimer);
        o.signal?.removeEventListener('abort', onAbort);
        liveRuns.delete(child);
        resolveRun();
      };
      let terminating: Promise<void> | null = null;
      stop = (why) => {
        if (outcome.killedFor !== null || exited) return;
        outcome.killedFor = why;
        terminating ??= terminateTree(child, o.killGraceMs ?? KILL_GRACE_MS);
      };
      const onAbort = () => stop?.('cancel');

      child.on('error', (e: NodeJS.ErrnoException) => {
        // The spawn itself failed (ENOENT, EACCES): no process, no 'close' with output.
        if (child.pid === undefined) {
          outcome.spawnError = { code: e.code ?? 'UNKNOWN', message: o.redact(e.message) };
          finish();
        }
      });
      if (child.pid === undefined) return;
      liveRuns.add(child);
      o.onSpawn?.(child.pid);
      if (o.signal?.aborted) onAbort();
      o.signal?.addEventListener('abort', onAbort, { once: true });
      armIdle();
      if (o.maxDurationMs > 0) durationTimer = setTimeout(() => stop?.('duration'), o.maxDurationMs);

      const out = new LineSplitter();
      const onLine = (rawLine: string) => {
        const line = o.redact(rawLine);
        const decoded = state.accept(line);
        if (decoded.kind === 'message') {
          if (decoded.message.type !== 'stream_event') last.push(line);
          o.onMessage?.(decoded.message);
        } else {
          last.push(line);
        }
      };
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        armIdle();
        for (const line of out.push(chunk)) onLine(line);
      });
      const errLines = new LineSplitter();
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        armIdle();
        for (const raw of errLines.push(chunk)) {
          const line = o.redact(raw);
          last.push(line);
          if (outcome.stderr.length < MAX_STDERR_CHARS) outcome.stderr += line + '\n';
        }
      });
      // The CLI may exit before reading all of a long prompt: that is its exit to report, not ours.
      child.stdin.on('error', () => undefined);
      child.stdin.end(o.prompt);

      child.on('exit', (code, signal) => {
        exited = true;
        outcome.exitCode = code;
        outcome.signal = signal;
        // Whatever the CLI left running in its group (a background server) ends with the run.
        if (terminating === null && groupAlive(child.pid!)) terminating = terminateTree(child, o.killGraceMs ?? KILL_GRACE_MS);
        drainTimer = setTimeout(() => {
          child.stdout.destroy();
          child.stderr.destroy();
          finish();
        }, PIPE_DRAIN_MS);
      });
      child.on('close', () => {
        for (const line of out.flush()) onLine(line);
        for (const raw of errLines.flush()) {
          const line = o.redact(raw);
          last.push(line);
          outcome.stderr += line + '\n';
        }
        void (terminating ?? Promise.resolve()).then(finish);
      });
    });
  } finally {
    await hooks.close();
    if (keyFile) removeKeyFile(keyFile);
    removeRunDir(settingsDir);
  }
  outcome.sessionId = state.sessionId;
  outcome.result = state.result;
  outcome.decodeErrors = state.decodeErrors;
  return { outcome, state, lastLines: last.get() };
}
