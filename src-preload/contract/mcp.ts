import { z } from 'zod';
import { event, request } from './define';
import { ProjectId } from './projects';

/**
 * MCP servers configured once for both executors (issue 25). A server is a command (stdio) or a
 * URL (streamable HTTP). Environment and header values are secrets: stored like provider keys,
 * never sent back — the renderer sees their names only.
 */
export const McpServerName = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9_-]{0,39}$/, 'a server name is 1–40 letters, digits, "_" or "-", starting with a letter or digit')
  .refine((n) => !n.includes('__'), 'a server name cannot contain "__" (tool names are mcp__SERVER__TOOL)');

const EnvName = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/, 'not an environment variable name');
const HeaderName = z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,128}$/, 'not an HTTP header name');
/** A value sent to the server; any printable text, kept secret. */
const SecretValue = z.string().max(8_192).refine((v) => !/[\r\n\0]/.test(v), 'a value cannot contain line breaks');

export const McpServerInput = z.discriminatedUnion('transport', [
  z
    .object({
      transport: z.literal('stdio'),
      name: McpServerName,
      command: z.string().min(1).max(4_096),
      args: z.array(z.string().max(4_096)).max(200).default([]),
      env: z.record(EnvName, SecretValue).default({}),
    })
    .strict(),
  z
    .object({
      transport: z.literal('http'),
      name: McpServerName,
      url: z
        .string()
        .max(4_096)
        .url()
        .refine((u) => /^https?:\/\//i.test(u), 'the URL must start with http:// or https://'),
      headers: z.record(HeaderName, SecretValue).default({}),
    })
    .strict(),
]);
export type McpServerInput = z.input<typeof McpServerInput>;

export const McpServerStatus = z.enum(['stopped', 'starting', 'running', 'failed']);

export const McpToolInfo = z.object({ name: z.string(), description: z.string() });
export type McpToolInfo = z.infer<typeof McpToolInfo>;

/** What the renderer sees of a server: no env or header values, ever. */
export const McpServer = z.object({
  name: McpServerName,
  transport: z.enum(['stdio', 'http']),
  command: z.string().nullable(),
  args: z.array(z.string()),
  url: z.string().nullable(),
  /** The secret variables and headers, by name (their values stay in the key store). */
  envNames: z.array(z.string()),
  headerNames: z.array(z.string()),
  /** Values that are not secrets: a repository's suggestion, shown as it wrote them. */
  plainEnv: z.record(z.string(), z.string()),
  plainHeaders: z.record(z.string(), z.string()),
  enabled: z.boolean(),
  /** null = every project; else only sessions of these projects use it. */
  projectIds: z.array(ProjectId).nullable(),
  status: McpServerStatus,
  lastError: z.string().nullable(),
  tools: z.array(McpToolInfo),
  /** Tools set to always allow or always deny (by the tool's own name); the others ask. */
  toolPolicy: z.record(z.string(), z.enum(['allow', 'deny'])),
});
export type McpServer = z.infer<typeof McpServer>;

export const McpTestResult = z.object({ ok: z.boolean(), tools: z.array(McpToolInfo), error: z.string().nullable() });
export type McpTestResult = z.infer<typeof McpTestResult>;

/** A server a trusted repository's .mcp.json suggests (never used until added one by one). */
export const McpSuggestion = z.object({
  name: z.string(),
  transport: z.enum(['stdio', 'http']),
  command: z.string().nullable(),
  args: z.array(z.string()),
  url: z.string().nullable(),
  /**
   * Every variable and header with its value as the repository wrote it: they are the
   * repository's, not the user's secrets, and the user judges them before adding the server.
   */
  env: z.record(z.string(), z.string()),
  headers: z.record(z.string(), z.string()),
  /** Already configured under this name. */
  added: z.boolean(),
  /** Why it cannot be added from the suggestion (a loader variable, a `${…}`), in words; null when it can. */
  refused: z.string().nullable(),
});
export type McpSuggestion = z.infer<typeof McpSuggestion>;

const Named = z.object({ name: McpServerName }).strict();

export const mcpRequests = {
  'mcp.list': request(z.object({}).strict(), z.array(McpServer), 'The configured MCP servers with their status and last error (no secret values).'),
  'mcp.add': request(McpServerInput, McpServer, 'Add an MCP server (conflict when the name is taken). Env and header values are stored as secrets.'),
  'mcp.remove': request(Named, z.object({ removed: z.boolean() }), 'Remove a server, stop it and forget its secrets.'),
  'mcp.setEnabled': request(
    z.object({ name: McpServerName, enabled: z.boolean(), projectIds: z.array(ProjectId).max(200).nullable().optional() }).strict(),
    McpServer,
    'Enable or disable a server, everywhere or (projectIds) for some projects only.',
  ),
  'mcp.setToolPolicy': request(
    z.object({ name: McpServerName, tool: z.string().min(1).max(128), policy: z.enum(['ask', 'allow', 'deny']) }).strict(),
    McpServer,
    'Whether one tool of a server asks before each call (the default), is always allowed, or always denied — in both executors.',
  ),
  'mcp.test': request(Named, McpTestResult, 'Start the server (again) and list its tools; the error in words when it fails.'),
  'mcp.suggestions': request(z.object({ projectId: ProjectId }).strict(), z.object({ trusted: z.boolean(), servers: z.array(McpSuggestion) }), "The servers a trusted project's .mcp.json suggests; none while it is not trusted."),
  'mcp.addSuggested': request(z.object({ projectId: ProjectId, name: McpServerName }).strict(), McpServer, "Add one server from a trusted project's .mcp.json, enabled for that project only."),
} as const;

export const mcpEvents = {
  'mcp.changed': event(z.object({ servers: z.array(McpServer) }), 'An MCP server was added, removed, enabled, or changed status.'),
} as const;
