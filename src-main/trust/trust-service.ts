/**
 * Workspace trust: the one place every reader of a repository's executable or read-from-disk
 * configuration asks before using it (docs/security.md). A repository is untrusted until the user
 * trusts it; trust is recorded with the fingerprint of exactly what was reviewed (trust-parts.ts),
 * so a commit, a pull or an agent that changes any of it makes the repository untrusted again
 * (state `changed`, with the difference) until it is reviewed again.
 *
 * Trust belongs to a repository's main checkout (its real path). A worktree of it (a session's,
 * a feature's) is judged by reading the worktree's own parts and comparing them with what was
 * trusted for the main checkout: an agent's edit inside its worktree is never trusted by itself.
 *
 * Untrusted, callers get Flightdeck's defaults for exactly the parts the repository set:
 * no setup commands, the default copy list, the checks Flightdeck detects itself (run in the
 * sandbox like any check), the built-in prompt templates, the host placement, no mailbox
 * `.context/` or `.clauderc`.
 */
import { realpathSync } from 'node:fs';
import { AppError, type TrustItem, type TrustStatus } from '../../src-preload/contract';
import type { EventHub } from '../bridge/event-hub';
import { DEFAULT_WORKTREE_COPY, type FeaturesConfig } from '../features/config';
import { gatherRepo } from '../features/init';
import { detectFromRepo } from '../features/init-model';
import type { Logger } from '../platform/logger';
import type { Database } from '../store/db';
import { diffItems, fileItemOf, fingerprintOf, readTrustItems } from './trust-parts';

interface TrustRow {
  root: string;
  fingerprint: string;
  items: string;
  trusted_at: number;
}

/** What an untrusted repository's config would have made Flightdeck do, for the user ("worktree.setup (2 commands)"). */
export type TrustPart = 'worktree.setup' | 'worktree.copy' | 'checks' | 'prompts' | 'agent.placement' | 'pr.auto_merge' | 'mailbox';

const CONFIG_PARTS: readonly TrustPart[] = ['worktree.setup', 'worktree.copy', 'checks', 'prompts', 'agent.placement', 'pr.auto_merge'];

const PART_OF_KEY: ReadonlyArray<[RegExp, TrustPart]> = [
  [/^worktree\.setup/, 'worktree.setup'],
  [/^worktree\.copy/, 'worktree.copy'],
  [/^checks/, 'checks'],
  [/^folder:/, 'prompts'],
  [/^agent\.placement/, 'agent.placement'],
  [/^pr\.auto_merge$/, 'pr.auto_merge'],
];

/** Which part an item belongs to (`.mcp.json` to none yet: nothing reads it). */
export function partOf(item: TrustItem): TrustPart | null {
  // A folder named in prompts.extra_dirs inside the repository is read through its files (items
  // of their own); naming it alone (the default .flightdeck/prompts, empty) makes nothing read.
  if (/^prompts\.extra_dirs/.test(item.key)) return null;
  for (const [re, part] of PART_OF_KEY) if (re.test(item.key)) return part;
  if (item.key.startsWith('file:.context/') || item.key === 'file:.context' || item.key === 'file:.clauderc') return 'mailbox';
  if (item.key === 'file:.mcp.json') return null;
  if (item.key.startsWith('file:')) return 'prompts';
  return null;
}

/** What the repository set for each part, and what Flightdeck does instead while it is untrusted. */
export function skippedText(part: TrustPart, items: readonly TrustItem[]): string {
  const n = items.filter((i) => partOf(i) === part).length;
  const plural = (w: string) => `${n} ${w}${n === 1 ? '' : 's'}`;
  switch (part) {
    case 'worktree.setup':
      return `worktree.setup (${plural('command')}) was not run`;
    case 'worktree.copy':
      return 'worktree.copy was not used (the default .env files were copied)';
    case 'checks':
      return `checks (${plural('command')}) were not used (Flightdeck's detected checks run instead)`;
    case 'prompts':
      return 'the repository\'s prompt templates were not used (built-in templates)';
    case 'agent.placement':
      return 'agent.placement was not used (on the host)';
    case 'pr.auto_merge':
      return 'pr.auto_merge was not used (a ready pull request waits for you to merge it)';
    case 'mailbox':
      return '.context/ and .clauderc were not read';
  }
}

