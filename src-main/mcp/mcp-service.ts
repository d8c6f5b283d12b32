/**
 * MCP servers configured once (issue 25): their configs (settings) and secrets (the key store,
 * like provider keys), their clients, and the tool provider both executors read — the built-in
 * loop's extra tools and Claude Code's generated `--mcp-config`. Every call of an MCP tool goes
 * through the approval gate like any other tool (tool-exec / the Claude Code approval hook).
 */
import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { AppError, McpServerInput, type McpServer, type McpSuggestion, type McpTestResult } from '../../src-preload/contract';
import type { ExtraTool } from '../agents/tools/types';
import type { SecretStore } from '../agents/provider/secrets';
import type { EventHub } from '../bridge/event-hub';
import type { Logger } from '../platform/logger';
import type { SettingsService } from '../settings/settings-service';
import { McpConnection, type ResolvedServer } from './mcp-connection';
import { childEnv } from '../platform/child-process';
import { BoundedSet, expandReferences, redactSecretForms, secretForms, suggestionRefusal } from './mcp-model';

/** Where the list of servers is kept in the settings table. */
const CONFIG_KEY = 'mcp.servers';
/** The prefix of MCP tools' names, as Claude Code names them: mcp__SERVER__TOOL. */
export const MCP_TOOL_PREFIX = 'mcp__';
/** Tool names the model API accepts. */
const API_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
/** A .mcp.json bigger than this is not a list of servers. */
const MAX_MCP_JSON_BYTES = 256 * 1024;
/**
 * Failures told to sessions are remembered up to this many (session, server, error) keys, the
 * oldest forgotten first: enough for every session a person has open, while an app left
 * running for weeks does not keep one per session it ever ran. A forgotten one is at worst
 * told again.
 */
const MAX_TOLD = 1_000;
/**
 * Where a command server runs, under both executors: the user's home folder, never the
 * session's worktree. A worktree is the agent's to write, and what a program reads from its
 * working folder is code or configuration it trusts (`python -m` imports from it, `npx` reads
 * its `.npmrc`, `uvx` its `uv.toml`): a sandboxed agent would run code unsandboxed through
 * the server's next start.
 */
export function mcpServerFolder(): string {
  return homedir();
}

interface StoredServer {
  name: string;
  transport: 'stdio' | 'http';
  command: string | null;
  args: string[];
  url: string | null;
  /** Secret values are in the key store under these names. */
  envNames: string[];
  headerNames: string[];
  /** Values that are not secrets (a repository's suggestion, shown to the user as they are). */
  plainEnv?: Record<string, string>;
  plainHeaders?: Record<string, string>;
  enabled: boolean;
  projectIds: string[] | null;
  /** Absent in configs saved before it existed: every tool asks. */
  toolPolicy?: Record<string, 'allow' | 'deny'>;
}

export interface McpServiceOptions {
  settings: SettingsService;
  secrets: SecretStore;
  hub: EventHub;
  logger: Logger;
  /** A session's project, for servers enabled per project. */
  sessionProject(sessionId: string): string | null | undefined;
  /** A project's repository root and whether the user trusts it (for its .mcp.json). */
  projectRoot(projectId: string): string;
  trusted(root: string): Promise<boolean>;
  env?: NodeJS.ProcessEnv;
}

export function mcpToolName(server: string, tool: string): string {
  return `${MCP_TOOL_PREFIX}${server}__${tool}`;
}

function secretKey(server: string, kind: 'env' | 'header', name: string): string {
  return `mcp:${server}:${kind}:${name}`;
}

export class McpService {
  /** Per server, its clients by working folder, least recently used first. */
  private readonly connections = new Map<string, McpConnection>();
  /** Failures already told to a session (session, server, error); bounded. */
  private readonly told = new BoundedSet(MAX_TOLD);
  private disposed = false;

  constructor(private readonly o: McpServiceOptions) {}

  private stored(): StoredServer[] {
    const v = this.o.settings.getInternal<StoredServer[]>(CONFIG_KEY);
    return Array.isArray(v) ? v : [];
  }

