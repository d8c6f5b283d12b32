import { describe, expect, it } from 'vitest';
import { gpuUseText as gpuText } from '../../../../src-preload/contract/containers';
import { statsText } from '../../../../src-renderer/src/containers/stats-text';

const MIB = 2 ** 20;

describe("a container row's stats", () => {
  it('shows CPU, memory against its limit and each GPU with its use and memory', () => {
    const s = {
      cpuPercent: 12.345,
      memoryBytes: 300 * 1024,
      memoryLimitBytes: 8 * 1024 * MIB,
      pids: 3,
      gpus: [
        { index: 0, name: 'NVIDIA A100-SXM4-80GB', utilizationPercent: 37, memoryUsedMiB: 1234, memoryTotalMiB: 81920 },
        { index: 1, name: 'NVIDIA A100-SXM4-80GB', utilizationPercent: 0, memoryUsedMiB: 4, memoryTotalMiB: 81920 },
      ],
      at: 0,
    };
    expect(statsText(s)).toBe('CPU 12.3% · 300 KiB / 8 GiB · GPU0 37% 1.2 GiB / 80 GiB · GPU1 0% 4 MiB / 80 GiB');
    expect(statsText({ ...s, memoryLimitBytes: 0, gpus: [] })).toBe('CPU 12.3% · 300 KiB');
  });

  it('says n/a for a figure nvidia-smi could not give, and leaves out memory it does not know', () => {
    expect(gpuText({ index: 0, name: 'MIG 1g.10gb', utilizationPercent: null, memoryUsedMiB: 3, memoryTotalMiB: 40960 })).toBe('GPU0 n/a 3 MiB / 40 GiB');
    expect(gpuText({ index: 1, name: 'NVIDIA T4', utilizationPercent: null, memoryUsedMiB: null, memoryTotalMiB: null })).toBe('GPU1 n/a');
  });
});