export interface TrustedConfig {
  status: TrustStatus;
  /** The config to use: the repository's, with its untrusted parts replaced by Flightdeck's defaults. */
  config: FeaturesConfig;
  /** The parts the repository set that are not used because it is untrusted. */
  skipped: TrustPart[];
}

export class TrustService {
  constructor(
    private readonly o: {
      db: Database;
      hub?: EventHub;
      log?: Logger;
    },
  ) {}

  /** The key of a repository: the real path of its main checkout. */
  rootOf(path: string): string {
    try {
      return realpathSync(path);
    } catch {
      // A checkout that is gone keeps its record under the path it had.
      return path;
    }
  }

  private row(root: string): TrustRow | undefined {
    return this.o.db.prepare('SELECT root, fingerprint, items, trusted_at FROM workspace_trust WHERE root = ?').get(root) as TrustRow | undefined;
  }

  /**
   * Whether the parts in `checkout` (default: the main checkout itself) are the ones the user
   * trusted for the repository `root`.
   */
  async status(rootPath: string, checkout?: string): Promise<TrustStatus> {
    return this.statusSync(rootPath, checkout);
  }

  /** {@link status} without waiting: for the template loader, which decides at each render. */
  statusSync(rootPath: string, checkout?: string): TrustStatus {
    const root = this.rootOf(rootPath);
    const items = readTrustItems(checkout ? this.rootOf(checkout) : root);
    const fingerprint = fingerprintOf(items);
    const row = this.row(root);
    if (!row) return { root, state: 'untrusted', fingerprint, items, changes: [], trustedAt: null };
    if (row.fingerprint === fingerprint) return { root, state: 'trusted', fingerprint, items, changes: [], trustedAt: row.trusted_at };
    let before: TrustItem[] = [];
    try {
      before = JSON.parse(row.items) as TrustItem[];
    } catch {
      // A damaged record shows everything as added: still asked again, which is the safe side.
    }
    // A file the user wrote through the app's own editor (the Context tab), still exactly as written,
    // is the user's change, not the repository's or an agent's: it does not ask again by itself.
    const own = this.userFiles(root, checkout ? this.rootOf(checkout) : root);
    const changes = diffItems(before, items).filter((c) => !(c.kind === 'file' && c.after !== null && own.get(c.key) === c.after));
    if (changes.length === 0) return { root, state: 'trusted', fingerprint, items, changes: [], trustedAt: row.trusted_at };
    return { root, state: 'changed', fingerprint, items, changes, trustedAt: row.trusted_at };
  }

  private userFiles(root: string, checkout: string): Map<string, string> {
    const rows = this.o.db.prepare('SELECT key, value FROM trust_user_files WHERE root = ? AND checkout = ?').all(root, checkout) as Array<{ key: string; value: string }>;
    return new Map(rows.map((r) => [r.key, r.value]));
  }

  /**
   * Records that the user wrote `file` (inside `checkout`, a checkout of the repository `rootPath`)
   * through Flightdeck's own editor: while the file holds exactly what was written, its difference
   * from what was trusted does not make the repository untrusted. It grants nothing else: an
   * untrusted repository stays untrusted, and any other change (or a later edit of this file by
   * anyone else) still asks again.
   */
  recordUserWrite(rootPath: string, checkout: string, file: string): void {
    const root = this.rootOf(rootPath);
    const item = fileItemOf(this.rootOf(checkout), this.rootOf(file));
    // Only a regular file read whole (a link, an oversized or unreadable file is never the user's word).
    if (!item || !/ bytes, sha256 [0-9a-f]{64}$/.test(item.value)) return;
    this.o.db
      .prepare('INSERT INTO trust_user_files (root, checkout, key, value, written_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT(root, checkout, key) DO UPDATE SET value = excluded.value, written_at = excluded.written_at')
      .run(root, this.rootOf(checkout), item.key, item.value, Date.now());
    this.o.log?.info('user edit recorded for workspace trust', { root, checkout, key: item.key });
    this.o.hub?.publish('trust.changed', { root });
  }