  private save(list: StoredServer[]): void {
    this.o.settings.setInternal(CONFIG_KEY, list);
  }

  private find(name: string): StoredServer {
    const s = this.stored().find((x) => x.name === name);
    if (!s) throw new AppError('not_found', `There is no MCP server named "${name}".`);
    return s;
  }

  private resolve(s: StoredServer): ResolvedServer {
    const env: Record<string, string> = { ...(s.plainEnv ?? {}) };
    const headers: Record<string, string> = { ...(s.plainHeaders ?? {}) };
    const secrets: string[] = [];
    for (const k of s.envNames) secrets.push((env[k] = this.o.secrets.get(secretKey(s.name, 'env', k)) ?? ''));
    for (const k of s.headerNames) secrets.push((headers[k] = this.o.secrets.get(secretKey(s.name, 'header', k)) ?? ''));
    return { name: s.name, transport: s.transport, command: s.command, args: s.args, url: s.url, env, headers, secrets };
  }

  /** The server's one client (started when first needed). */
  private connection(s: StoredServer): McpConnection {
    let c = this.connections.get(s.name);
    if (!c) this.connections.set(s.name, (c = new McpConnection(this.resolve(s), mcpServerFolder(), this.o.logger, () => this.publish(), this.o.env)));
    return c;
  }

  private clients(name: string): McpConnection[] {
    const c = this.connections.get(name);
    return c ? [c] : [];
  }

  /**
   * A server's row shows its clients as one: failed when one failed (that error is what the user
   * must see), else starting, running or stopped; its latest such client's error and tools.
   */
  private view(s: StoredServer): McpServer {
    const all = this.clients(s.name);
    const status = (['failed', 'starting', 'running', 'stopped'] as const).find((st) => all.some((x) => x.status === st)) ?? 'stopped';
    const latest = (list: McpConnection[]) => list.reduce<McpConnection | undefined>((a, b) => (!a || b.changedAt > a.changedAt ? b : a), undefined);
    const c = latest(all.filter((x) => x.status === status));
    const withTools = c?.tools.length ? c : latest(all.filter((x) => x.tools.length > 0));
    return {
      name: s.name,
      transport: s.transport,
      command: s.command,
      args: s.args,
      url: s.url,
      envNames: s.envNames,
      headerNames: s.headerNames,
      plainEnv: s.plainEnv ?? {},
      plainHeaders: s.plainHeaders ?? {},
      enabled: s.enabled,
      projectIds: s.projectIds,
      status,
      lastError: c?.lastError ?? latest(all.filter((x) => x.lastError !== null))?.lastError ?? null,
      tools: (withTools?.tools ?? []).map((t) => ({ name: t.name, description: t.description })),
      toolPolicy: s.toolPolicy ?? {},
    };
  }

  list(): McpServer[] {
    return this.stored().map((s) => this.view(s));
  }

  get(name: string): McpServer {
    return this.view(this.find(name));
  }

  private publish(): void {
    if (this.disposed) return;
    this.o.hub.publish('mcp.changed', { servers: this.list() });
  }

  /** `plain`: the values are a repository's suggestion, kept and shown as they are, not secrets. */
  add(raw: McpServerInput, opts: { enabled?: boolean; projectIds?: string[] | null; plain?: boolean } = {}): McpServer {
    const input = McpServerInput.parse(raw);
    const list = this.stored();
    if (list.some((s) => s.name === input.name)) throw new AppError('conflict', `An MCP server named "${input.name}" already exists; remove it first or pick another name.`);
    const env = input.transport === 'stdio' ? input.env : {};
    const headers = input.transport === 'http' ? input.headers : {};
    // Secrets first: a server is never listed with values that were not saved.
    if (!opts.plain) {
      for (const [k, v] of Object.entries(env)) this.o.secrets.set(secretKey(input.name, 'env', k), v);
      for (const [k, v] of Object.entries(headers)) this.o.secrets.set(secretKey(input.name, 'header', k), v);
    }
    const stored: StoredServer = {
      name: input.name,
      transport: input.transport,
      command: input.transport === 'stdio' ? input.command : null,
      args: input.transport === 'stdio' ? input.args : [],
      url: input.transport === 'http' ? input.url : null,
      envNames: opts.plain ? [] : Object.keys(env),
      headerNames: opts.plain ? [] : Object.keys(headers),
      ...(opts.plain ? { plainEnv: env, plainHeaders: headers } : {}),
      enabled: opts.enabled ?? true,
      projectIds: opts.projectIds ?? null,
    };
    this.save([...list, stored]);
    this.o.logger.info('MCP server added', { server: stored.name, transport: stored.transport });
    this.publish();
    return this.view(stored);
  }

