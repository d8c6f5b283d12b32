import { z } from 'zod';

/**
 * A feature's slug as every channel takes it. It names the feature's worktree folder, its branch
 * and its folder under `.flightdeck/`, so it is refused at the bridge unless it is exactly a slug
 * (`../x` or `a/b` would name a path elsewhere). The same rule as the main side's SLUG_RE and
 * MAX_SLUG_LENGTH (src-main/worktrees/worktree-model.ts), which this pure module cannot import.
 */
export const FeatureSlug = z
  .string()
  .min(1)
  .max(64, 'a feature slug has at most 64 characters')
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'a feature slug is lowercase letters, digits and single hyphens (not at the start or end), e.g. "add-user-auth"');
