import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { McpServer, McpServerInput } from '../../../src-preload/contract';
import { McpServerInput as McpServerInputSchema } from '../../../src-preload/contract';
import { UsageError, type CliCommand } from '../command';
import { readSecret } from './chat-support';

/**
 * A file of values (--env-from, --headers-from) is a few lines; anything larger is a mistake.
 * Not `--env-file`: Node 20 takes that flag for itself wherever it appears on the command line.
 */
const MAX_VALUES_FILE_BYTES = 64 * 1024;

/** `K=V` or `K:V` pairs into a record; the value is everything after the first separator. */
function pairs(list: readonly string[], sep: string, what: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of list) {
    const i = v.indexOf(sep);
    if (i <= 0) throw new UsageError(`${what} "${v.split(sep)[0]}" needs the form NAME${sep}VALUE`);
    out[v.slice(0, i).trim()] = v.slice(i + 1).trimStart();
  }
  return out;
}

function flagList(values: string | boolean | string[] | undefined): string[] {
  return values === undefined ? [] : Array.isArray(values) ? values : [String(values)];
}

/**
 * The values of a server's variables (sep "=") or headers (sep ":"), kept off the command line
 * where `ps` and the shell's history would show them: `--env K` (no value) reads K's value from
 * stdin — typed hidden at a terminal, else one line per such name, in order — and
 * `--env-from FILE` reads `K=V` lines (blank lines and `#` comments skipped; a pipe such as
 * `<(pass show …)` works). `--env K=V` still takes the value inline.
 */
