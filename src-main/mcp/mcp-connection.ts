/**
 * One MCP server's client: started lazily, its tools listed, calls made with a timeout, a
 * server that dies reported and restarted once. Uses the official SDK's Client with its stdio
 * or streamable HTTP transport. Children start through the platform's helpers: an allow-listed
 * environment plus the server's own variables, and only descriptors 0–2 (cleanExec).
 */
import { statSync } from 'node:fs';
import { isAbsolute } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpToolInfo } from '../../src-preload/contract';
import { childEnv, cleanExec, resolveOnPath } from '../platform/child-process';
import type { Logger } from '../platform/logger';
import { expandReferences, redactSecretForms, secretForms } from './mcp-model';

/** How long a server has to start and answer `initialize` and `tools/list`: npx-launched servers download first. */
export const MCP_START_TIMEOUT_MS = 60_000;
/** How long one tool call may take before it is abandoned (the model gets the error in words). */
export const MCP_CALL_TIMEOUT_MS = 120_000;
/** A server that dies is started again this many times; after that it stays failed until tested or enabled again. */
const MAX_RESTARTS = 1;
/** The end of a server's stderr kept for its last error (enough for a stack trace's head). */
const STDERR_TAIL_CHARS = 2_000;

export interface ResolvedServer {
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  url: string | null;
  /** Every variable and header the server gets: the user's secrets and a suggestion's shown values. */
  env: Record<string, string>;
  headers: Record<string, string>;
  /** The values that are secrets: never logged, never in status, errors or results (redacted). */
  secrets: string[];
}

export interface McpToolSpec extends McpToolInfo {
  inputSchema: Record<string, unknown>;
}

export type ConnectionStatus = 'stopped' | 'starting' | 'running' | 'failed';

export interface CallResult {
  content: string;
  isError: boolean;
}

export class McpConnection {
  status: ConnectionStatus = 'stopped';
  lastError: string | null = null;
  tools: McpToolSpec[] = [];
  private client: Client | null = null;
  private starting: Promise<Client> | null = null;
  private restarts = 0;
  private closing = false;
  private stderrTail = '';
  /** The last error is a crash the server was restarted after. */
  private crashed = false;
  private readonly secretForms: string[];
  /** When the status last changed (a counter): the server's row shows its latest connection. */
  changedAt = 0;

  /**
   * `cwd` is where a command server runs: the same folder for every session and for a test, and
   * the folder Claude Code's config changes to (mcp-service mcpServerFolder).
   */
  readonly server: ResolvedServer;

