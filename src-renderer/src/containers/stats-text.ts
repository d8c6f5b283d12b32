/**
 * A container's sample as the Containers view's row shows it. Pure, so the row's text is
 * unit-tested (GPU figures cannot be produced here without a GPU).
 */
import type { ContainerStats } from '../../../src-preload/contract/containers';
import { formatBytes } from '../../../src-preload/contract/units';

const MIB = 2 ** 20;

/** One GPU's use; a figure nvidia-smi could not give (`[N/A]`) is "n/a", never 0. */
export function gpuText(g: ContainerStats['gpus'][number]): string {
  const util = g.utilizationPercent === null ? 'n/a' : `${g.utilizationPercent}%`;
  const memory = g.memoryUsedMiB !== null && g.memoryTotalMiB !== null ? ` ${formatBytes(g.memoryUsedMiB * MIB)} / ${formatBytes(g.memoryTotalMiB * MIB)}` : '';
  return `GPU${g.index} ${util}${memory}`;
}

/** CPU, memory (with its limit when there is one) and each GPU. */
export function statsText(s: ContainerStats): string {
  const limit = s.memoryLimitBytes ? ` / ${formatBytes(s.memoryLimitBytes)}` : '';
  return `CPU ${s.cpuPercent.toFixed(1)}% · ${formatBytes(s.memoryBytes)}${limit}${s.gpus.map((g) => ` · ${gpuText(g)}`).join('')}`;
}
