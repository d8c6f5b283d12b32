import { describe, expect, it } from 'vitest';
import { ContainerPlacement } from '../../../../src-preload/contract/containers';
import { emptyPlacementForm, parseMemory, readPlacementForm } from '../../../../src-renderer/src/containers/placement-form';

const ENGINE = { cpus: 4, memoryBytes: 16 * 1024 ** 3, nvidia: false };

describe('the new-session dialog container fields', () => {
  it('reads sizes as Docker does (binary units)', () => {
    expect(parseMemory('512m')).toBe(512 * 1024 ** 2);
    expect(parseMemory('8g')).toBe(8 * 1024 ** 3);
    expect(parseMemory('1.5 GiB')).toBe(1.5 * 1024 ** 3);
    expect(parseMemory('1048576')).toBe(1048576);
    for (const bad of ['', 'lots', '8 gigs', '-1g', '1e9']) expect(parseMemory(bad)).toBeNull();
  });

  it('defaults to the agent image, no GPU, bridge network and the app default limits; the result fits the contract', () => {
    const r = readPlacementForm(emptyPlacementForm('local'), ENGINE);
    expect(r.errors).toEqual({});
    expect(r.placement).toEqual({ engine: 'local', image: 'flightdeck-agent:latest', gpus: { kind: 'none' }, network: 'bridge' });
    expect(ContainerPlacement.parse(r.placement)).toEqual(r.placement);
  });

  it('reads every field into the placement', () => {
    const f = { ...emptyPlacementForm('local'), image: ' img:1 ', gpus: 'ids' as const, gpuIds: '0, GPU-3f1c-aa', memory: '256m', cpus: '0.5', pids: '256', network: 'none' as const };
    const r = readPlacementForm(f, { ...ENGINE, nvidia: true });
    expect(r.placement).toEqual({ engine: 'local', image: 'img:1', gpus: { kind: 'ids', ids: ['0', 'GPU-3f1c-aa'] }, network: 'none', limits: { memoryBytes: 256 * 1024 ** 2, cpus: 0.5, pids: 256 } });
    expect(r.warning).toBeNull();
    expect(ContainerPlacement.parse(r.placement)).toEqual(r.placement);
    expect(readPlacementForm({ ...f, gpus: 'count', gpuCount: '2' }, ENGINE).placement?.gpus).toEqual({ kind: 'count', count: 2 });
  });

  it('names each field that does not fit, and gives no placement', () => {
    const r = readPlacementForm({ ...emptyPlacementForm(''), image: 'my image', gpus: 'count', gpuCount: '0', memory: '2m', cpus: '9', pids: '8' }, ENGINE);
    expect(r.placement).toBeNull();
    expect(r.errors).toEqual({
      engine: 'Choose an engine that answers.',
      image: expect.stringMatching(/no spaces/),
      gpus: 'A whole number of GPUs from 1 to 64.',
      memory: 'At least 6 MiB (the engine refuses less).',
      cpus: 'The engine has 4 CPUs.',
      pids: 'From 16 to 4194304 processes.',
    });
    expect(readPlacementForm({ ...emptyPlacementForm('local'), memory: '64g' }, ENGINE).errors.memory).toBe('The engine has 16 GiB.');
    expect(readPlacementForm({ ...emptyPlacementForm('local'), gpus: 'ids', gpuIds: '0,gpu0' }, ENGINE).errors.gpus).toMatch(/Not a GPU index or UUID: gpu0/);
    expect(readPlacementForm({ ...emptyPlacementForm('local'), cpus: 'two' }, ENGINE).errors.cpus).toBe('A number of CPUs, e.g. 2 or 0.5.');
    expect(readPlacementForm({ ...emptyPlacementForm('local'), image: '' }, ENGINE).errors.image).toMatch(/Name an image/);
  });

  it('warns, without refusing, about GPUs on an engine without the NVIDIA runtime', () => {
    const r = readPlacementForm({ ...emptyPlacementForm('local'), gpus: 'all' }, ENGINE);
    expect(r.placement?.gpus).toEqual({ kind: 'all' });
    expect(r.warning).toMatch(/NVIDIA Container Toolkit/);
  });
});
