import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildCoderPrompt } from '../../../src-main/coder/constraints';
import { abortableSleep } from '../../../src-main/coder/coder';
import { groupAlive } from '../../../src-main/coder/process-group';
import { coderHarness, requestText, type CoderHarness } from './support';

let h: CoderHarness | undefined;
afterEach(async () => {
  await h?.cleanup();
  h = undefined;
});

function processesMatching(marker: string): string[] {
  return execFileSync('ps', ['-eo', 'pid=,args='], { encoding: 'utf8' })
    .split('\n')
    .filter((l) => l.includes(marker) && !l.includes('ps -eo'));
}

describe('retries (seed 000 policy)', () => {
  it('retries retryable failures with 0.5 s → 1 s → 2 s backoff, then succeeds', async () => {
    h = await coderHarness([{ fault: { kind: 'status', status: 529 }, times: 3 }, { blocks: [{ type: 'text', text: 'Finally.' }] }]);
    const waits: Array<{ requested: number; waited: number }> = [];
    const r = await h.run(
      { max_retries: 3, return_metrics: true },
      {
        sleep: async (ms, signal) => {
          const t = performance.now();
          await abortableSleep(ms, signal);
          waits.push({ requested: ms, waited: performance.now() - t });
        },
      },
    );
    expect(r).toMatchObject({ success: true, result: 'Finally.', metrics: { attempts: 4 } });
    expect(waits.map((w) => w.requested)).toEqual([500, 1000, 2000]);
    // Measured on the server: each attempt arrived at least its backoff after the previous one.
    const at = h.server.mainRequests().map((q) => q.receivedAt);
    expect(at).toHaveLength(4);
    [500, 1000, 2000].forEach((delay, i) => expect(at[i + 1]! - at[i]!).toBeGreaterThanOrEqual(delay));
  });

  it('gives up after max_retries and reports how many were made', async () => {
    h = await coderHarness([{ fault: { kind: 'status', status: 529 }, times: 5 }]);
    const r = await h.run({ max_retries: 1 }, { sleep: () => Promise.resolve() });
    expect(r).toMatchObject({ success: false, error_kind: 'upstream_error', error_detail: { retries: 1 } });
    expect(h.server.mainRequests()).toHaveLength(2);
  });

  it('does not retry by default', async () => {
    h = await coderHarness([{ fault: { kind: 'status', status: 529 }, times: 5 }]);
    const r = await h.run({});
    expect(r).toMatchObject({ success: false, error_kind: 'upstream_error', error_detail: { retries: 0 } });
    expect(h.server.mainRequests()).toHaveLength(1);
  });

  it('never retries an attempt that changed files in cd', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'half-done.txt', content: 'partial' } }] },
      { fault: { kind: 'status', status: 500 }, times: 5 },
    ]);
    const r = await h.run({ max_retries: 3 }, { sleep: () => Promise.resolve() });
    expect(r).toMatchObject({ success: false, error_kind: 'upstream_error', error_detail: { retries: 0 } });
    if (r.success) throw new Error('unreachable');
    expect(r.error).toContain('Not retried: the attempt changed files in cd (half-done.txt)');
    expect(existsSync(join(h.repo, 'half-done.txt'))).toBe(true);
    expect(h.server.mainRequests()).toHaveLength(2);
  });
});

describe('engineering constraints', () => {
  it('injects the ai/ files into the prompt the server receives, and says which', async () => {
    h = await coderHarness([{ blocks: [{ type: 'text', text: 'Done within scope.' }] }]);
    mkdirSync(join(h.repo, 'ai/contracts'), { recursive: true });
    writeFileSync(join(h.repo, 'ai/contracts/current.md'), '# Contract\nOnly the zebra module changes.\n## Allowed paths\n- `src/zebra/**`\n');
    writeFileSync(join(h.repo, 'ai/implementer_guardrails.md'), 'Never add dependencies.\n');
    const built = await buildCoderPrompt({ task: { type: '新增功能', targetFiles: ['src/zebra/index.ts'], requirements: ['add stripes()'] }, cd: h.repo, inject: true });
    expect(built.injected.map((f) => f.path)).toEqual(['ai/contracts/current.md', 'ai/implementer_guardrails.md']);
    const r = await h.run({ PROMPT: built.prompt }, { checkContract: true });
    expect(r).toMatchObject({ success: true });
    const text = requestText(h.server.mainRequests()[0]!.body);
    for (const part of ['【Implementation Contract】', 'Only the zebra module changes.', '【Implementer Guardrails】', 'Never add dependencies.', 'add stripes()']) expect(text).toContain(part);
    expect(text).not.toContain('Engineering Codex');
  });

  it('without inject, nothing from ai/ goes in', async () => {
    h = await coderHarness([]);
    mkdirSync(join(h.repo, 'ai'), { recursive: true });
    writeFileSync(join(h.repo, 'ai/engineering_codex.md'), 'codex text');
    const built = await buildCoderPrompt({ task: 'plain task', cd: h.repo, inject: false });
    expect(built.injected).toEqual([]);
    expect(built.prompt).not.toContain('codex text');
  });

  it('a Write outside the contract scope is refused before it runs: the file never exists', async () => {
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Write', input: { file_path: 'src/other/x.ts', content: 'x' } }] },
      { blocks: [{ type: 'text', text: 'Could not write it.' }] },
    ]);
    mkdirSync(join(h.repo, 'ai/contracts'), { recursive: true });
    writeFileSync(join(h.repo, 'ai/contracts/current.md'), '## Allowed paths\n- `src/zebra/**`\n');
    const r = await h.run({}, { checkContract: true });
    expect(existsSync(join(h.repo, 'src/other/x.ts'))).toBe(false);
    // The refusal reached the model with the path and why (reverting after the fact is in contract-scope.test.ts).
    expect(JSON.stringify(h.server.mainRequests()[1]!.body)).toContain('src/other/x.ts is not in the allowed paths');
    expect(r).toMatchObject({ tool: 'coder' });
  });
});

describe('cancel', () => {
  it('ends the whole process group: no claude and no command it started survive', async () => {
    const marker = `${300 + Math.floor(Math.random() * 600)}.${Date.now() % 1000}`;
    h = await coderHarness([
      { blocks: [{ type: 'tool_use', name: 'Bash', input: { command: `sleep ${marker}`, description: 'wait' } }] },
      { blocks: [{ type: 'text', text: 'never reached' }] },
    ]);
    const ctl = new AbortController();
    let pid = 0;
    const run = h.run(
      { timeout: 60 },
      {
        signal: ctl.signal,
        onSpawn: (p) => (pid = p),
        hookObserver: {
          onDecided: () => {
            // Once the command is allowed, wait until it really runs, then cancel.
            const poll = setInterval(() => {
              if (processesMatching(`sleep ${marker}`).length > 0) {
                clearInterval(poll);
                ctl.abort();
              }
            }, 50);
          },
        },
      },
    );
    const r = await run;
    expect(r).toMatchObject({ success: false, error_kind: 'cancelled' });
    expect(pid).toBeGreaterThan(0);
    expect(groupAlive(pid)).toBe(false);
    expect(() => process.kill(pid, 0)).toThrow();
    expect(processesMatching(`sleep ${marker}`)).toEqual([]);
  });
});
