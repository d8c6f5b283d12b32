/**
 * Claude Code's tool calls reach Flightdeck's approval path through an HTTP PreToolUse hook
 * (Claude Code 2.1.197 posts the hook input to a URL and obeys the JSON answer). Each run gets
 * its own loopback server and random secret; the generated `--settings` file names both.
 *
 * Fail closed: a request that cannot be answered (bad body, gate error) is denied, and if the
 * server cannot be reached at all Claude Code falls back to its own permission rules, which in
 * `-p` mode refuse writes and commands that were not granted.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Sandbox } from './core/params';
import { confinementVerdict, headlessVerdict, scopeVerdict, type HookVerdict } from './core/hook-policy';
import type { ContractScope } from './core/scope';
import { engineToolInput, engineToolName, toolPaths, toolSummary } from './core/tool-map';

/** A hook body is a tool call's input; a file write of a few MB is the largest expected. */
const MAX_HOOK_BODY_BYTES = 32 * 1024 * 1024;

export type { HookVerdict };

export interface ToolApprovalRequest {
  /** Claude Code's tool name (Bash, Write, Edit…). */
  claudeTool: string;
  /** The engine's name for it (bash, write, patch…), what policies and session rules use. */
  tool: string;
  /** The input in the engine's shape (paths relative to cd). */
  input: Record<string, unknown>;
  /** The input exactly as Claude Code sent it. */
  claudeInput: Record<string, unknown>;
  toolUseId: string;
  /** One line for the dialog: the command, or "write src/a.ts". */
  summary: string;
  cd: string;
  sandbox: Sandbox;
  claudeSessionId: string | null;
}

/**
 * Flightdeck's approval path as the executor sees it: the engine's gate (policy, session
 * memory, hard floor, the approval dialog) behind one call. `signal` aborts when the run ends.
 */
export interface ApprovalHook {
  /**
   * Asked first, before any verdict, the hook's own refusals too (each goes back to the model as
   * the CLI's next call): a verdict that stands whatever the tool is, or null to go on.
   */
  admit?(request: ToolApprovalRequest, signal: AbortSignal): Promise<HookVerdict | null>;
  decide(request: ToolApprovalRequest, signal: AbortSignal): Promise<HookVerdict>;
}

export interface HookObserver {
  /** A decision started (the run may now wait on a person: idle time does not count). Always followed by onDecided. */
  onPending?(request: ToolApprovalRequest): void;
  onDecided?(request: ToolApprovalRequest, verdict: HookVerdict): void;
}

export interface HookServer {
  url: string;
  secret: string;
  /** Decisions in progress. */
  pending(): number;
  close(): Promise<void>;
}

/** Real path of `p`, or of its deepest existing ancestor joined with the rest (a file about to be created). */
export async function resolveReal(p: string): Promise<string> {
  const abs = resolve(p);
  try {
    return await realpath(abs);
  } catch {
    const parent = dirname(abs);
    if (parent === abs) return abs;
    return join(await resolveReal(parent), basename(abs));
  }
}

/**
 * What the files a tool call names are, for the checks before the gate: a FIFO, socket or
 * device is refused for every file tool (Claude Code's Read or Write would wait on it forever,
 * and its run with it); `targetLinks` is the most hard links among them (a write through a
 * hard link can change a file outside the working folder: the policy asks first).
 */
export async function fileFacts(resolvedPaths: readonly string[]): Promise<{ special: HookVerdict | null; targetLinks: number }> {
  let targetLinks = 1;
  for (const p of resolvedPaths) {
    const st = await lstat(p).catch(() => null);
    if (!st) continue;
    if (!st.isFile() && !st.isDirectory() && !st.isSymbolicLink()) {
      const kind = st.isFIFO() ? 'a FIFO (named pipe)' : st.isSocket() ? 'a socket' : st.isCharacterDevice() ? 'a character device' : st.isBlockDevice() ? 'a block device' : 'not a regular file';
      return { special: { allow: false, reason: `${p} is ${kind}, not a regular file: file tools are refused on it (opening it could wait forever).` }, targetLinks };
    }
    if (st.isFile()) targetLinks = Math.max(targetLinks, st.nlink);
  }
  return { special: null, targetLinks };
}

function answer(verdict: HookVerdict): string {
  return JSON.stringify({
    hookSpecificOutput: {
      hookEventName: 'PreToolUse',
      permissionDecision: verdict.allow ? 'allow' : 'deny',
      permissionDecisionReason: verdict.reason,
    },
  });
}

function readBody(req: IncomingMessage): Promise<string | null> {
  return new Promise((resolveBody) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size <= MAX_HOOK_BODY_BYTES) chunks.push(c);
    });
    req.on('end', () => resolveBody(size > MAX_HOOK_BODY_BYTES ? null : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolveBody(null));
  });
}

