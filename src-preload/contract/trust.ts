import { z } from 'zod';
import { event, request } from './define';
import { ProjectId, UserPath } from './projects';

/**
 * One part of a repository that makes Flightdeck run or read something on the repository's say-so
 * (a setup command, a check, a container image, a prompt template file…). `key` is stable across
 * readings (`worktree.setup[0]`, `file:.clauderc`), `value` is what is shown and compared (the
 * command itself, a file's size and SHA-256).
 */
export const TrustItem = z.object({
  key: z.string(),
  kind: z.enum(['command', 'image', 'setting', 'folder', 'file', 'problem']),
  /** Where it comes from, in the user's words: "worktree.setup in .flightdeck/config.yml". */
  label: z.string(),
  value: z.string(),
});
export type TrustItem = z.infer<typeof TrustItem>;

export const TrustChange = z.object({
  key: z.string(),
  kind: TrustItem.shape.kind,
  label: z.string(),
  change: z.enum(['added', 'removed', 'changed']),
  before: z.string().nullable(),
  after: z.string().nullable(),
});
export type TrustChange = z.infer<typeof TrustChange>;

/**
 * Whether a repository's own executable configuration is used:
 * - `trusted`: the user trusted exactly what is there now;
 * - `untrusted`: never trusted (the default for a repository added or cloned), or untrusted again;
 * - `changed`: trusted once, but the parts changed since (a commit, a pull, an agent): treated as
 *   untrusted until reviewed again, `changes` says what differs.
 * A repository with no such parts at all is `trusted` with nothing to trust (`items` empty) only
 * when the user trusted it; otherwise it is `untrusted` with `items` empty, which costs nothing.
 */
export const TrustStatus = z.object({
  root: z.string(),
  state: z.enum(['trusted', 'untrusted', 'changed']),
  fingerprint: z.string(),
  items: z.array(TrustItem),
  /** What differs from what was trusted (state `changed`); empty otherwise. */
  changes: z.array(TrustChange),
  trustedAt: z.number().int().nullable(),
});
export type TrustStatus = z.infer<typeof TrustStatus>;

const Fingerprint = z.string().regex(/^[0-9a-f]{64}$/, 'not a fingerprint');
const Target = z.union([z.object({ projectId: ProjectId }).strict(), z.object({ path: UserPath }).strict()]);

export const trustRequests = {
  'trust.status': request(Target, TrustStatus, 'Whether a repository\'s own executable configuration (setup, checks, templates, placement…) is trusted, with exactly what it holds.'),
  'trust.trust': request(
    z.union([z.object({ projectId: ProjectId, fingerprint: Fingerprint }).strict(), z.object({ path: UserPath, fingerprint: Fingerprint }).strict()]),
    TrustStatus,
    'Trust what the review showed: refused (conflict) when the parts changed since the fingerprint was read.',
  ),
  'trust.untrust': request(Target, TrustStatus, 'Stop trusting a repository: its executable configuration is inert again, Flightdeck defaults apply.'),
} as const;

export const trustEvents = {
  'trust.changed': event(z.object({ root: z.string() }), 'A repository was trusted or untrusted.'),
} as const;
