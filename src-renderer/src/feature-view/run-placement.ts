/**
 * What the run dialog starts from: the feature's default placement (its state.yml's over its
 * project config's, from `featureRuns.defaultPlacement`) turned back into the dialog's fields,
 * and the sentence saying where that default came from. Pure, so it is unit-tested without React.
 */
import { memorySizeText, type RunPlacement } from '../../../src-preload/contract';
import { emptyPlacementForm, type GpuChoice, type PlacementForm } from '../containers/placement-form';

export type PlacementOrigin = 'feature' | 'project';

/** A byte count as the memory field writes it (8g, 512m), exact, so reading it back gives the same bytes. */
export const memoryText = memorySizeText;

/**
 * The dialog's choice and fields for a default placement. Fields the default leaves out keep
 * the form's own defaults (an absent engine: the first engine that answers, as for any run).
 */
export function formOfPlacement(p: RunPlacement): { runsOn: 'host' | 'container'; form: PlacementForm } {
  const form = emptyPlacementForm();
  if (p.kind === 'host') return { runsOn: 'host', form };
  const gpus: GpuChoice = p.gpus?.kind ?? 'none';
  return {
    runsOn: 'container',
    form: {
      ...form,
      ...(p.engine ? { engine: p.engine } : {}),
      ...(p.image ? { image: p.image } : {}),
      gpus,
      ...(p.gpus?.kind === 'count' ? { gpuCount: String(p.gpus.count) } : {}),
      ...(p.gpus?.kind === 'ids' ? { gpuIds: p.gpus.ids.join(',') } : {}),
      ...(p.limits?.memoryBytes != null ? { memory: memoryText(p.limits.memoryBytes) } : {}),
      ...(p.limits?.cpus != null ? { cpus: String(p.limits.cpus) } : {}),
      ...(p.limits?.pids != null ? { pids: String(p.limits.pids) } : {}),
      ...(p.network ? { network: p.network } : {}),
    },
  };
}

/** Where the prefilled choice came from, in the user's words. */
export function originText(from: readonly PlacementOrigin[]): string {
  const feature = from.includes('feature');
  const project = from.includes('project');
  if (feature && project) return "Prefilled from the feature, over this project's config (agent.placement).";
  if (feature) return "Prefilled from the feature (agent.placement in its state.yml).";
  if (project) return "Prefilled from this project's config (agent.placement in .flightdeck/config.yml).";
  return "Neither the feature nor this project's config sets a placement: on this machine unless you choose otherwise (agent.placement in .flightdeck/config.yml sets the project's default).";
}