async function values(flag: string | boolean | string[] | undefined, file: string | boolean | string[] | undefined, sep: '=' | ':', what: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  if (typeof file === 'string') {
    let text: string;
    try {
      const buf = await readFile(file);
      if (buf.length > MAX_VALUES_FILE_BYTES) throw new UsageError(`${file} is larger than ${MAX_VALUES_FILE_BYTES / 1024} KiB: not a file of ${what}s`);
      text = buf.toString('utf8');
    } catch (e) {
      if (e instanceof UsageError) throw e;
      throw new UsageError(`cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trimStart().startsWith('#'));
    Object.assign(out, pairs(lines, sep, what));
  } else if (file !== undefined) throw new UsageError(`--${sep === '=' ? 'env' : 'headers'}-from needs a FILE`);
  const inline = flagList(flag);
  Object.assign(out, pairs(inline.filter((v) => v.includes(sep)), sep, what));
  const asked = inline.filter((v) => !v.includes(sep)).map((v) => v.trim());
  if (asked.length === 0) return out;
  for (const n of asked) if (n === '') throw new UsageError(`${what} needs a NAME`);
  if (process.stdin.isTTY) {
    for (const n of asked) out[n] = await readSecret(`Value of ${n} (input hidden): `, (t) => process.stderr.write(t));
    return out;
  }
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  const lines = Buffer.concat(chunks).toString('utf8').split(/\r?\n/);
  if (lines.at(-1) === '') lines.pop();
  if (lines.length < asked.length) throw new UsageError(`${asked.join(', ')} ${asked.length === 1 ? 'reads its value' : 'read their values'} from stdin, one line each, but stdin had ${lines.length} line(s)`);
  asked.forEach((n, i) => (out[n] = lines[i]!));
  return out;
}

function describe(s: McpServer): string {
  const where = s.transport === 'stdio' ? [s.command, ...s.args].join(' ') : s.url;
  const scope = !s.enabled ? 'disabled' : s.projectIds === null ? 'enabled everywhere' : `enabled for ${s.projectIds.length} project(s)`;
  const hidden = s.transport === 'stdio' ? s.envNames : s.headerNames;
  const shown = Object.entries(s.transport === 'stdio' ? s.plainEnv : s.plainHeaders).map(([k, v]) => `${k}${s.transport === 'stdio' ? '=' : ': '}${v}`);
  const secrets = [...hidden.map((k) => `${k} (secret)`), ...shown].join(', ');
  const label = s.transport === 'stdio' ? 'env' : 'headers';
  return `${s.name.padEnd(16)} ${s.transport.padEnd(5)} ${scope.padEnd(20)} ${s.status.padEnd(8)} ${where}${secrets ? ` ${label}: ${secrets}` : ''}${s.lastError ? `\n  last error: ${s.lastError}` : ''}`;
}

export const mcpCommand: CliCommand = {
  name: 'mcp',
  summary: 'MCP servers for every agent (both executors): add, list, remove, test. Env and header values are stored as secrets and never printed.',
  usage:
    'mcp list | mcp add NAME [--env K[=V]]… [--env-from FILE] -- COMMAND [ARGS…] | mcp add NAME --url URL [--header K[:V]]… [--headers-from FILE] | mcp remove NAME | mcp test NAME | mcp enable NAME [--repo DIR] | mcp disable NAME [--repo DIR] | mcp tool NAME TOOL ask|allow|deny',
  flags: { env: 'multiple', 'env-from': true, url: true, header: 'multiple', 'headers-from': true, repo: true },
  async run(ctx) {
    const [sub, name, ...rest] = ctx.args;
    const app = await ctx.openApp();
    const mcp = app.mcp;
    const needName = (): string => {
      if (!name) throw new UsageError(`mcp ${sub} needs a NAME`);
      return name;
    };
    try {
      switch (sub) {
        case undefined:
        case 'list': {
          const list = mcp.list();
          if (ctx.json) ctx.out(JSON.stringify(list));
          else if (list.length === 0) ctx.out('No MCP servers. Add one with: mcp add NAME -- COMMAND [ARGS…]  or  mcp add NAME --url URL');
          else for (const s of list) ctx.out(describe(s));
          return 0;
        }
        case 'add': {
          const n = needName();
          const url = typeof ctx.flags.url === 'string' ? ctx.flags.url : undefined;
          let input: McpServerInput;
          if (url !== undefined) {
            if (rest.length > 0) throw new UsageError('mcp add with --url takes no command');
            if (ctx.flags.env !== undefined || ctx.flags['env-from'] !== undefined) throw new UsageError('--env is for a command server; an HTTP server takes --header K:V');
            input = { transport: 'http', name: n, url, headers: await values(ctx.flags.header, ctx.flags['headers-from'], ':', 'the header') };
          } else {
            if (rest.length === 0) throw new UsageError('mcp add needs a command after "--" (or --url URL)');
            if (ctx.flags.header !== undefined || ctx.flags['headers-from'] !== undefined) throw new UsageError('--header is for an HTTP server (--url); a command server takes --env K=V');
            input = { transport: 'stdio', name: n, command: rest[0]!, args: rest.slice(1), env: await values(ctx.flags.env, ctx.flags['env-from'], '=', 'the variable') };
          }
          const parsed = McpServerInputSchema.safeParse(input);
          if (!parsed.success) throw new UsageError(parsed.error.issues.map((i) => `${i.path.join('.') || 'input'}: ${i.message}`).join('; '));
          const s = mcp.add(parsed.data);
          ctx.out(ctx.json ? JSON.stringify(s) : `Added MCP server ${s.name} (enabled everywhere). Try it with: mcp test ${s.name}`);
          return 0;
        }
        case 'remove': {
          const removed = await mcp.remove(needName());
          ctx.out(ctx.json ? JSON.stringify({ removed }) : removed ? `Removed ${name} and its stored secrets.` : `No MCP server ${name}.`);
          return removed ? 0 : 1;
        }
        case 'enable':
        case 'disable': {
          const n = needName();
          const repo = typeof ctx.flags.repo === 'string' ? ctx.flags.repo : undefined;
          let s: McpServer;
          if (repo === undefined) s = await mcp.setEnabled(n, sub === 'enable', sub === 'enable' ? null : undefined);
          else {
            // Per project, as Settings' "Only these projects": this repository's project added to or taken from the list.
            const root = await app.worktrees.repoRoot(resolve(repo));
            const project = app.projects.list().find((p) => p.path === root) ?? (await app.projects.add(root));
            const cur = mcp.get(n);
            if (sub === 'enable') s = await mcp.setEnabled(n, true, [...new Set([...(cur.projectIds ?? []), project.id])]);
            else {
              if (cur.projectIds === null && cur.enabled) throw new UsageError(`${n} is enabled for every project; choose its projects with: mcp enable ${n} --repo DIR (or disable it everywhere with: mcp disable ${n})`);
              s = await mcp.setEnabled(n, cur.enabled, (cur.projectIds ?? []).filter((id) => id !== project.id));
            }
          }
          const names = new Map(app.projects.list().map((p) => [p.id, p.name]));
          const where = !s.enabled ? 'disabled' : s.projectIds === null ? 'enabled everywhere' : s.projectIds.length === 0 ? 'enabled for no project' : `enabled for ${s.projectIds.map((id) => names.get(id) ?? id).join(', ')} only`;
          ctx.out(ctx.json ? JSON.stringify(s) : `${s.name} is ${where}.`);
          return 0;
        }
        case 'tool': {
          const [tool, policy] = rest;
          if (!tool || (policy !== 'ask' && policy !== 'allow' && policy !== 'deny')) throw new UsageError('mcp tool NAME TOOL ask|allow|deny');
          const s = mcp.setToolPolicy(needName(), tool, policy);
          ctx.out(ctx.json ? JSON.stringify(s) : `${s.name}: ${tool} ${policy === 'ask' ? 'asks before each call' : policy === 'allow' ? 'is always allowed' : 'is always denied'}.`);
          return 0;
        }
        case 'test': {
          const r = await mcp.test(needName());
          if (ctx.json) ctx.out(JSON.stringify(r));
          else if (r.ok) {
            ctx.out(`${name}: ${r.tools.length} tool(s)`);
            for (const t of r.tools) ctx.out(`  ${t.name}${t.description ? ` — ${t.description}` : ''}`);
          } else ctx.err(r.error ?? 'The server could not be started.');
          return r.ok ? 0 : 1;
        }
        default:
          throw new UsageError(`unknown mcp subcommand: ${sub}`);
      }
    } finally {
      // Servers started here (test) end with the command: no child outlives the CLI.
      await mcp.close();
    }
  },
};
