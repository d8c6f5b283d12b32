/**
 * The command file's container keys (container_engine, image, memory, cpus, pids, network):
 * parsing, writing round-trips, per-field errors, the rule that they go with
 * `placement: container`, and how a command's keys become the session's container placement.
 */
import { describe, expect, it } from 'vitest';
import { formatCommandFile, formatMemory, parseCommandFile, parseContainerKeys, type CommandFile, type CommandFileInput } from '../../../src-main/mailbox/command-file';
import { containerTaskPlacement, placementChanges, wantedPlacement } from '../../../src-main/mailbox/container-placement';
import { containerCommandFields } from '../../../src-main/mailbox/mailbox-service';
import { isAppError } from '../../../src-preload/contract/errors';

const GiB = 1024 ** 3;
const MiB = 1024 ** 2;

function file(extra: string, type = 'new', session = 'auto'): string {
  return `---\nid: task-c1\ncreated_at: 2026-02-22T10:00:00Z\nsession_id: ${session}\ncommand_type: ${type}\n${extra}---\n\n## Task\n\nRun it.\n`;
}

function parsed(extra: string, type?: string, session?: string): CommandFile {
  const r = parseCommandFile(file(extra, type, session));
  if (!r.ok) throw new Error(r.problems.map((p) => p.message).join('\n'));
  expect(r.warnings).toEqual([]);
  return r.command;
}

function problems(extra: string, type?: string, session?: string) {
  const r = parseCommandFile(file(extra, type, session));
  expect(r.ok).toBe(false);
  return r.ok ? [] : r.problems;
}

describe('container keys in a command file', () => {
  it('reads every key with placement: container', () => {
    const c = parsed('placement: container\ncontainer_engine: gpu-box\nimage: flightdeck-agent:cuda\nmemory: 8g\ncpus: 1.5\npids: 256\nnetwork: none\ngpus: 0\n');
    expect(c).toMatchObject({ placement: 'container', containerEngine: 'gpu-box', image: 'flightdeck-agent:cuda', memoryBytes: 8 * GiB, cpus: 1.5, pids: 256, network: 'none', gpus: { kind: 'count', count: 0 } });
  });

  it.each<[string, number]>([
    ['512m', 512 * MiB],
    ['"1.5GiB"', 1.5 * GiB],
    ['8589934592', 8 * GiB],
    ['"64 MB"', 64 * MiB],
  ])('memory: %s is %d bytes', (v, bytes) => {
    expect(parsed(`placement: container\nmemory: ${v}\n`).memoryBytes).toBe(bytes);
  });

  it('cpus and pids may be quoted numbers', () => {
    expect(parsed('placement: container\ncpus: "2"\npids: "4096"\n')).toMatchObject({ cpus: 2, pids: 4096 });
  });

  it.each<[string, string, RegExp]>([
    ['memory: lots', 'memory', /line 7: memory is "lots"; it must be a size such as "512m"/],
    ['memory: 1024', 'memory', /line 7: memory is 1024 \(1024 bytes\); the engine refuses less than 6 MiB.*A bare number is bytes/],
    ['memory: -1g', 'memory', /memory is "-1g"/],
    ['cpus: 0', 'cpus', /line 7: cpus is 0; it must be a number of CPUs from 0.01 to 1024/],
    ['cpus: [1]', 'cpus', /cpus is \[1\]/],
    ['pids: 12.5', 'pids', /line 7: pids is 12.5; it must be a whole number of processes from 16 to 4194304/],
    ['network: nat', 'network', /line 7: network is "nat"; it must be bridge, host or none/],
    ['image: ""', 'image', /line 7: image is ""; it must be a local image reference without spaces/],
    ['container_engine: 42', 'container_engine', /line 7: container_engine is 42; it must name a Docker engine/],
  ])('%s is rejected naming the field', (line, field, why) => {
    const p = problems(`placement: container\n${line}\n`);
    const hit = p.find((x) => x.field === field);
    expect(hit, JSON.stringify(p)).toBeDefined();
    expect(hit!.code).toBe('invalid_field');
    expect(hit!.message).toMatch(why);
  });

  it('reports every bad container key of one file, not just the first', () => {
    const p = problems('placement: container\nmemory: x\ncpus: y\nnetwork: z\n');
    expect(p.map((x) => x.field)).toEqual(['memory', 'cpus', 'network']);
  });

  it('refuses container keys without placement: container, naming each key', () => {
    const none = problems('memory: 8g\nnetwork: none\n');
    expect(none.map((p) => [p.code, p.field])).toEqual([
      ['container_key_without_container', 'memory'],
      ['container_key_without_container', 'network'],
    ]);
    expect(none[0]!.message).toBe('line 6: memory is a container setting, but this command has no "placement: container"; add "placement: container" or remove memory.');
    const host = problems('placement: host\nimage: x:1\n');
    expect(host[0]!.message).toBe('line 7: image is a container setting, but this command says placement: host; add "placement: container" or remove image.');
  });

  it('refuses container keys on an end command (it runs no turn)', () => {
    const p = problems('placement: container\npids: 64\n', 'end', 's-1');
    expect(p[0]).toMatchObject({ code: 'container_key_without_container', field: 'pids' });
    expect(p[0]!.message).toMatch(/an end command runs no agent turn/);
  });

  it('accepts them on a continue with placement: container', () => {
    expect(parsed('placement: container\ncpus: 1\n', 'continue', 's-1')).toMatchObject({ commandType: 'continue', sessionId: 's-1', cpus: 1 });
  });
});

