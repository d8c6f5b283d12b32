/**
 * The run dialog's starting point: a feature's default placement back into the dialog's fields,
 * so that reading the untouched fields sends the same placement, and the sentence naming where
 * the default came from.
 */
import { describe, expect, it } from 'vitest';
import type { RunPlacement } from '../../../../src-preload/contract';
import { emptyPlacementForm, readPlacementForm } from '../../../../src-renderer/src/containers/placement-form';
import { formOfPlacement, memoryText, originText } from '../../../../src-renderer/src/feature-view/run-placement';

const ENGINE = { cpus: 8, memoryBytes: 32 * 1024 ** 3, nvidia: true };

describe('the run dialog default', () => {
  it('writes memory exactly as the field reads it', () => {
    expect(memoryText(8 * 1024 ** 3)).toBe('8g');
    expect(memoryText(512 * 1024 ** 2)).toBe('512m');
    expect(memoryText(1536 * 1024 ** 2)).toBe('1536m');
    expect(memoryText(10_000_000)).toBe('10000000');
  });

  it('a host default chooses this machine with the form untouched', () => {
    expect(formOfPlacement({ kind: 'host' })).toEqual({ runsOn: 'host', form: emptyPlacementForm() });
  });

  it('a container default fills every field, and the untouched form sends it back', () => {
    const cases: Array<Extract<RunPlacement, { kind: 'container' }>> = [
      { kind: 'container', engine: 'gpu-box', image: 'img:1', gpus: { kind: 'count', count: 2 }, limits: { memoryBytes: 8 * 1024 ** 3, cpus: 2.5, pids: 512 }, network: 'none' },
      { kind: 'container', engine: 'local', image: 'img:2', gpus: { kind: 'ids', ids: ['0', 'GPU-3f1c'] }, network: 'host' },
      { kind: 'container', engine: 'local', image: 'img:3', gpus: { kind: 'all' }, network: 'bridge', limits: { memoryBytes: 300 * 1024 ** 2 } },
    ];
    for (const p of cases) {
      const { runsOn, form } = formOfPlacement(p);
      expect(runsOn).toBe('container');
      const { kind: _kind, ...fields } = p;
      expect(readPlacementForm(form, ENGINE).placement).toEqual(fields);
    }
  });

  it('fields the default leaves out keep the form defaults (the engine is chosen by the dialog)', () => {
    const { form } = formOfPlacement({ kind: 'container', network: 'none' });
    expect(form).toEqual({ ...emptyPlacementForm(), network: 'none' });
  });

  it('says where the default came from', () => {
    expect(originText(['project'])).toMatch(/this project's config/);
    expect(originText(['feature'])).toMatch(/from the feature/);
    expect(originText(['feature', 'project'])).toMatch(/from the feature, over this project's config/);
    expect(originText([])).toMatch(/on this machine/);
  });
});
