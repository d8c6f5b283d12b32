import type { Database } from '../db';
import { m001Foundation } from './001-foundation';
import { m002Agents } from './002-agents';
import { m003Coder } from './003-coder';
import { m004FeatureIndex } from './004-feature-index';
import { m005Autopilot } from './005-autopilot';
import { m006SessionWorktrees } from './006-session-worktrees';
import { m007FeatureRuns } from './007-feature-runs';
import { m008WorkspaceTrust } from './008-workspace-trust';
import { m009ReviewComments } from './009-review-comments';
import { m010FeatureApprovals } from './010-feature-approvals';
import { m011TrustUserFiles } from './011-trust-user-files';
import { m012PrFollow } from './012-pr-follow';
import { m013FeatureCandidates } from './013-feature-candidates';
import { m014FeatureIndexFiles } from './014-feature-index-files';

/**
 * Numbered migrations: index i is version i+1. Append only; never edit one that shipped.
 * Later capabilities (agents, terminals, features…) append their own files here.
 */
export type Migration = (db: Database) => void;
export const MIGRATIONS: readonly Migration[] = [
  m001Foundation,
  m002Agents,
  m003Coder,
  m004FeatureIndex,
  m005Autopilot,
  m006SessionWorktrees,
  m007FeatureRuns,
  m008WorkspaceTrust,
  m009ReviewComments,
  m010FeatureApprovals,
  m011TrustUserFiles,
  m012PrFollow,
  m013FeatureCandidates,
  m014FeatureIndexFiles,
];
