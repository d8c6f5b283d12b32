/**
 * Issue 20 §2.7: every file Flightdeck parses from a repository has a size limit checked before
 * it is read. A 60 MB state.yml froze the host for 20 s per list: now the list answers with that
 * feature marked by the size error and the others listed; a huge config.yml is refused the same
 * way, and an oversized PLAN.md (100,000 steps) is refused with a clear message.
 */
import { mkdirSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, MAX_CONFIG_FILE_BYTES } from '../../../src-main/features/config';
import { activeStatePath } from '../../../src-main/features/scanner';
import { newPlan } from '../../../src-main/autopilot/plan/edit';
import { readPlan } from '../../../src-main/autopilot/workspace';
import { cli } from '../../support/cli';
import { tempDir } from '../../support/temp';
import { ignoreTrees, makeActiveFeature, repoWithOrigin, type RepoWithOrigin } from './support/feature-repos';

let r: RepoWithOrigin;
let data: { path: string; cleanup(): void };
const fd = (...args: string[]) => cli(...args, `--data-dir=${data.path}`);

beforeAll(async () => {
  r = repoWithOrigin('fd-oversized-');
  data = tempDir('fd-oversized-data-');
  ignoreTrees(r.path);
  makeActiveFeature(r.path, 'good', { status: 'in_progress' });
  makeActiveFeature(r.path, 'huge', { status: 'planned' });
  // 60 MB without writing 60 MB: a sparse file of that size (its content would not even parse).
  truncateSync(activeStatePath(r.path, 'huge'), 60 * 1024 * 1024);
  expect((await fd('projects', 'add', r.path)).code).toBe(0);
}, 60_000);

afterAll(() => {
  r.cleanup();
  data.cleanup();
});

describe('files over their size limit', () => {
  it('feature list: a 60 MB state.yml is not read — that feature carries the size error, the others are listed', async () => {
    const res = await fd('feature', 'list', '--json');
    expect(res.code, res.err).toBe(0);
    const out = JSON.parse(res.out) as { projects: { repoRoot: string; features: { slug: string; status: string; problem: { message: string } | null }[] }[] };
    const p = out.projects.find((x) => x.repoRoot === r.path)!;
    expect(p.features.find((f) => f.slug === 'good')).toMatchObject({ status: 'in_progress', problem: null });
    const huge = p.features.find((f) => f.slug === 'huge');
    // The size was checked before reading: the error is the limit, not a parse error of the zeros.
    expect(huge?.problem?.message).toContain('the state file is 60 MiB, over the 1 MiB a feature\'s state may take; it is not read');
    // Asked again: the same answer (the failure is kept for that file, not retried as a parse).
    const again = JSON.parse((await fd('feature', 'list', '--json')).out) as typeof out;
    expect(again.projects.find((x) => x.repoRoot === r.path)!.features.find((f) => f.slug === 'huge')?.problem?.message).toBe(huge?.problem?.message);
  });

  it('a features config over its limit is refused before it is read', async () => {
    const repo = tempDir('fd-oversized-config-');
    try {
      mkdirSync(join(repo.path, '.flightdeck'));
      writeFileSync(join(repo.path, '.flightdeck', 'config.yml'), `checks: ["npm test"]\n# ${'x'.repeat(MAX_CONFIG_FILE_BYTES)}\n`);
      await expect(loadConfig(repo.path)).rejects.toThrow(/the features config is \d+ bytes, over the 262144 a config may take; it is not read/);
    } finally {
      repo.cleanup();
    }
  });

  it('a features config that is a link, or reached through a linked .flightdeck, is not read (it would name any file of the user)', async () => {
    const repo = tempDir('fd-linked-config-');
    const home = tempDir('fd-linked-config-home-');
    try {
      writeFileSync(join(home.path, 'secret.yml'), 'checks: ["cat ~/.ssh/id_rsa"]\n');
      mkdirSync(join(repo.path, '.flightdeck'));
      symlinkSync(join(home.path, 'secret.yml'), join(repo.path, '.flightdeck', 'config.yml'));
      await expect(loadConfig(repo.path)).rejects.toThrow(/the features config is not read: .*config\.yml.*link/i);
      const other = tempDir('fd-linked-config-dir-');
      try {
        mkdirSync(join(home.path, 'fd'));
        writeFileSync(join(home.path, 'fd', 'config.yml'), 'checks: []\n');
        symlinkSync(join(home.path, 'fd'), join(other.path, '.flightdeck'));
        await expect(loadConfig(other.path)).rejects.toThrow(/the features config is not read: .*\.flightdeck.*link/i);
      } finally {
        other.cleanup();
      }
    } finally {
      repo.cleanup();
      home.cleanup();
    }
  });

  it('a 100,000-step PLAN.md is refused with a clear message; a linked PLAN.md is not followed', async () => {
    const wt = tempDir('fd-oversized-plan-');
    const home = tempDir('fd-oversized-home-');
    try {
      const plan = newPlan({ goal: 'everything', testCmd: 'npm test', steps: Array.from({ length: 100_000 }, (_, i) => `step number ${i}`) });
      writeFileSync(join(wt.path, 'PLAN.md'), plan);
      await expect(readPlan(wt.path)).rejects.toThrow(/^PLAN\.md is 3\.\d MiB, over the 256 KiB a plan may take, so it is not read: shorten it/);
      // A normal plan reads as before.
      writeFileSync(join(wt.path, 'PLAN.md'), newPlan({ goal: 'small', testCmd: 'npm test', steps: ['one'] }));
      expect(await readPlan(wt.path)).toContain('one');
      writeFileSync(join(home.path, 'secret'), 'SECRET');
      const linked = tempDir('fd-oversized-plan-link-');
      try {
        symlinkSync(join(home.path, 'secret'), join(linked.path, 'PLAN.md'));
        await expect(readPlan(linked.path)).rejects.toThrow(/PLAN\.md is not read: .* is a symbolic link/);
      } finally {
        linked.cleanup();
      }
    } finally {
      wt.cleanup();
      home.cleanup();
    }
  });
});
