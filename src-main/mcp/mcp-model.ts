/**
 * Pure rules of the MCP capability: which variables a repository may not set on a server it
 * suggests, what a suggested server is refused for, and which strings of a secret are looked
 * for when text is redacted.
 */

/**
 * Variables that change what code a program loads or runs before its own: the dynamic loader's
 * (LD_*, DYLD_*), interpreters' startup and module paths, shells' startup files, JVM agents,
 * PATH (which program a bare name starts) and git's own programs. A repository's .mcp.json
 * could use them to run code other than the command it shows, so a suggested server that sets
 * one is refused; the user may still add such a server by hand, typing the values.
 */
const LOADER_VARIABLE = /^(LD_\w+|DYLD_\w+|NODE_OPTIONS|NODE_PATH|NODE_REPL_EXTERNAL_MODULE|ELECTRON_RUN_AS_NODE|PYTHONPATH|PYTHONSTARTUP|PYTHONHOME|PYTHONUSERBASE|PERL5OPT|PERL5LIB|PERLLIB|RUBYOPT|RUBYLIB|BASH_ENV|ENV|ZDOTDIR|PROMPT_COMMAND|JAVA_TOOL_OPTIONS|_JAVA_OPTIONS|JDK_JAVA_OPTIONS|CLASSPATH|GCONV_PATH|PATH|GIT_\w+|NPM_CONFIG_\w+|HOME)$/i;

export function isLoaderVariable(name: string): boolean {
  return LOADER_VARIABLE.test(name);
}

/** `${NAME}` or `${NAME:-default}`: Claude Code expands these from its own environment. */
const EXPANSION = /\$\{([^}]*)\}/;

export interface SuggestedServerShape {
  command?: string | null;
  args?: readonly string[];
  url?: string | null;
  env?: Readonly<Record<string, string>>;
  headers?: Readonly<Record<string, string>>;
}

/**
 * Why a server a repository suggests cannot be added from the suggestion, in words; null when
 * it can. Its values are shown to the user as they are, so what is refused is what the user
 * could not judge from them: a loader variable, or a `${…}` both executors would fill from the
 * user's environment (a token of the user's sent to a server the repository chose).
 */
export function suggestionRefusal(s: SuggestedServerShape): string | null {
  const loaders = Object.keys(s.env ?? {}).filter(isLoaderVariable);
  if (loaders.length > 0) {
    return `It sets ${loaders.join(', ')}, which ${loaders.length === 1 ? 'changes' : 'change'} what code the program loads or which program runs. Add it yourself in Settings → MCP servers if you mean it.`;
  }
  const texts = [s.command ?? '', ...(s.args ?? []), s.url ?? '', ...Object.values(s.env ?? {}), ...Object.entries(s.headers ?? {}).flat()];
  const expanded = texts.map((t) => EXPANSION.exec(t)).find((m) => m !== null);
  if (expanded) {
    return `It reads \${${expanded[1]}} from your environment (it would be filled in and sent to the server). Add it yourself in Settings → MCP servers with the value you mean.`;
  }
  return null;
}

/** `${NAME}` or `${NAME:-default}`, as Claude Code fills them in an MCP config. */
const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g;

/**
 * `text` with `${NAME}` and `${NAME:-default}` filled from `env`, as Claude Code fills the
 * servers of its `--mcp-config` (command, arguments, environment, URL and headers) from its own
 * environment: the built-in loop fills them the same way, so both executors start the same
 * server. A name that is not set and has no default is left as written.
 */
export function expandReferences(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(REFERENCE, (whole, name: string, fallback: string | undefined) => {
    const v = env[name];
    if (v !== undefined && v !== '') return v;
    return fallback ?? whole;
  });
}

/** Secrets shorter than this are not looked for: a short string would redact ordinary words. */
export const MIN_REDACTED_CHARS = 3;
/** An HTTP credential with its scheme: `Bearer abc`, `Basic dXNlcjpwYXNz`, `token abc`. */
const SCHEMED = /^(bearer|basic|token|bot|digest|apikey|api-key)\s+(\S.*)$/i;

/**
 * Every string of a secret value that must not be shown: the value itself, the credential of
 * `Scheme credential` on its own (servers and libraries echo the token without the scheme),
 * and for Basic the decoded `user:password` and the password. Longest first, so a longer
 * form is replaced before a part of it.
 */
export function secretForms(values: readonly string[]): string[] {
  const out = new Set<string>();
  for (const v of values) {
    const value = v.trim();
    out.add(value);
    const m = SCHEMED.exec(value);
    if (!m) continue;
    const credential = m[2]!.trim();
    out.add(credential);
    if (m[1]!.toLowerCase() === 'basic') {
      const decoded = Buffer.from(credential, 'base64').toString('utf8');
      if (isPrintable(decoded) && Buffer.from(decoded, 'utf8').toString('base64').replace(/=+$/, '') === credential.replace(/=+$/, '')) {
        out.add(decoded);
        const cut = decoded.indexOf(':');
        if (cut >= 0) out.add(decoded.slice(cut + 1));
      }
    }
  }
  return [...out].filter((s) => s.length >= MIN_REDACTED_CHARS).sort((a, b) => b.length - a.length);
}

/** Text without control characters: a Basic credential that decodes to one is not a user:password. */
function isPrintable(text: string): boolean {
  return text.length > 0 && [...text].every((c) => c.charCodeAt(0) >= 0x20);
}

/** `text` with every form of the secrets replaced by "***". */
export function redactSecretForms(text: string, forms: readonly string[]): string {
  let out = text;
  for (const f of forms) out = out.split(f).join('***');
  return out;
}

/**
 * Keys remembered up to a bound, the oldest forgotten first: what a long-running app remembers
 * per session (failures already told) must not grow with every session it ever ran.
 */
export class BoundedSet {
  private readonly keys = new Set<string>();
  constructor(private readonly max: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    while (this.keys.size > this.max) this.keys.delete(this.keys.values().next().value as string);
  }

  /** Forgets every key `drop` picks (e.g. a server's after it was tested again). */
  deleteWhere(drop: (key: string) => boolean): void {
    for (const k of [...this.keys]) if (drop(k)) this.keys.delete(k);
  }

  get size(): number {
    return this.keys.size;
  }
}
