/**
 * A feature run's placement: the shape state.yml and `featureRuns.start` accept (the containers'
 * own placement fields plus `kind`), old files without it (on the host), a misspelt or invalid
 * placement refused with a message that names the field, and the request over the file.
 */
import { describe, expect, it } from 'vitest';
import { requests, RunPlacement } from '../../../../src-preload/contract';
import { effectivePlacement } from '../../../../src-main/features/run/feature-runner';
import { newFeatureState, parseState, serializeState } from '../../../../src-main/features/state';

function stateYaml(agent: string): string {
  const s = newFeatureState({ slug: 'demo', now: new Date('2026-02-10T10:30:00Z'), worktreePath: '.trees/demo', branch: 'feature/demo', baseBranch: 'main', devPhases: ['one'] });
  return `${serializeState(s).replace(/^agent: null\n/m, '')}agent:\n${agent}`;
}

function refusal(text: string): string {
  try {
    parseState(text, '/p/state.yml');
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error('the state was accepted');
}

describe('feature run placement', () => {
  it('state.yml without agent.placement reads as before and writes no placement back', () => {
    const s = parseState(stateYaml('  executor: builtin\n'), '/p/state.yml');
    expect(s.agent?.placement).toBeUndefined();
    expect(serializeState(s)).not.toContain('placement');
    expect(effectivePlacement(s.agent?.placement, undefined)).toEqual({ kind: 'host' });
  });

  it('state.yml takes a container placement with the containers fields and keeps it on write', () => {
    const s = parseState(stateYaml('  executor: builtin\n  placement:\n    kind: container\n    engine: local\n    gpus: { kind: count, count: 2 }\n    limits: { cpus: 2 }\n    network: none\n'), '/p/state.yml');
    expect(s.agent?.placement).toEqual({ kind: 'container', engine: 'local', gpus: { kind: 'count', count: 2 }, limits: { cpus: 2 }, network: 'none' });
    expect(parseState(serializeState(s), '/p/state.yml').agent?.placement).toEqual(s.agent?.placement);
  });

  it('refuses an invalid placement in state.yml with the field and the line', () => {
    const misspelt = refusal(stateYaml('  executor: builtin\n  placement:\n    kind: container\n    gpu: all\n'));
    expect(misspelt).toMatch(/placement/);
    expect(misspelt).toMatch(/gpu/);
    const badKind = refusal(stateYaml('  executor: builtin\n  placement:\n    kind: vm\n'));
    expect(badKind).toMatch(/agent\.placement\.kind/);
    const badNetwork = refusal(stateYaml('  executor: builtin\n  placement:\n    kind: container\n    network: wifi\n'));
    expect(badNetwork).toMatch(/network/);
    expect(badNetwork).toMatch(/state\.yml:\d+: agent\.placement\.network/);
  });

  it('featureRuns.start accepts a placement and refuses an invalid one', () => {
    const start = requests['featureRuns.start'].input;
    const base = { projectId: 'proj-1', slug: 'demo' };
    expect(start.safeParse({ ...base, placement: { kind: 'container', image: 'img:1', gpus: { kind: 'all' } } }).success).toBe(true);
    expect(start.safeParse({ ...base, placement: { kind: 'host' } }).success).toBe(true);
    const bad: unknown[] = [{ kind: 'vm' }, { kind: 'host', image: 'x' }, { kind: 'container', gpus: { kind: 'count', count: 0 } }, { kind: 'container', network: 'wifi' }, { kind: 'container', image: '' }];
    for (const placement of bad) {
      const r = start.safeParse({ ...base, placement });
      expect(r.success, JSON.stringify(placement)).toBe(false);
      expect(r.error!.issues[0]!.path[0]).toBe('placement');
    }
  });

  it('the request overrides the file, field by field between two container placements', () => {
    const file = RunPlacement.parse({ kind: 'container', image: 'img:1', limits: { cpus: 2 } });
    expect(effectivePlacement(file, { kind: 'container', gpus: { kind: 'all' } })).toEqual({ kind: 'container', image: 'img:1', limits: { cpus: 2 }, gpus: { kind: 'all' } });
    expect(effectivePlacement(file, { kind: 'host' })).toEqual({ kind: 'host' });
    expect(effectivePlacement(undefined, { kind: 'container' })).toEqual({ kind: 'container' });
    expect(effectivePlacement(file, undefined)).toBe(file);
  });
});
