/**
 * The project's default placement for feature runs: `agent.placement` in config.yml (the same
 * shape and strictness as state.yml's), refused with its key path and line when invalid, and
 * the precedence request > state.yml > config.yml > host, merged field by field between
 * container placements.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunPlacement } from '../../../src-preload/contract';
import { parseConfig } from '../../../src-main/features/config';
import { buildInitConfig } from '../../../src-main/features/init-model';
import { FeatureError } from '../../../src-main/features/errors';
import { defaultPlacement, effectivePlacement, projectDefaultPlacement } from '../../../src-main/features/placement';

const PATH = '/repo/.flightdeck/config.yml';

function refusal(text: string): FeatureError {
  try {
    parseConfig(text, PATH);
  } catch (e) {
    expect(e).toBeInstanceOf(FeatureError);
    return e as FeatureError;
  }
  throw new Error('the config was accepted');
}

describe('config.yml agent.placement', () => {
  it('is absent by default and takes a container placement with the containers fields', () => {
    expect(parseConfig('agent:\n  model: m\n', PATH).agent.placement).toBeUndefined();
    const c = parseConfig(
      ['version: 1', 'agent:', '  model: m', '  placement:', '    kind: container', '    engine: local', '    image: img:1', '    gpus: { kind: ids, ids: ["0", "1"] }', '    limits: { memoryBytes: 268435456, cpus: 2 }', '    network: none', '    taskTimeoutMs: 60000', ''].join('\n'),
      PATH,
    );
    expect(c.agent.placement).toEqual({ kind: 'container', engine: 'local', image: 'img:1', gpus: { kind: 'ids', ids: ['0', '1'] }, limits: { memoryBytes: 268435456, cpus: 2 }, network: 'none', taskTimeoutMs: 60000 });
    expect(c.agent.model).toBe('m');
    expect(parseConfig('agent:\n  placement: { kind: host }\n', PATH).agent.placement).toEqual({ kind: 'host' });
  });

  it('refuses a misspelt field with its key path and line', () => {
    const e = refusal('version: 1\nagent:\n  placement:\n    kind: container\n    gpu: all\n');
    expect(e.kind).toBe('config');
    expect(e.line).toBe(5);
    expect(e.message).toBe(`${PATH}:5: unknown key "agent.placement.gpu"`);
  });

  it('refuses invalid values with their key path and line', () => {
    const network = refusal('agent:\n  placement:\n    kind: container\n    network: wifi\n');
    expect(network.message).toMatch(new RegExp(`^${PATH.replace(/\./g, '\\.')}:4: agent\\.placement\\.network: `));
    const kind = refusal('agent:\n  model: m\n  placement:\n    kind: vm\n');
    expect(kind.message).toMatch(/config\.yml:4: agent\.placement\.kind/);
    const gpus = refusal('agent:\n  placement:\n    kind: container\n    gpus: { kind: count, count: 0 }\n');
    expect(gpus.message).toMatch(/config\.yml:4: agent\.placement\.gpus\.count/);
    // A host placement has no container fields.
    const host = refusal('agent:\n  placement:\n    kind: host\n    image: img:1\n');
    expect(host.message).toMatch(/config\.yml:4: unknown key "agent\.placement\.image"/);
  });
});

describe('the config init writes', () => {
  it('carries agent.placement commented out: absent as written, a container placement once uncommented', () => {
    const r = buildInitConfig({ checks: ['npm test'], setup: [], toolchains: [] }, null, PATH);
    expect(r.config.agent.placement).toBeUndefined();
    expect(r.text).toMatch(/^ {2}# placement:$/m);
    const uncommented = r.text.replace(/^ {2}# (placement:| {2})/gm, '  $1');
    expect(uncommented).not.toBe(r.text);
    const c = parseConfig(uncommented, PATH);
    expect(c.agent.placement).toEqual({ kind: 'container', image: 'flightdeck-agent:latest', engine: 'local', gpus: { kind: 'none' }, network: 'bridge' });
    // Everything else stays as init wrote it.
    expect({ ...c, agent: { ...c.agent, placement: undefined } }).toEqual({ ...r.config, agent: { ...r.config.agent, placement: undefined } });
  });
});

describe('the documented example config', () => {
  it("carries the same commented agent.placement, which parses once uncommented", () => {
    const block = /```yaml\n# \.flightdeck\/config\.yml\n([\s\S]*?)```/.exec(readFileSync('docs/features.md', 'utf8'))![1]!;
    expect(parseConfig(block, 'docs').agent.placement).toBeUndefined();
    const uncommented = block.replace(/^ {2}# (placement:| {2})/gm, '  $1');
    expect(parseConfig(uncommented, 'docs').agent.placement).toEqual({ kind: 'container', image: 'flightdeck-agent:latest', engine: 'local', gpus: { kind: 'none' }, network: 'bridge' });
  });
});

describe('placement precedence', () => {
  const project: RunPlacement = { kind: 'container', engine: 'remote', image: 'proj:1', limits: { cpus: 4 }, network: 'none' };
  const feature: RunPlacement = { kind: 'container', image: 'feat:1', gpus: { kind: 'all' } };

  it('the project config alone decides when nothing nearer says', () => {
    expect(effectivePlacement(undefined, undefined, project)).toBe(project);
    expect(effectivePlacement(undefined, undefined, undefined)).toEqual({ kind: 'host' });
    expect(effectivePlacement(undefined, undefined, { kind: 'host' })).toEqual({ kind: 'host' });
  });

  it('state.yml over the project, field by field between containers; a host feature stays on the host', () => {
    expect(effectivePlacement(feature, undefined, project)).toEqual({ kind: 'container', engine: 'remote', image: 'feat:1', limits: { cpus: 4 }, network: 'none', gpus: { kind: 'all' } });
    expect(effectivePlacement({ kind: 'host' }, undefined, project)).toEqual({ kind: 'host' });
    expect(effectivePlacement(feature, undefined, { kind: 'host' })).toBe(feature);
    // Limits key by key: the project's CPUs stay under the feature's memory.
    expect(effectivePlacement({ ...feature, limits: { memoryBytes: 2 ** 30 } }, undefined, project)).toMatchObject({ limits: { cpus: 4, memoryBytes: 2 ** 30 } });
    expect(effectivePlacement({ ...feature, limits: { cpus: 1 } }, { kind: 'container', limits: { pids: 64 } }, project)).toMatchObject({ limits: { cpus: 1, pids: 64 } });
  });

  it('the request over both, field by field between containers', () => {
    expect(effectivePlacement(feature, { kind: 'container', network: 'bridge' }, project)).toEqual({ kind: 'container', engine: 'remote', image: 'feat:1', limits: { cpus: 4 }, network: 'bridge', gpus: { kind: 'all' } });
    expect(effectivePlacement(undefined, { kind: 'container', image: 'req:1' }, project)).toEqual({ ...project, image: 'req:1' });
    expect(effectivePlacement(feature, { kind: 'host' }, project)).toEqual({ kind: 'host' });
    expect(effectivePlacement({ kind: 'host' }, { kind: 'container', image: 'req:1' }, project)).toEqual({ kind: 'container', image: 'req:1' });
  });

  it('the default a run dialog prefills names where it came from', () => {
    expect(defaultPlacement(undefined, undefined)).toEqual({ placement: { kind: 'host' }, from: [] });
    expect(defaultPlacement(project, undefined)).toEqual({ placement: project, from: ['project'] });
    expect(defaultPlacement(undefined, feature)).toEqual({ placement: feature, from: ['feature'] });
    expect(defaultPlacement(project, feature)).toEqual({ placement: effectivePlacement(feature, undefined, project), from: ['feature', 'project'] });
    // A host feature takes nothing from the project's container default.
    expect(defaultPlacement(project, { kind: 'host' })).toEqual({ placement: { kind: 'host' }, from: ['feature'] });
  });
});

describe('projectDefaultPlacement', () => {
  let dir: string | null = null;
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
    dir = null;
  });
  const repoWith = (config: string | null): string => {
    dir = mkdtempSync(join(tmpdir(), 'fd-placement-'));
    if (config !== null) {
      mkdirSync(join(dir, '.flightdeck'));
      writeFileSync(join(dir, '.flightdeck', 'config.yml'), config);
    }
    return dir;
  };

  it('reads the project config: its placement, null without one or without a config', async () => {
    expect(await projectDefaultPlacement(repoWith('agent:\n  placement: { kind: container, image: "img:2", gpus: { kind: count, count: 2 } }\n'))).toEqual({ kind: 'container', image: 'img:2', gpus: { kind: 'count', count: 2 } });
    rmSync(dir!, { recursive: true });
    expect(await projectDefaultPlacement(repoWith('agent:\n  model: m\n'))).toBeNull();
    rmSync(dir!, { recursive: true });
    expect(await projectDefaultPlacement(repoWith(null))).toBeNull();
  });

  it('an invalid config throws its config error with the file, key path and line', async () => {
    const root = repoWith('version: 1\nagent:\n  placement:\n    kind: container\n    network: wifi\n');
    await expect(projectDefaultPlacement(root)).rejects.toThrow(new RegExp(`config\\.yml:5: agent\\.placement\\.network`));
    await expect(projectDefaultPlacement(root)).rejects.toMatchObject({ kind: 'config', line: 5, path: join(root, '.flightdeck', 'config.yml') });
  });
});
