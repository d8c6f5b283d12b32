/**
 * Plan drafts: a feature being planned, before approval. Each is one JSON file in the app's data
 * folder (`plan-drafts/<id>.json`), written atomically, holding the draft, the Planner session,
 * and every revision of the design spec and verification plan. Nothing of a draft is in the
 * repository: the repository changes only when a revision is approved (finalize).
 *
 * Files, not database rows: a draft is one document read and written whole, never queried
 * across drafts beyond "the open ones of a project", and a handful exist at a time.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { PlanDraft, PlanRevision, type PlanDraftId } from '../../src-preload/contract';
import { FeatureIssueRef } from '../../src-preload/contract/issues';
import { writeFileAtomic } from '../platform/atomic-file';
import { readFileNoWait } from '../platform/read-no-wait';
import type { Logger } from '../platform/logger';

// Owner only: a draft holds the user's design discussion.
const DRAFT_FILE_MODE = 0o600;
export const DRAFTS_DIR = 'plan-drafts';

export const StoredDraft = z.object({
  draft: PlanDraft,
  /** The repository's main checkout (the Planner reads the code there). */
  root: z.string(),
  profile: z.string().nullable(),
  model: z.string().nullable(),
  /** Chat messages sent so far (the Planner's brief is its session's instructions, not a message). */
  messagesSent: z.number().int().nonnegative(),
  revisions: z.array(PlanRevision),
  /** The forge issue the feature is planned from (the pull request closes it); absent for drafts before issues. */
  issue: FeatureIssueRef.nullable().optional(),
});
export type StoredDraft = z.infer<typeof StoredDraft>;

export function newDraftId(): PlanDraftId {
  return `plan-${Date.now().toString(36)}${randomBytes(6).toString('hex')}`;
}

export class PlanDraftStore {
  private readonly dir: string;
  private readonly drafts = new Map<string, StoredDraft>();

  constructor(dataDir: string, private readonly log?: Logger) {
    this.dir = join(dataDir, DRAFTS_DIR);
  }

  /** Reads every draft file; an unreadable one is logged and left on disk for the user to inspect. */
  load(): void {
    this.drafts.clear();
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch (e) {
      // No drafts folder yet: nothing was ever planned with this data folder.
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw e;
    }
    for (const name of names) {
      if (!/^plan-[a-z0-9]+\.json$/.test(name)) continue;
      const file = join(this.dir, name);
      try {
        const parsed = StoredDraft.parse(JSON.parse(readFileNoWait(file, 'utf8')));
        this.drafts.set(parsed.draft.id, parsed);
      } catch (e) {
        this.log?.warn('unreadable plan draft skipped', { file, error: e });
      }
    }
  }

  get(id: string): StoredDraft | undefined {
    return this.drafts.get(id);
  }

  all(): StoredDraft[] {
    return [...this.drafts.values()].sort((a, b) => b.draft.createdAt - a.draft.createdAt);
  }

  save(d: StoredDraft): void {
    const checked = StoredDraft.parse(d);
    mkdirSync(this.dir, { recursive: true, mode: 0o700 });
    writeFileAtomic(join(this.dir, `${checked.draft.id}.json`), JSON.stringify(checked), { mode: DRAFT_FILE_MODE });
    this.drafts.set(checked.draft.id, checked);
  }

  remove(id: string): void {
    rmSync(join(this.dir, `${id}.json`), { force: true });
    this.drafts.delete(id);
  }
}