  async remove(name: string): Promise<boolean> {
    const list = this.stored();
    const s = list.find((x) => x.name === name);
    if (!s) return false;
    await this.stop(name);
    this.save(list.filter((x) => x.name !== name));
    for (const k of s.envNames) this.o.secrets.delete(secretKey(name, 'env', k));
    for (const k of s.headerNames) this.o.secrets.delete(secretKey(name, 'header', k));
    this.publish();
    return true;
  }

  async setEnabled(name: string, enabled: boolean, projectIds?: string[] | null): Promise<McpServer> {
    const list = this.stored();
    const s = list.find((x) => x.name === name);
    if (!s) throw new AppError('not_found', `There is no MCP server named "${name}".`);
    s.enabled = enabled;
    if (projectIds !== undefined) s.projectIds = projectIds;
    this.save(list);
    if (!enabled) await this.stop(name);
    this.publish();
    return this.view(s);
  }

  /** One tool asks (the default), is always allowed or always denied. */
  setToolPolicy(name: string, tool: string, policy: 'ask' | 'allow' | 'deny'): McpServer {
    const list = this.stored();
    const s = list.find((x) => x.name === name);
    if (!s) throw new AppError('not_found', `There is no MCP server named "${name}".`);
    const next = { ...(s.toolPolicy ?? {}) };
    if (policy === 'ask') delete next[tool];
    else next[tool] = policy;
    s.toolPolicy = next;
    this.save(list);
    this.publish();
    return this.view(s);
  }

  /** For the approval gate: what the user set for an mcp__SERVER__TOOL name, or null (ask). */
  toolPolicy(fullName: string): 'allow' | 'deny' | null {
    if (!fullName.startsWith(MCP_TOOL_PREFIX)) return null;
    const rest = fullName.slice(MCP_TOOL_PREFIX.length);
    const cut = rest.indexOf('__');
    if (cut <= 0) return null;
    const s = this.stored().find((x) => x.name === rest.slice(0, cut));
    return s?.toolPolicy?.[rest.slice(cut + 2)] ?? null;
  }

  /** Stops the server's client. */
  private async stop(name: string): Promise<void> {
    const all = this.clients(name);
    this.connections.delete(name);
    await Promise.all(all.map((c) => c.close()));
  }

  /**
   * Starts the server afresh (in the home folder: a test has no session) and lists its tools;
   * the error in words when it fails. Every other client of it is stopped, so sessions start
   * theirs again, and sessions will be told of a new failure.
   */
  async test(name: string): Promise<McpTestResult> {
    const s = this.find(name);
    await this.stop(name);
    this.told.deleteWhere((k) => k.split('\0')[1] === name);
    const c = this.connection(s);
    try {
      const tools = await c.restart();
      return { ok: true, tools: tools.map((t) => ({ name: t.name, description: t.description })), error: null };
    } catch (e) {
      return { ok: false, tools: [], error: e instanceof Error ? e.message : String(e) };
    } finally {
      this.publish();
    }
  }

  /** The servers a session (of a project, or none) uses. */
  private enabledFor(projectId: string | null | undefined): StoredServer[] {
    return this.stored().filter((s) => s.enabled && (s.projectIds === null || (projectId != null && s.projectIds.includes(projectId))));
  }