describe('writing container keys', () => {
  const base: CommandFileInput = { id: 'task-w1', createdAt: '2026-02-22T10:00:00Z', commandType: 'new', task: 'Train the model.', placement: 'container' };

  it.each<[string, CommandFileInput]>([
    ['every key', { ...base, containerEngine: 'local', image: 'flightdeck-agent:latest', memoryBytes: 8 * GiB, cpus: 0.5, pids: 128, network: 'host', gpus: { kind: 'all' } }],
    ['memory that is no whole unit', { ...base, memoryBytes: 7 * MiB + 3 }],
    ['memory in MiB', { ...base, memoryBytes: 1536 * MiB }],
    ['a continue', { ...base, commandType: 'continue', sessionId: 'abc', network: 'bridge' }],
  ])('round-trips: %s', (_, input) => {
    const text = formatCommandFile(input);
    const r = parseCommandFile(text);
    if (!r.ok) throw new Error(JSON.stringify(r.problems));
    const { headings: _h, extra: _e, ...want } = input;
    expect(r.command).toMatchObject({ ...want, sessionId: input.sessionId ?? null });
    expect(r.warnings).toEqual([]);
  });

  it('writes memory in the largest whole unit', () => {
    expect(formatMemory(8 * GiB)).toBe('8g');
    expect(formatMemory(1536 * MiB)).toBe('1536m');
    expect(formatMemory(7 * MiB + 3)).toBe(7 * MiB + 3);
    expect(formatCommandFile({ ...base, memoryBytes: 512 * MiB, cpus: 2, network: 'none' })).toContain('\nmemory: 512m\ncpus: 2\nnetwork: none\n');
  });

  it('refuses container keys without placement: container with the parser’s reason', () => {
    let err: unknown;
    try {
      formatCommandFile({ ...base, placement: 'host', memoryBytes: GiB });
    } catch (e) {
      err = e;
    }
    expect(isAppError(err) && err.code).toBe('invalid_input');
    expect((err as Error).message).toMatch(/memory is a container setting, but this command says placement: host/);
  });

  it('the app’s container settings become the file’s keys', () => {
    expect(containerCommandFields({ engine: 'local', image: 'img:1', gpus: { kind: 'none' }, limits: { memoryBytes: GiB, cpus: 2, pids: 64 }, network: 'none' })).toEqual({
      containerEngine: 'local',
      image: 'img:1',
      gpus: { kind: 'count', count: 0 },
      memoryBytes: GiB,
      cpus: 2,
      pids: 64,
      network: 'none',
    });
    expect(containerCommandFields({ gpus: { kind: 'ids', ids: ['0', '1'] }, limits: { memoryBytes: null } })).toEqual({ gpus: { kind: 'ids', ids: ['0', '1'] } });
  });
});

