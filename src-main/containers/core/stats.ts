/**
 * Container resource figures from the engine's stats stream and from `nvidia-smi` (pure).
 */

/** One GPU's figures; null where nvidia-smi reports a field as `[N/A]` or `[Not Supported]` (MIG, some boards). */
export interface GpuStat {
  index: number;
  name: string;
  utilizationPercent: number | null;
  memoryUsedMiB: number | null;
  memoryTotalMiB: number | null;
}

/** A figure nvidia-smi could not give (`[N/A]`, `[Not Supported]`, `N/A`) is unknown, not zero; anything else must be a number. */
function figure(text: string): number | null | undefined {
  if (/^\[?(N\/A|Not Supported|Unknown Error)\]?$/i.test(text)) return null;
  const n = Number(text);
  return text !== '' && Number.isFinite(n) ? n : undefined;
}

export interface ContainerStats {
  /** Percent of one CPU (200 = two CPUs busy), as `docker stats` shows it. */
  cpuPercent: number;
  memoryBytes: number;
  memoryLimitBytes: number;
  pids: number;
  gpus: GpuStat[];
  at: number;
}

interface RawStats {
  read?: string;
  cpu_stats?: { cpu_usage?: { total_usage?: number; percpu_usage?: number[] }; system_cpu_usage?: number; online_cpus?: number };
  precpu_stats?: { cpu_usage?: { total_usage?: number }; system_cpu_usage?: number };
  memory_stats?: { usage?: number; limit?: number; stats?: { cache?: number; inactive_file?: number; total_inactive_file?: number } };
  pids_stats?: { current?: number };
}

/**
 * The Docker CLI's formula: the container's share of the system's CPU time since the previous
 * sample, times the number of CPUs; memory without the reclaimable page cache (cgroup v2's
 * inactive_file, v1's total_inactive_file).
 */
export function parseStats(raw: unknown, gpus: GpuStat[] = [], now = Date.now()): ContainerStats {
  const s = (raw ?? {}) as RawStats;
  const total = s.cpu_stats?.cpu_usage?.total_usage ?? 0;
  const prevTotal = s.precpu_stats?.cpu_usage?.total_usage ?? 0;
  const sys = s.cpu_stats?.system_cpu_usage ?? 0;
  const prevSys = s.precpu_stats?.system_cpu_usage ?? 0;
  const cpus = s.cpu_stats?.online_cpus ?? s.cpu_stats?.cpu_usage?.percpu_usage?.length ?? 1;
  const dCpu = total - prevTotal;
  const dSys = sys - prevSys;
  const cpuPercent = dCpu > 0 && dSys > 0 ? (dCpu / dSys) * cpus * 100 : 0;
  const usage = s.memory_stats?.usage ?? 0;
  const st = s.memory_stats?.stats ?? {};
  const cache = st.inactive_file ?? st.total_inactive_file ?? 0;
  return {
    cpuPercent: Math.round(cpuPercent * 100) / 100,
    memoryBytes: Math.max(0, usage - cache),
    memoryLimitBytes: s.memory_stats?.limit ?? 0,
    pids: s.pids_stats?.current ?? 0,
    gpus,
    at: now,
  };
}

/** The query whose CSV parseNvidiaSmi reads. */
export const NVIDIA_SMI_ARGS = ['--query-gpu=index,name,utilization.gpu,memory.used,memory.total', '--format=csv,noheader,nounits'];

/** `nvidia-smi` CSV lines (NVIDIA_SMI_ARGS) → per-GPU figures; lines that do not parse are skipped. */
export function parseNvidiaSmi(csv: string): GpuStat[] {
  const out: GpuStat[] = [];
  for (const line of csv.split('\n')) {
    const f = line.split(',').map((x) => x.trim());
    if (f.length !== 5) continue;
    const [index, name, util, used, total] = f as [string, string, string, string, string];
    const i = Number(index);
    const [u, m, t] = [util, used, total].map(figure);
    // A GPU whose figures are unknown is still listed (it is assigned); a malformed line is not.
    if (index === '' || !Number.isInteger(i) || u === undefined || m === undefined || t === undefined) continue;
    out.push({ index: i, name, utilizationPercent: u, memoryUsedMiB: m, memoryTotalMiB: t });
  }
  return out;
}