  /**
   * Before a model call: starts the session's enabled servers that are not running, so their
   * tools can be offered. A server that fails is left out (its status and last error say why).
   */
  async prepare(sessionId: string): Promise<string[]> {
    const servers = this.enabledFor(this.o.sessionProject(sessionId));
    const clients = new Map(servers.map((s) => [s.name, this.connection(s)]));
    await Promise.all(
      servers.map((s) => {
        const c = clients.get(s.name)!;
        // A server that failed is not started again before every model call (each try could
        // take the whole start timeout): Test in Settings or `mcp test` starts it again.
        if (c.status === 'failed') return undefined;
        return c.ensure().catch(() => undefined); // recorded as the server's status and last error
      }),
    );
    // Each failure is told once per session: the model works without that server's tools.
    const notices: string[] = [];
    for (const s of servers) {
      const c = clients.get(s.name);
      if (c?.status !== 'failed' || !c.lastError) continue;
      const key = `${sessionId}\0${s.name}\0${c.lastError}`;
      if (this.told.has(key)) continue;
      this.told.add(key);
      notices.push(`${c.lastError} Its tools are not offered to the agent; test it in Settings → MCP servers.`);
    }
    return notices;
  }

  /** The built-in loop's MCP tools for a session: mcp__SERVER__TOOL, from servers that listed them. */
  toolsFor(sessionId: string): ExtraTool[] {
    const out: ExtraTool[] = [];
    for (const s of this.enabledFor(this.o.sessionProject(sessionId))) {
      const c = this.connections.get(s.name);
      if (!c) continue;
      for (const t of c.tools) {
        const name = mcpToolName(s.name, t.name);
        if (!API_TOOL_NAME.test(name)) continue;
        out.push({
          spec: { name, description: `${t.description || t.name} (MCP server ${s.name})`, input_schema: { type: 'object', ...t.inputSchema } },
          // Looked up at the call: a server removed or disabled since is not started again.
          run: async (input, call) => {
            const now = this.enabledFor(this.o.sessionProject(sessionId)).find((x) => x.name === s.name);
            if (!now) return { content: `The MCP server "${s.name}" was removed or disabled; its tools are no longer available.`, isError: true };
            return this.connection(now).call(t.name, input, call.signal);
          },
        });
      }
    }
    return out;
  }

  /**
   * Claude Code's `--mcp-config` content for a session of this project: the same servers with
   * their secrets. Written only to a private 0600 file (see coder), never logged. Claude Code
   * would start a command server in its own working folder, the session's worktree: a POSIX
   * shell changes to the folder the built-in loop uses (mcpServerFolder) and then becomes the
   * server, so the worktree's files are never the server's configuration.
   */
  claudeConfig(projectId: string | null | undefined): { mcpServers: Record<string, Record<string, unknown>> } {
    const mcpServers: Record<string, Record<string, unknown>> = {};
    for (const s of this.enabledFor(projectId)) {
      const r = this.resolve(s);
      mcpServers[s.name] = s.transport === 'stdio' ? { type: 'stdio', ...inFolder(r.command!, r.args), env: r.env } : { type: 'http', url: r.url, headers: r.headers };
    }
    return { mcpServers };
  }

  /**
   * An MCP tool's result (mcp__SERVER__TOOL) with that server's secrets hidden: what Claude Code
   * reports of its calls is shown and stored like the built-in loop's (McpConnection.call).
   */
  redactToolResult(tool: string, text: string): string {
    if (!tool.startsWith(MCP_TOOL_PREFIX)) return text;
    const rest = tool.slice(MCP_TOOL_PREFIX.length);
    const s = this.stored().find((x) => rest.startsWith(`${x.name}__`));
    if (!s) return text;
    // As written and as filled in (`${VAR}`: Claude Code fills them from its environment).
    const from = childEnv('command', this.o.env ?? process.env);
    const values = this.resolve(s).secrets.flatMap((v) => [v, expandReferences(v, from)]);
    return redactSecretForms(text, secretForms(values));
  }