describe('container keys as text (the CLI)', () => {
  it('parses with the file’s rules and messages', () => {
    expect(parseContainerKeys({ container_engine: 'local', memory: '2g', cpus: '1.5', pids: '100', network: 'none' })).toEqual({ ok: true, fields: { containerEngine: 'local', memoryBytes: 2 * GiB, cpus: 1.5, pids: 100, network: 'none' } });
    const bad = parseContainerKeys({ memory: '1k', network: 'nat' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.problems).toEqual([expect.stringMatching(/^memory is "1k" \(1024 bytes\); the engine refuses less than 6 MiB/), 'network is "nat"; it must be bridge, host or none.']);
  });
});

describe('the placement a command asks for', () => {
  const cmd = (extra: string, type = 'new', session = 'auto') => parsed(extra, type, session);

  it('a new session: the file’s settings over the mailbox’s image', () => {
    expect(wantedPlacement(cmd('placement: container\nmemory: 1g\nnetwork: none\ncontainer_engine: local\n'), null, 'agent:1')).toEqual({ image: 'agent:1', engine: 'local', limits: { memoryBytes: GiB }, network: 'none' });
  });

  it('a continue keeps what it does not name and changes what it does', () => {
    const current = { image: 'agent:1', engine: 'local', limits: { memoryBytes: GiB, cpus: 2 }, network: 'none' as const };
    expect(wantedPlacement(cmd('placement: container\n', 'continue', 's-1'), current, 'other:2')).toEqual(current);
    const next = wantedPlacement(cmd('placement: container\ncpus: 0.5\nnetwork: bridge\n', 'continue', 's-1'), current, 'other:2');
    expect(next).toEqual({ ...current, limits: { memoryBytes: GiB, cpus: 0.5 }, network: 'bridge' });
    expect(placementChanges(current, next)).toEqual(['CPUs 2 → 0.5', 'network none → bridge']);
    expect(placementChanges(current, { ...current, limits: { ...current.limits, memoryBytes: 512 * MiB } })).toEqual(['memory 1 GiB → 512 MiB']);
    // Two limits that differ never read the same.
    expect(placementChanges(current, { ...current, limits: { ...current.limits, memoryBytes: 1280 * MiB } })).toEqual(['memory 1 GiB → 1280 MiB']);
    expect(placementChanges({ ...current, limits: { memoryBytes: 1280 * MiB } }, { ...current, limits: { memoryBytes: 1300 * MiB } })).toEqual(['memory 1280 MiB → 1300 MiB']);
    expect(placementChanges({ image: 'a' }, { image: 'a', network: 'host', gpus: { kind: 'count', count: 2 } })).toEqual(['GPUs none → 2', 'network the default → host']);
    expect(placementChanges({ image: 'a', taskTimeoutMs: 600_000 }, { image: 'a', taskTimeoutMs: 90_000 })).toEqual(['time limit 600 s → 90 s']);
  });
});

describe('a continue that names no container settings', () => {
  it('keeps the container when the stored placement has its keys in another order (Keep after quit adds keep last)', async () => {
    // As setKeep stores it: the placement the mailbox wrote, then `keep` appended.
    const stored = { image: 'agent:1', taskTimeoutMs: 600_000, keep: true };
    const replaced: unknown[] = [];
    const placement = containerTaskPlacement({ placement: () => stored, setPlacement: async (_s, p) => void replaced.push(p), engine: () => ({}) }, () => 'agent:1');
    const r = await placement.prepare({ command: parsed('placement: container\n', 'continue', 's-1'), root: '/m', workspace: '/w', sessionId: 's-1' });
    expect(replaced).toEqual([]);
    expect(r.notes).toEqual([]);
    await placement.prepare({ command: parsed('placement: container\ncpus: 2\n', 'continue', 's-1'), root: '/m', workspace: '/w', sessionId: 's-1' });
    expect(replaced).toEqual([{ ...stored, limits: { cpus: 2 } }]);
  });
});

describe('an unknown engine', () => {
  it("fails the task before the session is placed, whether the command file or the project's config names it", async () => {
    const placed: unknown[] = [];
    const placer = {
      placement: () => null,
      setPlacement: async (_s: string, p: unknown) => void placed.push(p),
      engine: (name: string) => {
        if (name !== 'local') throw new Error(`There is no engine "${name}" (known: local).`);
        return {};
      },
    };
    const placement = containerTaskPlacement(placer, () => 'agent:1');
    const ctx = { root: '/m', workspace: '/w', sessionId: 's-1' };
    await expect(placement.prepare({ ...ctx, command: parsed('placement: container\ncontainer_engine: nope\n') })).rejects.toThrow(/no engine "nope"/);
    await expect(placement.prepare({ ...ctx, command: parsed('placement: container\n'), projectDefault: { kind: 'container', engine: 'gone' } })).rejects.toThrow(/no engine "gone"/);
    expect(placed).toEqual([]);
    await placement.prepare({ ...ctx, command: parsed('placement: container\n'), projectDefault: { kind: 'container', engine: 'local' } });
    expect(placed).toEqual([{ engine: 'local', image: 'agent:1' }]);
  });
});