  /**
   * Trusts what the main checkout holds now. `fingerprint`: what the user reviewed; when the
   * parts changed since, nothing is trusted (conflict) and the user reviews again.
   */
  async trust(rootPath: string, fingerprint?: string): Promise<TrustStatus> {
    const root = this.rootOf(rootPath);
    const items = readTrustItems(root);
    const now = fingerprintOf(items);
    if (fingerprint !== undefined && fingerprint !== now) {
      throw new AppError('conflict', `What ${root} holds changed since it was shown for review; review it again before trusting it.`, { root });
    }
    const at = Date.now();
    this.o.db
      .prepare('INSERT INTO workspace_trust (root, fingerprint, items, trusted_at) VALUES (?, ?, ?, ?) ON CONFLICT(root) DO UPDATE SET fingerprint = excluded.fingerprint, items = excluded.items, trusted_at = excluded.trusted_at')
      .run(root, now, JSON.stringify(items), at);
    this.o.log?.info('repository trusted', { root, fingerprint: now, items: items.length });
    this.o.hub?.publish('trust.changed', { root });
    return { root, state: 'trusted', fingerprint: now, items, changes: [], trustedAt: at };
  }

  async untrust(rootPath: string): Promise<TrustStatus> {
    const root = this.rootOf(rootPath);
    const removed = this.o.db.prepare('DELETE FROM workspace_trust WHERE root = ?').run(root).changes > 0;
    if (removed) {
      this.o.log?.info('repository untrusted', { root });
      this.o.hub?.publish('trust.changed', { root });
    }
    return this.status(root);
  }

  /** The parts the repository sets that are not used because it is not trusted (empty when trusted). */
  skipped(status: TrustStatus): TrustPart[] {
    if (status.state === 'trusted') return [];
    const parts = new Set<TrustPart>();
    const copy = status.items.filter((i) => partOf(i) === 'worktree.copy').map((i) => i.value);
    // The default copy list written out (feature init does) asks for nothing beyond the default.
    const defaultCopy = copy.length === DEFAULT_WORKTREE_COPY.length && copy.every((v, n) => v === DEFAULT_WORKTREE_COPY[n]);
    for (const i of status.items) {
      const p = partOf(i);
      if (p && !(p === 'worktree.copy' && defaultCopy)) parts.add(p);
      // A config that could not be read as a whole (a link, too large, broken YAML): none of its parts is used.
      if (i.key === 'config') for (const q of CONFIG_PARTS) parts.add(q);
    }
    return [...parts];
  }

  /**
   * `config` (the repository's, as loaded from `checkout`) with every part it set replaced by
   * Flightdeck's default while the repository is not trusted. Parts the repository did not set
   * keep their defaults either way.
   */
  async apply(rootPath: string, config: FeaturesConfig, checkout?: string): Promise<TrustedConfig> {
    const status = await this.status(rootPath, checkout);
    const skipped = this.skipped(status);
    if (skipped.length === 0) return { status, config, skipped };
    const out: FeaturesConfig = structuredClone(config);
    if (skipped.includes('worktree.setup')) out.worktree.setup = [];
    if (skipped.includes('worktree.copy')) out.worktree.copy = [...DEFAULT_WORKTREE_COPY];
    if (skipped.includes('prompts')) out.prompts.extra_dirs = [];
    if (skipped.includes('agent.placement')) delete out.agent.placement;
    if (skipped.includes('pr.auto_merge')) out.pr.auto_merge = 'off';
    if (skipped.includes('checks')) out.checks = await detectedChecks(checkout ?? status.root);
    return { status, config: out, skipped };
  }

  /**
   * Whether the repository's own prompt templates may be used now (the templates' policy): only
   * when the user trusted exactly what the main checkout holds. Stricter than "no template
   * files": autopilot reads the templates of its worktree, which the policy does not see.
   */
  templatesTrusted(rootPath: string): boolean {
    return this.statusSync(rootPath).state === 'trusted';
  }

  /** Whether the mailbox may read `.context/` and `.clauderc` from `workspace` (a checkout of `root`). */
  async mailboxFilesTrusted(rootPath: string, workspace: string): Promise<boolean> {
    const status = await this.status(rootPath, workspace);
    return !this.skipped(status).includes('mailbox');
  }
}

/** The checks Flightdeck finds in the repository itself (what `feature init` proposes), used in place of configured ones. */
async function detectedChecks(checkout: string): Promise<string[]> {
  try {
    return detectFromRepo(await gatherRepo(checkout)).checks;
  } catch {
    // Not a readable git checkout: no checks rather than the repository's own commands.
    return [];
  }
}