  constructor(
    configured: ResolvedServer,
    readonly cwd: string,
    private readonly log: Logger,
    private readonly changed: () => void,
    private readonly base: NodeJS.ProcessEnv = process.env,
  ) {
    // `${VAR}` filled as Claude Code fills them, from the environment its commands get (no
    // model credentials, none of Flightdeck's own variables).
    const from = childEnv('command', base);
    const fill = (t: string) => expandReferences(t, from);
    const fillAll = (r: Record<string, string>) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, fill(v)]));
    this.server = {
      ...configured,
      command: configured.command === null ? null : fill(configured.command),
      args: configured.args.map(fill),
      url: configured.url === null ? null : fill(configured.url),
      env: fillAll(configured.env),
      headers: fillAll(configured.headers),
      secrets: configured.secrets.map(fill),
    };
    this.secretForms = secretForms(this.server.secrets);
  }

  /** The text with every secret of this server (and its bare credential) replaced by "***". */
  redact(text: string): string {
    return redactSecretForms(text, this.secretForms);
  }

  private notify(): void {
    this.changedAt = nextChange();
    this.changed();
  }

  /** Starts the server when it is not running; resolves with its client, rejects with the error in words. */
  async ensure(): Promise<Client> {
    if (this.client && this.status === 'running') return this.client;
    this.starting ??= this.start().finally(() => (this.starting = null));
    return this.starting;
  }

  /** Stops it, forgets its restart count, starts it again and lists its tools. */
  async restart(): Promise<McpToolSpec[]> {
    await this.close();
    this.restarts = 0;
    this.crashed = false;
    this.lastError = null;
    await this.ensure();
    return this.tools;
  }

  private transport(): Transport {
    const s = this.server;
    if (s.transport === 'http') {
      return new StreamableHTTPClientTransport(new URL(s.url!), { requestInit: { headers: { ...s.headers } } });
    }
    const env = childEnv('minimal', this.base, s.env);
    const command = s.command!;
    let file: string | null;
    if (isAbsolute(command)) file = command;
    else if (command.includes('/') || command.includes('\\')) throw new Error(`The command "${command}" is a relative path; give an absolute path or a program on PATH.`);
    else file = resolveOnPath(command, env.PATH);
    if (!file) throw new Error(`The command "${command}" was not found on PATH.`);
    if (!isDirectory(this.cwd)) throw new Error(`The folder it runs in, ${this.cwd}, does not exist (was the session's worktree removed?).`);
    const exec = cleanExec(file, s.args);
    const t = new StdioClientTransport({ command: exec.file, args: exec.args, env, stderr: 'pipe', cwd: this.cwd });
    t.stderr?.on('data', (chunk: Buffer) => {
      this.stderrTail = (this.stderrTail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
    });
    return t;
  }

  private async start(): Promise<Client> {
    this.closing = false;
    this.status = 'starting';
    this.stderrTail = '';
    this.notify();
    const client = new Client({ name: 'flightdeck', version: '1.0.0' });
    try {
      const transport = this.transport();
      await client.connect(transport, { timeout: MCP_START_TIMEOUT_MS });
      const listed = await client.listTools(undefined, { timeout: MCP_START_TIMEOUT_MS });
      // Descriptions reach the renderer and the model: a server that names its secret in one is redacted too.
      this.tools = listed.tools.map((t) => ({ name: t.name, description: this.redact(t.description ?? ''), inputSchema: (t.inputSchema as Record<string, unknown>) ?? { type: 'object' } }));
    } catch (e) {
      this.closing = true;
      await client.close().catch(() => undefined); // already failed: closing is best effort
      this.client = null;
      this.status = 'failed';
      this.lastError = this.describe(e, 'could not be started');
      this.notify();
      throw new Error(this.lastError);
    }
    // Set after connect: a failure during start is reported above, not as a crash.
    client.onclose = () => this.onClosed(client);
    this.client = client;
    this.status = 'running';
    // After a crash the restarted server keeps saying what happened until it is tested again.
    if (!this.crashed) this.lastError = null;
    this.notify();
    return client;
  }

  private onClosed(client: Client): void {
    if (this.closing || this.client !== client) return;
    this.client = null;
    const why = this.describe(null, 'stopped unexpectedly');
    this.log.warn('MCP server stopped', { server: this.server.name, restarts: this.restarts });
    if (this.restarts < MAX_RESTARTS) {
      this.restarts++;
      this.crashed = true;
      this.lastError = `${why} It was started again.`;
      this.status = 'stopped';
      this.notify();
      this.ensure().catch(() => undefined); // the failure is recorded in status and lastError
      return;
    }
    this.status = 'failed';
    this.lastError = `${why} It was already restarted once, so it is left stopped: test it in Settings → MCP servers (or \`mcp test ${this.server.name}\`) to start it again.`;
    this.notify();
  }

  private describe(e: unknown, what: string): string {
    const msg = e instanceof Error ? e.message : e === null ? '' : String(e);
    const tail = this.stderrTail.trim().split('\n').slice(-5).join('\n');
    const text = `The MCP server "${this.server.name}" ${what}${msg ? `: ${msg}` : '.'}${tail ? ` Its last output: ${tail}` : ''}`;
    return this.redact(text.endsWith('.') ? text : `${text}.`);
  }

  async call(tool: string, args: Record<string, unknown>, signal?: AbortSignal): Promise<CallResult> {
    // A failed server stays stopped until the user tests it: calls do not start it behind their back.
    if (this.status === 'failed') return { content: this.lastError ?? `The MCP server "${this.server.name}" is stopped.`, isError: true };
    let client: Client;
    try {
      client = await this.ensure();
    } catch (e) {
      return { content: e instanceof Error ? e.message : String(e), isError: true };
    }
    try {
      const r = await client.callTool({ name: tool, arguments: args }, undefined, { timeout: MCP_CALL_TIMEOUT_MS, ...(signal ? { signal } : {}) });
      return { content: this.redact(resultText(r.content)), isError: r.isError === true };
    } catch (e) {
      const msg = e instanceof Error ? e.message : String(e);
      const died = this.client !== client;
      return { content: this.redact(`The MCP tool ${tool} of "${this.server.name}" failed: ${msg}${died ? ` (the server stopped during the call${this.lastError ? `; ${this.lastError}` : ''})` : ''}`), isError: true };
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    const c = this.client;
    this.client = null;
    if (this.starting) await this.starting.catch(() => undefined); // its failure is already recorded
    const started = this.client as Client | null;
    this.client = null;
    await Promise.all([c, started].filter((x): x is Client => x !== null).map((x) => x.close().catch(() => undefined))); // a dead transport has nothing to close
    if (this.status !== 'failed') this.status = 'stopped';
  }
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false; // gone or unreadable: the server cannot run there
  }
}

let changes = 0;
function nextChange(): number {
  return ++changes;
}

/** What the model reads from a tool result: its text, and a note for content it cannot read as text. */
function resultText(content: unknown): string {
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const c of content as Array<Record<string, unknown>>) {
    if (c.type === 'text' && typeof c.text === 'string') parts.push(c.text);
    else if (c.type === 'resource' && c.resource && typeof (c.resource as { text?: unknown }).text === 'string') parts.push((c.resource as { text: string }).text);
    else if (c.type === 'resource_link') parts.push(`[resource ${String(c.uri ?? '')}]`);
    else parts.push(`[${String(c.type)} content not shown]`);
  }
  return parts.join('\n');
}