function secretMatches(header: string | undefined, secret: string): boolean {
  const expected = Buffer.from(`Bearer ${secret}`);
  const got = Buffer.from(header ?? '');
  return got.length === expected.length && timingSafeEqual(got, expected);
}

export interface HookServerOptions {
  /** cd, real path. */
  cd: string;
  sandbox: Sandbox;
  gate: ApprovalHook | null;
  observer?: HookObserver;
  /** The Implementation Contract's scope, enforced before each file change (null: no contract). */
  scope?: ContractScope | null;
}

export async function startHookServer(opts: HookServerOptions): Promise<HookServer> {
  const secret = randomBytes(24).toString('hex');
  const inFlight = new Set<AbortController>();
  const rel = (p: string): string => {
    const r = relative(opts.cd, isAbsolute(p) ? p : join(opts.cd, p));
    return sep === '/' ? r : r.split(sep).join('/');
  };

  /** `body` null: the request could not be read. Its refusal, like every other, is admitted first. */
  const decide = async (body: Record<string, unknown> | null, signal: AbortSignal): Promise<HookVerdict> => {
    const claudeTool = typeof body?.tool_name === 'string' ? body.tool_name : '';
    const claudeInput = typeof body?.tool_input === 'object' && body.tool_input !== null ? (body.tool_input as Record<string, unknown>) : {};
    if (body === null || claudeTool === '') {
      const toolUseId = typeof body?.tool_use_id === 'string' ? body.tool_use_id : '';
      const unnamed: ToolApprovalRequest = { claudeTool: '', tool: '', input: {}, claudeInput: {}, toolUseId, summary: '', cd: opts.cd, sandbox: opts.sandbox, claudeSessionId: null };
      const admitted = (await opts.gate?.admit?.(unnamed, signal)) ?? null;
      return admitted ?? { allow: false, reason: body === null ? 'The hook request could not be read.' : 'The hook request named no tool.' };
    }
    const request: ToolApprovalRequest = {
      claudeTool,
      tool: engineToolName(claudeTool),
      input: engineToolInput(claudeTool, claudeInput, rel),
      claudeInput,
      toolUseId: typeof body.tool_use_id === 'string' ? body.tool_use_id : '',
      summary: toolSummary(claudeTool, claudeInput, rel),
      cd: opts.cd,
      sandbox: opts.sandbox,
      claudeSessionId: typeof body.session_id === 'string' ? body.session_id : null,
    };
    opts.observer?.onPending?.(request);
    let verdict: HookVerdict = { allow: false, reason: 'Flightdeck could not decide on this tool call; it was refused.' };
    try {
      const admitted = (await opts.gate?.admit?.(request, signal)) ?? null;
      if (admitted) return (verdict = admitted);
      const paths = await Promise.all(toolPaths(claudeTool, claudeInput).map((p) => resolveReal(isAbsolute(p) ? p : join(opts.cd, p))));
      const facts = await fileFacts(paths);
      verdict =
        confinementVerdict(opts.sandbox, opts.cd, paths) ??
        scopeVerdict(opts.scope ?? null, opts.cd, claudeTool, paths) ??
        facts.special ??
        (opts.gate ? await opts.gate.decide(request, signal) : headlessVerdict(opts.sandbox, request.tool, request.input, { targetLinks: facts.targetLinks }));
      return verdict;
    } finally {
      opts.observer?.onDecided?.(request, verdict);
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    if (req.method !== 'POST' || req.url !== '/pre-tool-use') {
      res.writeHead(404).end();
      return;
    }
    if (!secretMatches(req.headers.authorization, secret)) {
      res.writeHead(403).end();
      return;
    }
    const raw = await readBody(req);
    const ctl = new AbortController();
    inFlight.add(ctl);
    // Claude Code gave up on the request (it was killed): the decision is moot.
    res.on('close', () => {
      if (!res.writableFinished) ctl.abort();
    });
    let verdict: HookVerdict;
    try {
      let body: unknown = null;
      try {
        body = raw === null ? null : JSON.parse(raw);
      } catch {
        // Not JSON: refused as unreadable (after admit, like any refusal).
      }
      verdict = await decide(typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Record<string, unknown>) : null, ctl.signal);
    } catch (e) {
      verdict = { allow: false, reason: `Flightdeck could not decide on this tool call (${e instanceof Error ? e.message : String(e)}); it was refused.` };
    } finally {
      inFlight.delete(ctl);
    }
    if (!res.destroyed) res.writeHead(200, { 'content-type': 'application/json' }).end(answer(verdict));
  };

  const server: Server = createServer((req, res) => {
    void handle(req, res);
  });
  await new Promise<void>((resolveListen, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolveListen());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/pre-tool-use`,
    secret,
    pending: () => inFlight.size,
    close: () =>
      new Promise<void>((resolveClose) => {
        for (const ctl of inFlight) ctl.abort();
        server.closeAllConnections();
        server.close(() => resolveClose());
      }),
  };
}