  /** What a trusted project's .mcp.json suggests; nothing while the project is not trusted. */
  async suggestions(projectId: string): Promise<{ trusted: boolean; servers: McpSuggestion[] }> {
    const root = this.o.projectRoot(projectId);
    if (!(await this.o.trusted(root))) return { trusted: false, servers: [] };
    const names = new Set(this.stored().map((s) => s.name));
    return {
      trusted: true,
      servers: readMcpJson(root).map((s) => {
        const shape = suggestedShape(s);
        return { name: s.name, transport: s.transport, ...shape, added: names.has(s.name), refused: suggestionRefusal(shape) };
      }),
    };
  }

  /** Adds one suggested server, enabled for that project only. */
  async addSuggested(projectId: string, name: string): Promise<McpServer> {
    const root = this.o.projectRoot(projectId);
    if (!(await this.o.trusted(root))) throw new AppError('conflict', "This project is not trusted: its .mcp.json is not offered. Review and trust it first.");
    const s = readMcpJson(root).find((x) => x.name === name);
    if (!s) throw new AppError('not_found', `The project's .mcp.json suggests no server named "${name}".`);
    const refused = suggestionRefusal(suggestedShape(s));
    if (refused) throw new AppError('conflict', `The suggested server "${name}" is not added. ${refused}`);
    // Its values come from the repository, shown to the user as they are: not the user's secrets.
    return this.add(s, { enabled: true, projectIds: [projectId], plain: true });
  }

  dispose(): void {
    this.disposed = true;
    for (const c of this.connections.values()) void c.close();
    this.connections.clear();
  }

  /** Stops every client (awaited: tests and the CLI end with no child left). */
  async close(): Promise<void> {
    this.disposed = true;
    await Promise.all([...this.connections.values()].map((c) => c.close()));
    this.connections.clear();
  }
}

/** What a suggestion shows: its command or URL and every value as the repository wrote it. */
function suggestedShape(s: ReturnType<typeof McpServerInput.parse>): Omit<McpSuggestion, 'name' | 'transport' | 'added' | 'refused'> {
  return {
    command: s.transport === 'stdio' ? s.command : null,
    args: s.transport === 'stdio' ? s.args : [],
    url: s.transport === 'http' ? s.url : null,
    env: s.transport === 'stdio' ? s.env : {},
    headers: s.transport === 'http' ? s.headers : {},
  };
}

/** The servers of a repository's .mcp.json (Claude Code's format) that fit the contract; others are skipped. */
export function readMcpJson(root: string): Array<ReturnType<typeof McpServerInput.parse>> {
  let text: string;
  try {
    const buf = readFileSync(join(root, '.mcp.json'));
    if (buf.length > MAX_MCP_JSON_BYTES) return [];
    text = buf.toString('utf8');
  } catch {
    return []; // no .mcp.json (or unreadable): nothing suggested
  }
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch {
    return [];
  }
  const servers = (doc as { mcpServers?: unknown })?.mcpServers;
  if (!servers || typeof servers !== 'object') return [];
  const out: Array<ReturnType<typeof McpServerInput.parse>> = [];
  for (const [name, v] of Object.entries(servers as Record<string, Record<string, unknown>>)) {
    if (!v || typeof v !== 'object') continue;
    const candidate = typeof v.url === 'string' ? { transport: 'http', name, url: v.url, headers: v.headers ?? {} } : { transport: 'stdio', name, command: v.command, args: v.args ?? [], env: v.env ?? {} };
    const parsed = McpServerInput.safeParse(candidate);
    if (parsed.success) out.push(parsed.data);
  }
  return out;
}

/**
 * A command run in mcpServerFolder whatever the working folder of whoever starts it: `sh -c`
 * with the folder, the program and its arguments as positional parameters (nothing of theirs is
 * parsed by the shell). No `${…}` in the script: Claude Code fills those in its config.
 */
export function inFolder(command: string, args: readonly string[], folder = mcpServerFolder()): { command: string; args: string[] } {
  if (process.platform === 'win32') return { command, args: [...args] };
  return { command: '/bin/sh', args: ['-c', 'cd -- "$1" || exit 127; shift; exec "$@"', 'flightdeck-mcp', folder, command, ...args] };
}
