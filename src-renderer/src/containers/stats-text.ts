/**
 * A container's sample as the Containers view's row shows it. Pure, so the row's text is
 * unit-tested (GPU figures cannot be produced here without a GPU).
 */
import { gpuUseText, type ContainerStats } from '../../../src-preload/contract/containers';
import { formatBytes } from '../../../src-preload/contract/units';

/** CPU, memory (with its limit when there is one) and each GPU. */
export function statsText(s: ContainerStats): string {
  const limit = s.memoryLimitBytes ? ` / ${formatBytes(s.memoryLimitBytes)}` : '';
  return `CPU ${s.cpuPercent.toFixed(1)}% · ${formatBytes(s.memoryBytes)}${limit}${s.gpus.map((g) => ` · ${gpuUseText(g)}`).join('')}`;
}
