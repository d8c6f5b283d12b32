/**
 * Where a feature run's agent works, from three layers, nearest first: the run request (the
 * feature view's Start/Resume dialog, `feature run --placement …`), the feature's own state.yml
 * (`agent.placement`, chosen when its plan was approved), then the project's config.yml
 * (`agent.placement`, the project's default). With none of them: on the host. Between two
 * container placements the nearer one wins field by field (`--gpus all` keeps the file's
 * limits); any other pair, the nearer one wins whole (a feature set to `host` stays on the host
 * in a project whose default is a container).
 */
import { existsSync } from 'node:fs';
import type { RunPlacement } from '../../src-preload/contract';
import { configPath, loadConfig } from './config';
import { activeStatePath } from './scanner';
import { readState, type RunAgent } from './state';

/** The layers a default placement came from, nearest first (empty: nobody said; on the host). */
export type PlacementOrigin = 'feature' | 'project';

const HOST: RunPlacement = { kind: 'host' };

/** `over` on top of `base`: field by field when both are containers, else the one that is there. */
export function overPlacement(base: RunPlacement | undefined, over: RunPlacement | undefined): RunPlacement | undefined {
  if (!over) return base;
  if (over.kind === 'container' && base?.kind === 'container') {
    // Limits too go key by key (memory from the project, processes from the feature), as the mailbox merges them.
    const limits = base.limits || over.limits ? { ...base.limits, ...over.limits } : undefined;
    return { ...base, ...over, ...(limits ? { limits } : {}) };
  }
  return over;
}

/**
 * The placement a run starts from before its request: the feature's over the project's, and
 * which of them said something (what the run dialog prefills and names as its origin).
 */
export function defaultPlacement(fromProject: RunPlacement | undefined, fromState: RunPlacement | undefined): { placement: RunPlacement; from: PlacementOrigin[] } {
  const from: PlacementOrigin[] = [];
  if (fromState) from.push('feature');
  // A host feature ignores the project's container fields entirely: only a merge counts the project.
  if (fromProject && (!fromState || (fromState.kind === 'container' && fromProject.kind === 'container'))) from.push('project');
  return { placement: overPlacement(fromProject, fromState) ?? HOST, from };
}

/** The run's placement: the request over the feature's state.yml over the project's config.yml; else on the host. */
export function effectivePlacement(fromState: RunPlacement | undefined, fromRequest: RunPlacement | undefined, fromProject?: RunPlacement): RunPlacement {
  return overPlacement(overPlacement(fromProject, fromState), fromRequest) ?? HOST;
}

/**
 * The project's default placement for its feature runs, `agent.placement` in
 * `<repoRoot>/.flightdeck/config.yml`; null when the config does not say (or the project has no
 * config yet: its runs work on the host). A config that does not load throws its FeatureError
 * (file, key path, line), as every reader of the config does.
 */
export async function projectDefaultPlacement(repoRoot: string): Promise<RunPlacement | null> {
  // Checked first so "not initialized" means "no default" rather than an error; a file deleted
  // between the check and the read is reported by loadConfig like any missing config.
  if (!existsSync(configPath(repoRoot))) return null;
  return (await loadConfig(repoRoot)).agent.placement ?? null;
}

/**
 * The default placement of one active feature's runs as the run dialog prefills it: its
 * state.yml's over its project's config.yml's. A state file or config that does not load throws
 * its FeatureError (the run itself would refuse the same way).
 */
export async function featureDefaultPlacement(
  repoRoot: string,
  slug: string,
  /** Workspace trust over the project's placement (none while the repository is untrusted); absent: used as read. */
  trusted: (placement: RunPlacement | null) => Promise<RunPlacement | null> = async (p) => p,
  /** The feature's placement a run uses of its state.yml's agent block (the approved one, ./approvals.ts); absent: state.yml's. */
  featurePlacement: (fromState: RunAgent | null) => RunPlacement | undefined = (a) => a?.placement,
): Promise<{ placement: RunPlacement; from: PlacementOrigin[] }> {
  const [fromProject, state] = await Promise.all([projectDefaultPlacement(repoRoot).then(trusted), readState(activeStatePath(repoRoot, slug))]);
  return defaultPlacement(fromProject ?? undefined, featurePlacement(state.agent ?? null));
}
