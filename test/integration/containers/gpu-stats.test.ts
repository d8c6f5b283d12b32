/**
 * Per-GPU figures through a real container. There is no GPU here (and the engine refuses a GPU
 * device request without the NVIDIA runtime — containers.test.ts covers that refusal), so the
 * session's image carries a stand-in `nvidia-smi`: it answers only the exact query NVIDIA's tool
 * would be asked, with the CSV that tool prints, and refuses any other arguments. The product's
 * path is real: the exec in the container, the output read back, the CSV parsed.
 *
 * `stats()` and `statsOf()` ask nvidia-smi only for a container that has GPUs, and placing one
 * needs the NVIDIA runtime, so the per-GPU figures are checked through `gpuStats` (the same exec
 * and parsing those two use) and `stats()` is checked not to run nvidia-smi for a session
 * without GPUs. Which containers have GPUs (`gpusOf`, from the device request) is unit-tested.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerService } from '../../../src-main/containers/container-service';
import { silentLogger } from '../../../src-main/platform/logger';
import { ensureTestImage } from '../../support/container-image';
import { tempDir } from '../../support/temp';

const SMALL = { memoryBytes: 128 * 1024 * 1024, cpus: 1, pids: 128 };
/**
 * What NVIDIA's nvidia-smi is asked, spelled out here rather than imported: if the product's
 * query changes, the stand-in refuses it and this test fails until the CSV below is checked
 * against the new query.
 */
const EXPECTED_ARGS = '--query-gpu=index,name,utilization.gpu,memory.used,memory.total --format=csv,noheader,nounits';
/** nvidia-smi's answer to that query on a two-GPU machine (its format: ", " between fields, no units). */
const CSV = '0, NVIDIA A100-SXM4-80GB, 37, 1234, 81920\n1, NVIDIA A100-SXM4-80GB, 0, 4, 81920\n';
/** The stand-in also notes each call, so a test can tell whether it ran at all. */
const CALLS = '/tmp/nvidia-smi-calls';
const STAND_IN = `#!/bin/sh
echo "$*" >> ${CALLS}
if [ "$*" != "${EXPECTED_ARGS}" ]; then
  echo "nvidia-smi stand-in: unexpected arguments: $*" >&2
  exit 2
fi
printf '${CSV.replace(/\n/g, '\\n')}'
`;

let svc: ContainerService;
let gpuImage: string;
let plainImage: string;
const dirs: Array<{ cleanup(): void }> = [];

/** The tests' image plus the stand-in at /usr/bin/nvidia-smi, tagged by content so reruns reuse it. */
function ensureGpuImage(base: string): string {
  const ref = `flightdeck-test-gpu:${createHash('sha256').update(base).update(STAND_IN).digest('hex').slice(0, 16)}`;
  try {
    execFileSync('docker', ['image', 'inspect', ref], { stdio: 'ignore' });
    return ref;
  } catch {
    // Not built yet: build it below.
  }
  const ctx = tempDir('fd-gpu-image-');
  try {
    writeFileSync(join(ctx.path, 'nvidia-smi'), STAND_IN, { mode: 0o755 });
    writeFileSync(join(ctx.path, 'Dockerfile'), `FROM ${base}\nCOPY nvidia-smi /usr/bin/nvidia-smi\n`);
    execFileSync('docker', ['build', '-q', '-t', ref, ctx.path], { stdio: 'ignore' });
    return ref;
  } finally {
    ctx.cleanup();
  }
}

function worktree(): string {
  const w = tempDir('fd-gpu-wt-');
  dirs.push(w);
  return w.path;
}

async function calls(sessionId: string): Promise<string> {
  let out = '';
  await svc.exec(sessionId, { cmd: ['sh', '-c', `cat ${CALLS} 2>/dev/null || true`], timeoutMs: 30_000, onStdout: (t) => (out += t) });
  return out;
}

beforeAll(() => {
  plainImage = ensureTestImage();
  gpuImage = ensureGpuImage(plainImage);
  const data = tempDir('fd-gpu-data-');
  dirs.push(data);
  svc = new ContainerService({ dataDir: data.path, logger: silentLogger, engines: () => [{ name: 'local', source: 'default', host: 'unix:///var/run/docker.sock', tls: null }] });
}, 180_000);

afterAll(async () => {
  await svc?.shutdown();
  for (const d of dirs) d.cleanup();
});

describe('per-GPU stats from nvidia-smi inside the container', () => {
  it('runs the query in the container and returns each GPU with its utilisation and memory', async () => {
    await svc.place({ sessionId: 'ses_gpu_stats', worktree: worktree(), image: gpuImage, limits: SMALL, network: 'none' });
    expect(await svc.gpuStats('ses_gpu_stats')).toEqual([
      { index: 0, name: 'NVIDIA A100-SXM4-80GB', utilizationPercent: 37, memoryUsedMiB: 1234, memoryTotalMiB: 81920 },
      { index: 1, name: 'NVIDIA A100-SXM4-80GB', utilizationPercent: 0, memoryUsedMiB: 4, memoryTotalMiB: 81920 },
    ]);
    // It ran once, with exactly the expected arguments.
    expect(await calls('ses_gpu_stats')).toBe(`${EXPECTED_ARGS}\n`);

    // A session without GPUs: stats() does not ask nvidia-smi at all.
    const s = await svc.stats('ses_gpu_stats');
    expect(s.gpus).toEqual([]);
    expect(s.memoryLimitBytes).toBe(SMALL.memoryBytes);
    expect(await calls('ses_gpu_stats')).toBe(`${EXPECTED_ARGS}\n`);
  }, 120_000);

  it('an image without nvidia-smi gives no GPU figures, not an error', async () => {
    await svc.place({ sessionId: 'ses_gpu_none', worktree: worktree(), image: plainImage, limits: SMALL, network: 'none' });
    expect(await svc.gpuStats('ses_gpu_none')).toEqual([]);
  }, 120_000);
});
